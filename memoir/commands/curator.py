"""``memoir curator …`` (added to the root group by :mod:`memoir.cli`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import click

from memoir.api import Memoir
from memoir.clock import parse_moment, parse_ts
from memoir.commands.base import (
    Exit,
    UserError,
    complete_runs,
    confirm,
    echo_json,
    home_option,
    is_json,
    open_home,
    table,
    write_json,
    yes_option,
)
from memoir.commands.runs import revert_cmd
from memoir.commands.skills import (
    archive_command,
    pin_command,
    restore_command,
    skill_run,
    unpin_command,
)
from memoir.curator.config import curator_config
from memoir.curator.lifecycle import candidates
from memoir.curator.llm_plan import llm_plan
from memoir.curator.passes import PassResult, run_pass
from memoir.curator.plans import Plan, Refusal, load_plan
from memoir.curator.schedule import DEFERRED, maybe_run, should_run
from memoir.curator.state_commands import pause, resume
from memoir.errors import NotFoundError
from memoir.insights.pipeline import maintain
from memoir.llm import LLMError, client_from_config
from memoir.oversight.revert import last_curator_run
from memoir.projections.skills import SkillRecord, skill_dir
from memoir.skills.guards import archive_events

__all__ = ["curator"]


def _now_option(value: str | None) -> dt.datetime | None:
    if value is None:
        return None
    try:
        return parse_moment(value, dt.datetime.now(dt.UTC))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--now") from None


def _ago(ts: str | None, now: dt.datetime) -> str:
    if not ts:
        return "never"
    try:
        secs = int((now - parse_ts(ts)).total_seconds())
    except ValueError:
        return ts
    if secs < 0:
        return ts  # a pass run with --now in the future
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if secs >= size:
            return f"{secs // size}{unit} ago"
    return f"{secs}s ago"


@click.group()
@home_option
def curator() -> None:
    """Skill lifecycle, consolidation passes, their schedule and their reports."""


@curator.command("status")
@home_option
@click.pass_context
def curator_status(ctx: click.Context) -> None:
    """Schedule, last pass and the curated skills, least and most active first."""
    handle = open_home(ctx, readonly=True)
    state = handle.state
    cfg = curator_config(handle.config)
    cur = state.curator
    now = handle.clock.now()
    mode = "DISABLED" if not cfg.enabled else "PAUSED" if cur.paused else "ENABLED"
    names = candidates(state.skills.skills, prune_builtins=cfg.prune_builtins)
    rows = [state.skills.skills[n] for n in names]
    due, why = should_run(cur, now, cfg)
    info: dict[str, Any] = {
        "status": mode, "runs": cur.run_count, "last_run_at": cur.last_run_at,
        "last_run_summary": cur.last_run_summary, "last_report_path": cur.last_report_path,
        "last_run": last_curator_run(state), "due": due, "schedule": why,
        "config": cfg.model_dump(),
        "skills": {s: sum(1 for r in rows if r.state == s) for s in ("active", "stale")},
        "pinned": sorted(r.name for r in rows if r.pinned),
    }
    if is_json():
        echo_json(info)
        return
    click.echo(f"curator: {mode}")
    click.echo(f"  runs:           {cur.run_count}")
    click.echo(f"  last run:       {_ago(cur.last_run_at, now)}"
               + (f"  ({info['last_run']})" if info["last_run"] else ""))
    summary = (cur.last_run_summary or "(none)").splitlines()
    click.echo(f"  last summary:   {summary[0]}")
    for line in summary[1:]:
        click.echo(f"                  {line}")
    if cur.last_report_path:
        click.echo(f"  last report:    {handle.home / cur.last_report_path}")
    hours = cfg.interval_hours
    label = f"{int(hours // 24)}d" if hours % 24 == 0 else f"{hours:g}h"
    click.echo(f"  interval:       every {label} (min idle {cfg.min_idle_hours:g}h); {why}")
    click.echo(f"  stale after:    {cfg.stale_after_days}d without activity")
    click.echo(f"  archive after:  {cfg.archive_after_days}d without activity")
    click.echo(f"  consolidate:    {'on' if cfg.consolidate else 'off (lifecycle only)'}")
    if not rows:
        click.echo("\nno curated skills")
        return
    click.echo(f"\ncurated skills: {len(rows)}")
    for s in ("active", "stale"):
        click.echo(f"  {s:10s} {info['skills'][s]}")
    if info["pinned"]:
        click.echo(f"\npinned ({len(info['pinned'])}): {', '.join(info['pinned'])}")
    active = [r for r in rows if r.state == "active"]
    _table("least recently active", sorted(
        active, key=lambda r: r.last_activity_at or r.created_at)[:5], now)
    most = sorted(active, key=lambda r: (r.activity_count, r.last_activity_at or ""),
                  reverse=True)[:5]
    if most and most[0].activity_count > 0:
        _table("most active", most, now)
    _table("least active", sorted(
        active, key=lambda r: (r.activity_count, r.last_activity_at or ""))[:5], now)


def _table(title: str, rows: list[SkillRecord], now: dt.datetime) -> None:
    if not rows:
        return
    click.echo(f"\n{title} (top {len(rows)}):")
    for r in rows:
        click.echo(f"  {r.name:32s}  activity={r.activity_count:3d}  use={r.use_count:3d}  "
                   f"view={r.view_count:3d}  patches={r.patch_count:3d}  "
                   f"last_activity={_ago(r.last_activity_at, now)}")


def _pass_json(result: PassResult) -> dict[str, Any]:
    plan = result.plan
    return {
        **write_json(None if result.dry_run else result.run_id, result.events),
        "dry_run": result.dry_run, "summary": result.summary,
        "transitions": [{"name": t.name, "from": t.from_state, "to": t.to_state,
                         "idle_days": t.idle_days} for t in result.lifecycle.transitions],
        "consolidations": [{"source": c.source, "into": c.into}
                           for c in (plan.consolidations if plan else [])],
        "prunings": [{"name": p.name, "reason": p.reason} for p in (plan.prunings if plan else [])],
        "umbrellas": [u.name for u in (plan.umbrellas if plan else [])],
        "refusals": [{"kind": r.kind, "name": r.name, "reason": r.reason}
                     for r in result.refusals],
        "changes": len(result.changes), "report": result.report_path,
    }


def _print_pass(result: PassResult, home: Memoir) -> None:
    if is_json():
        echo_json(_pass_json(result))
        return
    verb = "would" if result.dry_run else "did"
    for line in result.summary.splitlines():
        click.echo(line)
    for t in result.lifecycle.transitions:
        click.echo(f"  {verb}: {t.name}: {t.from_state} → {t.to_state} "
                   f"(no activity for {t.idle_days} days)")
    plan = result.plan
    if plan is not None:
        for c in plan.consolidations:
            click.echo(f"  {verb}: absorb {c.source} into {c.into}")
        for p in plan.prunings:
            click.echo(f"  {verb}: prune {p.name}" + (f" ({p.reason})" if p.reason else ""))
        for u in plan.umbrellas:
            click.echo(f"  {verb}: create umbrella {u.name}")
    for r in result.refusals:
        click.echo(f"  refused {r.kind} {r.name or '?'}: {r.reason}")
    if result.dry_run:
        click.echo(f"dry run: nothing appended ({len(result.changes)} skill change(s) "
                   "would be made)")
    else:
        seqs = f"seq {result.events[0].seq}-{result.events[-1].seq}" if result.events else ""
        click.echo(f"run {result.run_id} ({seqs}); report in "
                   f"{home.home / (result.report_path or '')}; "
                   f"`memoir revert {result.run_id}` undoes it")


@curator.command("run")
@home_option
@click.option("--dry-run", is_flag=True, help="Show what would change; append nothing.")
@click.option("--plan", "plan_file", type=click.Path(dir_okay=False, exists=True),
              default=None, help="Consolidate by this plan (YAML, or markdown with a "
              "```yaml block).")
@click.option("--consolidate", is_flag=True,
              help="Consolidate by the built-in rules (name-prefix umbrellas).")
@click.option("--llm", "use_llm", is_flag=True,
              help="Consolidate by a plan the configured model proposes (reviewers.llm), "
                   "validated like a plan file.")
@click.option("--now", "now_text", default=None, help="Run as of this ISO-8601 time.")
@click.pass_context
def curator_run(ctx: click.Context, dry_run: bool, plan_file: str | None, consolidate: bool,
                use_llm: bool, now_text: str | None) -> None:
    """Run a pass now: lifecycle transitions, then consolidation if asked."""
    if sum(map(bool, (plan_file, consolidate, use_llm))) > 1:
        raise click.UsageError("give one of --plan FILE, --consolidate or --llm")
    now = _now_option(now_text)
    plan: Plan | None = None
    refusals: list[Refusal] = []
    if plan_file:
        plan, refusals = load_plan(plan_file)
    handle = open_home(ctx)
    if use_llm:
        try:
            plan, refusals = llm_plan(handle.state, client_from_config(handle.config),
                                      prune_builtins=handle.config.curator.prune_builtins)
        except LLMError as exc:
            raise UserError(f"no plan from the model: {exc}", exit=Exit.ERROR) from None
    result = run_pass(handle, now=now, plan=plan, plan_refusals=refusals,
                      use_rules=consolidate, dry_run=dry_run)
    assert result is not None
    _print_pass(result, handle)
    given = plan is not None and (plan_file or use_llm)
    if given and result.refusals and not result.changes:
        raise UserError(f"every item of the plan was refused ({len(result.refusals)}, "
                        "listed above with the reason)", exit=Exit.REFUSED)


@curator.command("tick")
@home_option
@click.option("--idle-for", "idle_hours", type=float, default=None,
              help="Hours the agent has been idle (default: measured from the journal).")
@click.option("--now", "now_text", default=None, help="As of this ISO-8601 time.")
@click.pass_context
def curator_tick(ctx: click.Context, idle_hours: float | None, now_text: str | None) -> None:
    """Run a pass only if the schedule says one is due (for cron or a service); the error
    pipeline's pass (`memoir maintain`) runs every tick."""
    handle = open_home(ctx)
    now = _now_option(now_text)
    maintained, _events = maintain(handle, now)
    if maintained is not None and not is_json():
        click.echo(f"maintain: run {maintained}")
    cfg = curator_config(handle.config)
    _due, before = should_run(handle.state.curator, now or handle.clock.now(), cfg)
    result = maybe_run(handle, now=now,
                       idle_for=None if idle_hours is None else idle_hours * 3600.0)
    if result is not None:
        _print_pass(result, handle)
        return
    _due, why = should_run(handle.state.curator, now or handle.clock.now(), cfg)
    if before == DEFERRED:
        why = f"{DEFERRED}; {why}"
    elif why == "due":
        why = f"due, but the agent was active less than {cfg.min_idle_hours:g}h ago"
    if is_json():
        echo_json({"run": None, "ran": False, "why": why})
        return
    click.echo(f"no pass: {why}")


@curator.command("pause")
@home_option
@click.pass_context
def curator_pause(ctx: click.Context) -> None:
    """Stop scheduled passes until `memoir curator resume`."""
    run = pause(open_home(ctx))
    if is_json():
        echo_json({"run": run, "paused": True})
        return
    click.echo(f"curator paused (run {run})" if run else "curator was already paused")


@curator.command("resume")
@home_option
@click.pass_context
def curator_resume(ctx: click.Context) -> None:
    """Let scheduled passes run again."""
    run = resume(open_home(ctx))
    if is_json():
        echo_json({"run": run, "paused": False})
        return
    click.echo(f"curator resumed (run {run})" if run else "curator was not paused")


def _curator_passes(handle: Memoir) -> list[dict[str, Any]]:
    state = handle.state
    return [{"run": r.id, "started_at": r.started_at, "events": r.events,
             "summary": r.summary, "reverted_by": r.reverted_by}
            for r in sorted(state.runs.values(), key=lambda r: r.first_seq, reverse=True)
            if r.kind == "curator"]


@curator.command("rollback")
@home_option
@click.option("--list", "listing", is_flag=True,
              help="List the curator passes that can be rolled back, newest first.")
@click.option("--id", "run_id", default=None, shell_complete=complete_runs,
              help="Roll back this pass (a unique prefix will do) instead of the latest.")
@click.option("--dry-run", is_flag=True, help="Show what would change; append nothing.")
@click.option("--force", is_flag=True, help="Revert entities changed since, too.")
@click.option("--skip-conflicts", "skip", is_flag=True,
              help="Leave entities changed since as they are.")
@yes_option
@click.pass_context
def curator_rollback(ctx: click.Context, listing: bool, run_id: str | None, dry_run: bool,
                     force: bool, skip: bool, yes: bool) -> None:
    """Revert the latest curator pass, or the one of --id (telemetry and later edits
    are kept); --list shows the passes.

    It does not ask first (-y is accepted, as in Hermes): the rollback is itself a run
    that `memoir revert` undoes.
    """
    handle = open_home(ctx, readonly=listing)
    if listing:
        rows = _curator_passes(handle)
        if is_json():
            echo_json(rows)
        elif not rows:
            click.echo("no curator passes")
        else:
            table(["RUN", "STARTED", "EVENTS", "REVERTED BY", "SUMMARY"],
                  [[r["run"], r["started_at"][:19], r["events"], r["reverted_by"],
                    r["summary"].split("\n")[0]] for r in rows], right=[2])
        return
    run = run_id or last_curator_run(handle.state)
    if run is None:
        raise NotFoundError("no curator pass to roll back (`memoir runs` lists the runs)")
    revert_cmd(handle, run, dry_run, force, skip)


# --- Hermes's curator verbs on skills ----------------------------------------------------------


def _idle_days(record: SkillRecord, now: dt.datetime) -> float:
    since = record.last_activity_at or record.created_at
    try:
        return (now - parse_ts(since)).total_seconds() / 86400 if since else 0.0
    except ValueError:
        return 0.0


@curator.command("usage")
@home_option
@click.option("--sort", type=click.Choice(["activity", "recent", "name"]), default="activity",
              show_default=True, help="Most active first, most recently active first, or "
              "by name.")
@click.option("--provenance", type=click.Choice(["agent", "user", "bundled", "hub", "import"]),
              default=None, help="Only skills of this provenance.")
@click.pass_context
def curator_usage(ctx: click.Context, sort: str, provenance: str | None) -> None:
    """Telemetry for every skill: uses, views, patches, activity and when last active."""
    state = open_home(ctx, readonly=True).state
    records = [r for r in state.skills.skills.values()
               if provenance is None or r.provenance == provenance]
    if sort == "activity":
        records.sort(key=lambda r: (-r.activity_count, r.name))
    elif sort == "recent":
        records.sort(key=lambda r: (r.last_activity_at or "", r.name), reverse=True)
    else:
        records.sort(key=lambda r: r.name)
    rows: list[dict[str, Any]] = [
            {"name": r.name, "state": r.state, "provenance": r.provenance, "pinned": r.pinned,
             "activity": r.activity_count, "use": r.use_count, "view": r.view_count,
             "patch": r.patch_count, "last_activity_at": r.last_activity_at,
             "created_at": r.created_at} for r in records]
    if is_json():
        echo_json(rows)
        return
    if not rows:
        click.echo("no skills")
        return
    table(["NAME", "STATE", "PROVENANCE", "PIN", "ACTIVITY", "USE", "VIEW", "PATCH",
           "LAST ACTIVITY"],
          [[r["name"], r["state"], r["provenance"], "yes" if r["pinned"] else "-",
            r["activity"], r["use"], r["view"], r["patch"], (r["last_activity_at"] or "-")[:19]]
           for r in rows], flex=0, right=[4, 5, 6, 7])


@curator.command("list-archived")
@home_option
@click.pass_context
def curator_list_archived(ctx: click.Context) -> None:
    """The archived skills: where they went, when and why."""
    state = open_home(ctx, readonly=True).state
    rows = [{"name": r.name, "archived_at": r.archived_at, "reason": r.archive_reason,
             "absorbed_into": r.absorbed_into, "path": skill_dir(r)}
            for r in sorted(state.skills.skills.values(), key=lambda r: r.name) if r.archived]
    if is_json():
        echo_json(rows)
        return
    if not rows:
        click.echo("no archived skills")
        return
    table(["NAME", "ARCHIVED", "INTO", "REASON"],
          [[r["name"], (r["archived_at"] or "-")[:19], r["absorbed_into"], r["reason"]]
           for r in rows])


@curator.command("prune")
@home_option
@click.option("--days", type=click.IntRange(min=1), default=90, show_default=True,
              help="Archive skills idle at least this many days.")
@click.option("--dry-run", is_flag=True, help="List them; archive nothing.")
@yes_option
@click.pass_context
def curator_prune(ctx: click.Context, days: int, dry_run: bool, yes: bool) -> None:
    """Archive every curated skill (not pinned, not archived) idle for --days or more,
    as one run (`memoir revert RUN` brings them back). Asks first, unless -y."""
    handle = open_home(ctx, readonly=dry_run)
    state = handle.state
    now = handle.clock.now()
    prune_builtins = handle.config.curator.prune_builtins
    names = [n for n in candidates(state.skills.skills, prune_builtins=prune_builtins)
             if not state.skills.skills[n].pinned and not state.skills.skills[n].archived
             and _idle_days(state.skills.skills[n], now) >= days]
    if dry_run or not names:
        if is_json():
            echo_json({"run": None, "dry_run": dry_run, "would_archive": names, "days": days})
        elif not names:
            click.echo(f"no curated skill has been idle for {days} days or more")
        else:
            click.echo(f"would archive {len(names)} skill(s) idle {days}+ days: "
                       + ", ".join(names))
        return
    confirm(f"Archive {len(names)} skill(s) idle {days}+ days ({', '.join(names)})?", yes)
    run, events = skill_run(handle, f"curator prune --days {days}", lambda s: [
        p for n in names if n in s.skills.skills and not s.skills.skills[n].archived
        for p in archive_events(s, n, actor="user", reason=f"pruned: idle {days}+ days",
                                prune_builtins=prune_builtins)])
    if is_json():
        echo_json(write_json(run, events, archived=names))
        return
    click.echo(f"archived {len(names)} skill(s) as run {run}: {', '.join(names)}; "
               f"`memoir revert {run}` brings them back")


# Hermes has pin, unpin, archive and restore under `curator`; memoir's live under
# `skills`: the same commands, reachable from both.
for _command in (pin_command, unpin_command, archive_command, restore_command):
    curator.add_command(_command)
