"""``memoir insights``, ``memoir candidates`` and ``memoir maintain``: seed 003's
pipeline from tool errors to skills, as a person sees and steers it."""

from __future__ import annotations

import datetime as dt

import click

from memoir.clock import FakeClock, parse_moment
from memoir.commands.base import echo_json, home_option, is_json, open_home, table, write_json
from memoir.insights.pipeline import accept_candidate, insight_rows, maintain, reject_candidate

__all__ = ["candidates_group", "insights_group", "maintain_command"]


@click.group("insights", invoke_without_command=True)
@home_option
@click.pass_context
def insights_group(ctx: click.Context) -> None:
    """Tool-error signatures memoir counts: `memoir insights list`."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_insights)


@insights_group.command("list")
@home_option
@click.option("--state", "states", multiple=True,
              type=click.Choice(["seen", "insight", "candidate", "accepted", "rejected",
                                 "expired"]), help="Only these states (repeatable).")
@click.pass_context
def list_insights(ctx: click.Context, states: tuple[str, ...]) -> None:
    """Each error signature: how often, its state, first and last seen, its resolution."""
    rows = [r for r in insight_rows(open_home(ctx, readonly=True).state)
            if not states or r["state"] in states]
    if is_json():
        echo_json(rows)
        return
    if not rows:
        click.echo("no tool errors recorded")
        return
    table(["COUNT", "STATE", "LAST SEEN", "SIGNATURE", "RESOLUTION"],
          [[r["count"], r["state"], r["last_seen"][:19], r["signature"], r["resolution"]]
           for r in rows], right=[0], flex=3)


@click.group("candidates", invoke_without_command=True)
@home_option
@click.pass_context
def candidates_group(ctx: click.Context) -> None:
    """Skills proposed from insights used often: list, accept, reject."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_candidates)


@candidates_group.command("list")
@home_option
@click.pass_context
def list_candidates(ctx: click.Context) -> None:
    """The candidates waiting for a decision."""
    rows = [r for r in insight_rows(open_home(ctx, readonly=True).state)
            if r["state"] == "candidate"]
    if is_json():
        echo_json(rows)
        return
    if not rows:
        click.echo("no candidates")
        return
    for r in rows:
        click.echo(f"{r['signature']}\n    seen {r['count']}x, used {r['references']}x; "
                   f"resolution: {r['resolution'] or '-'}")


@candidates_group.command("accept")
@home_option
@click.argument("signature")
@click.option("--name", default=None, help="The skill's name (default: from the signature).")
@click.pass_context
def accept_command(ctx: click.Context, signature: str, name: str | None) -> None:
    """Create a skill from candidate SIGNATURE (a unique prefix will do), as one run."""
    handle = open_home(ctx)
    run, skill = accept_candidate(handle, signature, name=name)
    if is_json():
        echo_json({"run": run, "skill": skill})
        return
    click.echo(f"created skill '{skill}' (run {run}); `memoir revert {run}` undoes it")


@candidates_group.command("reject")
@home_option
@click.argument("signature")
@click.option("--reason", default="", help="Why (kept with the rejection).")
@click.pass_context
def reject_command(ctx: click.Context, signature: str, reason: str) -> None:
    """Reject candidate SIGNATURE (a unique prefix will do)."""
    run = reject_candidate(open_home(ctx), signature, reason)
    if is_json():
        echo_json({"run": run})
        return
    click.echo(f"rejected (run {run})")


@click.command("maintain")
@home_option
@click.option("--now", "now_text", default=None, help="As of this time (replays, tests).")
@click.pass_context
def maintain_command(ctx: click.Context, now_text: str | None) -> None:
    """The scheduled pass: end sessions idle for sessions.idle_timeout_minutes (their
    summary and end review follow), expire tool-error signatures seen once and not
    within insights.expire_days, demote insights unused for insights.demote_days."""
    now = None
    if now_text is not None:
        try:
            now = parse_moment(now_text, dt.datetime.now(dt.UTC))
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--now") from None
    # As of --now throughout: what opening ends as idle too.
    handle = open_home(ctx, clock=None if now is None else FakeClock(now))
    idle = handle.ended_idle + handle.learning.end_idle(now)  # opening ended some
    handle.flush()  # their end reviews are done before this prints
    run, events = maintain(handle, now)
    if is_json():
        echo_json({**write_json(run, events), "ended_sessions": idle})
        return
    for sid in idle:
        click.echo(f"ended idle session {sid} (summary and review journaled)")
    if run is None:
        click.echo("nothing to expire or demote")
        return
    click.echo(f"run {run}: {events[0].data.summary}")  # type: ignore[attr-defined]
