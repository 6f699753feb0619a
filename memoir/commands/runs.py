"""``memoir runs`` and ``memoir revert``: every run (a CLI edit, a review, an adoption,
a curator pass, an import, a revert), and undoing one (added to the root group by
:mod:`memoir.cli`; ``memoir curator rollback`` reverts through here too)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import click

from memoir.api import Memoir
from memoir.clock import format_ts, parse_moment
from memoir.commands.base import (
    complete_runs,
    echo_json,
    home_option,
    is_json,
    open_home,
    resolve_run,
    table,
    write_json,
)
from memoir.events.present import detail
from memoir.events.types import Payload
from memoir.lookup import did_you_mean
from memoir.oversight.revert import OnConflict, RevertPlan, revert_run

__all__ = ["describe", "revert", "revert_cmd", "runs"]


def describe(p: Payload) -> str:
    """A payload in one line: its type, then what it did (:mod:`memoir.events.present`)."""
    return f"{p.TYPE:22s} {detail(p, width=100)}".rstrip()


def _conflict_choice(force: bool, skip: bool) -> OnConflict:
    if force and skip:
        raise click.UsageError("give --force or --skip-conflicts, not both")
    return "force" if force else "skip" if skip else "refuse"


def _revert_json(plan: RevertPlan, dry_run: bool) -> dict[str, Any]:
    return {**write_json(None if dry_run else plan.run_id, plan.events), "dry_run": dry_run,
            **plan.as_json()}


def _print_revert(plan: RevertPlan, dry_run: bool,
                  hermes: dict[str, Any] | None = None) -> None:
    if is_json():
        echo_json({**_revert_json(plan, dry_run), **({"hermes": hermes} if hermes else {})})
        return
    for path in (hermes or {}).get("written", []):
        click.echo(f"  wrote Hermes's {path}")
    for target, backup in (hermes or {}).get("refused", {}).items():
        click.echo(f"  left Hermes's {target} file alone: it fails Hermes's drift check "
                   f"(copied to {backup}); fix it, then `memoir hermes push`", err=True)
    verb = "would append" if dry_run else "appended"
    for c in plan.conflicts:
        what = {"force": "reverted anyway", "skip": "left as is"}.get(plan.resolution,
                                                                     "blocks the revert")
        click.echo(f"  conflict: {c.entity} changed later (seq "
                   f"{', '.join(map(str, c.seqs))}): {what}")
    for kind, n in sorted(plan.unsupported.items()):
        why = "its content was forgotten: it cannot be restored" if \
            kind.endswith("(forgotten)") else "no compensation known"
        click.echo(f"  left as is: {n} {kind} event(s) ({why})")
    for p in plan.compensations:
        click.echo(f"  {verb}: {describe(p)}")
    if dry_run:
        click.echo(f"dry run: reverting run {plan.target} would append "
                   f"{len(plan.compensations)} compensating event(s); nothing appended")
    else:
        click.echo(f"reverted run {plan.target} as run {plan.run_id} "
                   f"({len(plan.compensations)} compensating event(s)); "
                   f"`memoir revert {plan.run_id}` undoes the revert")


def revert_cmd(handle: Memoir, run: str, dry_run: bool, force: bool, skip: bool) -> None:
    run = resolve_run(handle, run)
    mirrored = handle.config.hermes.home
    if mirrored:
        # A home that mirrors a Hermes home: the revert is applied to Hermes's files too.
        from memoir.integrations.hermes_mirror import revert as mirror_revert

        done = mirror_revert(handle, Path(mirrored).expanduser(), run, dry_run=dry_run,
                             on_conflict=_conflict_choice(force, skip))
        assert done.plan is not None
        _print_revert(done.plan, dry_run, {"mirrored": done.mirrored, "written": done.written,
                                           "refused": done.refused})
        return
    plan = revert_run(handle, run, dry_run=dry_run, on_conflict=_conflict_choice(force, skip))
    _print_revert(plan, dry_run)


@click.command("revert")
@home_option
@click.argument("run", required=False, shell_complete=complete_runs)
@click.option("--last", is_flag=True, help="Revert the newest run (as RUN = HEAD).")
@click.option("--dry-run", is_flag=True, help="Show what would change; append nothing.")
@click.option("--force", is_flag=True,
              help="Revert entities that later events changed too (to their value before "
                   "the run).")
@click.option("--skip-conflicts", "skip", is_flag=True,
              help="Revert only the entities no later event changed.")
@click.pass_context
def revert(ctx: click.Context, run: str | None, last: bool, dry_run: bool, force: bool,
           skip: bool) -> None:
    """Undo run RUN (its id, or a unique prefix of it; HEAD is the newest run, HEAD~1
    the one before, --last the same as HEAD) with compensating events (itself a run you
    can revert)."""
    if last == (run is not None):
        raise click.UsageError("give a RUN or --last (one of them)")
    revert_cmd(open_home(ctx), run or "HEAD", dry_run, force, skip)


def _refusals(counts: dict[str, int], outcome: str | None) -> str:
    """The writes a run had refused, when its summary does not say so already."""
    refused = counts.get("memory.write_rejected", 0) + counts.get("skill.write_rejected", 0)
    if not refused or (outcome and "Refused" in outcome):
        return ""
    return f" · {refused} write(s) refused"


@click.command("runs")
@home_option
@click.option("--kind", default=None, help="Only runs of this kind (curator, revert, cli …).")
@click.option("--actor", default=None, help="Only runs by this actor (user, agent, …).")
@click.option("--since", default=None, metavar="DATE",
              help="Only runs started at or after DATE ('2026-11-01', '2 days ago').")
@click.option("--limit", "-n", type=click.IntRange(min=0), default=None,
              help="At most this many runs: the newest ones.")
@click.option("--newest-first/--oldest-first", "newest", default=None,
              help="Order (default: newest first on a terminal, oldest first when piped).")
@click.pass_context
def runs(ctx: click.Context, kind: str | None, actor: str | None, since: str | None,
         limit: int | None, newest: bool | None) -> None:
    """List runs: who, when, what kind, what they did, and whether they were reverted.
    On a terminal the newest come first, as in `memoir log`."""
    handle = open_home(ctx, readonly=True)
    state = handle.state
    after = None
    if since is not None:
        try:
            after = format_ts(parse_moment(since, handle.clock.now()))
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--since") from None
    counts: dict[str, Counter[str]] = {}
    outcome: dict[str, str] = {}
    for event in handle.events():
        if event.run is not None:
            counts.setdefault(event.run, Counter())[event.type] += 1
            if event.type == "review.completed":
                outcome[event.run] = getattr(event.data, "summary", "") or "nothing saved"
            elif event.type == "review.failed":
                outcome[event.run] = f"FAILED: {getattr(event.data, 'reason', '')}"
    rows: list[dict[str, Any]] = []
    kinds = {info.kind for info in state.runs.values() if info.kind}
    chosen = [info for info in sorted(state.runs.values(), key=lambda r: r.first_seq)
              if (kind is None or info.kind == kind) and (actor is None or info.actor == actor)
              and (after is None or info.started_at[:26] >= after[:26])]
    if limit is not None:
        chosen = chosen[len(chosen) - limit:] if limit else []
    if newest if newest is not None else sys.stdout.isatty() and not is_json():
        chosen.reverse()
    for info in chosen:
        rows.append({
            "run": info.id, "kind": info.kind, "actor": info.actor,
            "started_at": info.started_at, "first_seq": info.first_seq,
            "last_seq": info.last_seq, "events": info.events, "summary": info.summary,
            "session": info.session, "reverted_by": info.reverted_by,
            "counts": dict(sorted(counts.get(info.id, Counter()).items())),
            # A review: what it changed (or why it failed), from its closing event.
            "outcome": outcome.get(info.id),
        })
    if is_json():
        echo_json(rows)
        return
    if not rows:
        actors = {info.actor for info in state.runs.values()}
        click.echo("no runs" + (f" of kind {kind!r}{did_you_mean(kind, kinds)}"
                                if kind is not None else "")
                   + (f" by {actor!r}{did_you_mean(actor, actors)}"
                      if actor is not None else "")
                   + (f" since {since}" if since is not None else ""))
        return
    table(["RUN", "KIND", "ACTOR", "STARTED", "EVENTS", "SUMMARY"],
          [[r["run"], r["kind"] or "-", r["actor"], r["started_at"][:19], r["events"],
            r["summary"].split("\n")[0]
            + (f" → {r['outcome']}" if r["outcome"] else "")
            + _refusals(r["counts"], r["outcome"])
            + (f"  [reverted by {r['reverted_by']}]" if r["reverted_by"] else "")]
           for r in rows], right=[4])
