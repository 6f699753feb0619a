"""``memoir forget``: remove content for good (see :mod:`memoir.oversight.forget`)."""

from __future__ import annotations

import click

from memoir.commands.base import (
    Exit,
    StderrProgress,
    UserError,
    confirm,
    echo_json,
    home_option,
    is_json,
    open_home,
    yes_option,
)
from memoir.oversight.forget import ForgetPlan, finish_forgets, forget, plan_forget

__all__ = ["forget_command"]


def _selector(entry: str | None, text: str | None, skill: str | None, session: str | None,
              run: str | None) -> tuple[str, str]:
    given = [(name, value) for name, value in (("entry", entry), ("text", text),
                                                ("skill", skill), ("session", session),
                                                ("run", run)) if value is not None]
    if len(given) != 1:
        raise UserError("name what to forget with one of --entry ID, --text TEXT, --skill "
                        "NAME, --session ID or --run RUN", exit=Exit.USAGE)
    return given[0]


def _listing(plan: ForgetPlan) -> list[str]:
    lines = [f"  seq {seq}: {kind}" for seq, kind in sorted(plan.records.items())[:20]]
    if len(plan.records) > 20:
        lines.append(f"  ... and {len(plan.records) - 20} more record(s)")
    if plan.bodies:
        lines.append(f"  {len(plan.bodies)} recorded message(s) of conversations")
    for seq, why in sorted(plan.refused.items())[:10]:
        lines.append(f"  seq {seq} holds it but is kept: {why}")
    return lines


@click.command("forget")
@home_option
@click.option("--entry", metavar="ID", help="A memory entry, through all its versions (and "
              "every text those versions held, wherever it is).")
@click.option("--target", type=click.Choice(["memory", "user"]), default=None,
              help="With --entry: the file the entry is in.")
@click.option("--text", metavar="TEXT", help="Every record and recorded message whose text "
              "holds TEXT (a leaked key, say).")
@click.option("--skill", metavar="NAME", help="A skill: every version of its files (and "
              "the texts they held, wherever they are).")
@click.option("--file", "file_path", metavar="PATH", help="With --skill: one of its files "
              "only (SKILL.md, references/x.md).")
@click.option("--session", metavar="ID", help="A conversation: its recorded messages, "
              "turns, summary, recalled context and reviews.")
@click.option("--run", metavar="RUN", help="Everything a run wrote.")
@click.option("--reason", default="", help="Why, kept with the forget (never the content).")
@click.option("--finish", is_flag=True, help="Finish forgets that were interrupted after "
              "they were journaled, and nothing else.")
@yes_option
@click.pass_context
def forget_command(ctx: click.Context, entry: str | None, target: str | None,
                   text: str | None, skill: str | None, file_path: str | None,
                   session: str | None, run: str | None, reason: str, finish: bool,
                   yes: bool) -> None:
    """Remove content for good: its records keep their place and hash in the journal
    (a tombstone holds the payload's digest), so `memoir verify` still passes; the
    recorded messages that held it, the caches and every other file under the home
    lose it too. The forget is journaled (who, when, --reason, which records; never
    the content) and cannot be reverted. Backups made before it still hold the content:
    they are outside the home."""
    handle = open_home(ctx)
    if finish:
        done = finish_forgets(handle)
        if is_json():
            echo_json({"finished": done})
        else:
            click.echo(f"finished {done} interrupted forget(s)" if done else
                       "no forget was left unfinished")
        return
    if file_path is not None and skill is None:
        raise UserError("--file goes with --skill", exit=Exit.USAGE)
    selector, value = _selector(entry, text, skill, session, run)
    progress = StderrProgress()
    try:
        plan = plan_forget(handle, selector, value, target=target, path=file_path,
                           progress=progress)
    finally:
        progress.finish()
    if plan.empty:
        kept = "; ".join(f"seq {s}: {why}" for s, why in sorted(plan.refused.items())[:5])
        raise UserError(f"nothing to forget matches the {selector} given"
                        + (f" ({kept})" if kept else ""), exit=Exit.NOT_FOUND)
    if not is_json():
        click.echo(f"memoir forget will remove, for good, from {handle.home}:", err=True)
        for line in _listing(plan):
            click.echo(line, err=True)
        click.echo("Backups made before now still hold it: they are outside the home.",
                   err=True)
    confirm("Forget it?", yes)
    try:
        run_id, record = forget(handle, plan, by="user", reason=reason)
    except KeyboardInterrupt:
        raise UserError("interrupted before the forget was journaled: nothing was "
                        "forgotten", exit=Exit.ERROR) from None
    state = handle.state
    if is_json():
        echo_json({"run": run_id, "selector": selector,
                   "records": [{"seq": s, "type": plan.records[s]} for s in record.seqs],
                   "bodies": len(record.bodies), "files_scrubbed": record.files,
                   "kept": [{"seq": s, "why": w} for s, w in sorted(plan.refused.items())],
                   "head": state.seq, "head_hash": state.hash})
        return
    click.echo(f"forgot {len(record.seqs)} record(s) and {len(record.bodies)} recorded "
               f"message(s) as run {run_id}; {record.files} other file(s) scrubbed; head "
               f"{state.seq} ({state.hash}); `memoir verify` checks the chain")
