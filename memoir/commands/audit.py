"""``memoir diff`` and ``memoir blame``: what changed between two points of the
journal, and which event wrote each memory entry or skill line."""

from __future__ import annotations

import click

from memoir.api import Memoir
from memoir.clock import format_ts, parse_moment
from memoir.commands.base import (
    complete_runs,
    complete_skills,
    echo_json,
    home_option,
    is_json,
    open_home,
    resolve_run,
    styled,
    table,
)
from memoir.errors import NotFoundError
from memoir.lookup import did_you_mean
from memoir.oversight.audit import Origin, blame_memory, blame_skill, diff_states
from memoir.projections.memory import TARGETS
from memoir.projections.skills import SKILL_FILE, shown_path
from memoir.skills.history import unified

__all__ = ["blame", "diff"]


def _point(handle: Memoir, text: str, name: str) -> tuple[int, int | None]:
    """A point of the journal as a person gives it: a seq, a date or time ago (the last
    seq at or before it), or a run (before and after it).  Returns (seq, run's start - 1
    or None)."""
    if text.strip().isdigit():
        seq = int(text)
        if seq > handle.head:
            raise NotFoundError(f"seq {seq} is not in the journal (head is {handle.head})")
        return seq, None
    state = handle.state
    if text in state.runs or any(r.startswith(text) for r in state.runs) or \
            text.startswith("HEAD"):
        info = state.runs[resolve_run(handle, text)]
        return info.last_seq, info.first_seq - 1
    try:
        moment = format_ts(parse_moment(text, handle.clock.now()))
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is not a seq, a run or a date{did_you_mean(text, state.runs)}",
            param_hint=name) from None
    for event in handle.events(reverse=True):
        if event.ts[:26] <= moment[:26]:
            return event.seq, None
    return 0, None


def _origin_row(origin: Origin) -> dict[str, object]:
    return {"seq": origin.seq, "ts": origin.ts, "actor": origin.actor, "run": origin.run,
            "session": origin.session, "type": origin.type}


def _drift_diffs(handle: Memoir) -> dict[str, str]:
    """Each projected file that differs from the journal's rendering (edited or deleted
    by hand), as a unified diff from the journal's version (a/) to the disk's (b/)."""
    def text(data: bytes | None) -> str | None:
        return None if data is None else data.decode("utf-8", "replace")

    # A file of an external skills folder is named under its entry, as diff_states does.
    roots = [r.root for r in handle.state.skills.skills.values()]
    out = {}
    for d in handle.drift():
        shown = shown_path(d.path, roots)
        out[shown] = unified(text(d.expected), text(d.actual), shown)
    wanted = handle.projected_files()
    for path in handle.status()["missing"]:
        shown = shown_path(path, roots)
        out.setdefault(shown, unified(text(wanted.get(path)), None, shown))
    return {path: diff for path, diff in sorted(out.items()) if diff}


@click.command()
@home_option
@click.argument("a", required=False, shell_complete=complete_runs)
@click.argument("b", required=False, shell_complete=complete_runs)
@click.option("--stat", is_flag=True, help="Only the files and their +/- line counts.")
@click.pass_context
def diff(ctx: click.Context, a: str | None, b: str | None, stat: bool) -> None:
    """What changed in MEMORY.md, USER.md and the skills between two points.

    A and B are seqs, dates ('2026-11-01', '2 days ago') or runs (a unique prefix will
    do; HEAD is the newest run, HEAD~1 the one before). With only A: a run shows what
    that run changed; a seq or date, what changed since then. With neither, like `git
    diff`: the hand edits not yet adopted, from the journal's version to the disk's.
    Printed as unified diffs of the files memoir projects.
    """
    handle = open_home(ctx, readonly=True)
    if a is None:
        diffs = _drift_diffs(handle)
        before = after = handle.head
        if not diffs and not is_json():
            click.echo("no hand edits: every projected file matches the journal")
            return
    else:
        end_a, start_a = _point(handle, a, "A")
        if b is None:
            before, after = (start_a, end_a) if start_a is not None else \
                (end_a, handle.head)
        else:
            before, after = end_a, _point(handle, b, "B")[0]
        diffs = diff_states(handle.view(before), handle.view(after))
    if is_json():
        echo_json({"from": before, "to": after, "files": [
            {"path": path, "added": _count(text, "+"), "removed": _count(text, "-"),
             "diff": text} for path, text in diffs.items()]})
        return
    if not diffs:
        click.echo(f"no changes between seq {before} and seq {after}")
        return
    for path, text in diffs.items():
        if stat:
            click.echo(f"{path}  +{_count(text, '+')} -{_count(text, '-')}")
            continue
        for line in text.splitlines():
            colour = ("green" if line.startswith("+") and not line.startswith("+++") else
                      "red" if line.startswith("-") and not line.startswith("---") else
                      "cyan" if line.startswith("@@") else None)
            click.echo(styled(line, fg=colour) if colour else line)


def _count(text: str, sign: str) -> int:
    return sum(1 for line in text.splitlines()
               if line.startswith(sign) and not line.startswith(sign * 3))


@click.command()
@home_option
@click.argument("what", type=click.Choice(["memory", "user", "skill"]))
@click.argument("name", required=False, shell_complete=complete_skills)
@click.option("--file", "file_path", default=SKILL_FILE, show_default=True,
              help="For a skill: which of its files.")
@click.option("--at", "at_seq", type=click.IntRange(min=0), default=None,
              help="As of this seq.")
@click.pass_context
def blame(ctx: click.Context, what: str, name: str | None, file_path: str,
          at_seq: int | None) -> None:
    """Which event wrote each entry of MEMORY.md / USER.md, or each line of a skill's
    file: seq, time, actor, run and session.

    `memoir blame memory`, `memoir blame user`, `memoir blame skill NAME [--file F]`.
    """
    handle = open_home(ctx, readonly=True)
    if what == "skill":
        if not name:
            raise click.UsageError("`memoir blame skill` needs the skill's NAME")
        skills = handle.view(at_seq).skills.skills
        if name not in skills:
            raise NotFoundError(f"no skill named '{name}'{did_you_mean(name, skills)}")
        lines = blame_skill(handle, name, file_path, at_seq)
        if is_json():
            echo_json([{"line": i, "text": text, **_origin_row(o)}
                       for i, (text, o) in enumerate(lines, 1)])
            return
        for i, (text, o) in enumerate(lines, 1):
            click.echo(f"{o.seq:>6} {o.ts[:19]} {o.actor:<14} {o.run or '-':<18} "
                       f"{i:>4}) {text}")
        return
    if name:
        raise click.UsageError(f"`memoir blame {what}` takes no NAME")
    assert what in TARGETS
    entries = blame_memory(handle, what, at_seq)
    if is_json():
        echo_json([{"entry_id": entry_id, "text": text, **_origin_row(o)}
                   for entry_id, text, o in entries])
        return
    table(["SEQ", "TIME", "ACTOR", "RUN", "SESSION", "ENTRY", "TEXT"],
          [[o.seq, o.ts[:19], o.actor, o.run, o.session, entry_id, text]
           for entry_id, text, o in entries], right=[0])
