"""``memoir memory …``: read and edit MEMORY.md / USER.md as a person (actor ``user``).

Every write is one run (``run.started`` of kind ``cli`` first), so ``memoir revert RUN``
undoes it.  An entry is named by its id (``memoir memory list`` shows them; a unique
prefix will do) or by a part of its text.  Agents get Hermes's exact tool results;
people get the same refusals in sentences for people.
"""

from __future__ import annotations

import re
import sys
from typing import Any, cast

import click

from memoir.api import Memoir
from memoir.commands.base import (
    Exit,
    UserError,
    confirm,
    echo_json,
    home_option,
    is_json,
    open_home,
    table,
    write_json,
    yes_option,
)
from memoir.engine.commit import Caller, Decision
from memoir.events.memory import EntryRemoved, Target
from memoir.events.types import Event, Payload
from memoir.ids import short_id
from memoir.lookup import resolve
from memoir.memory.commands import memory_call
from memoir.projections.memory import TARGETS, Entry
from memoir.projections.render.memory import memory_file
from memoir.projections.state import State

__all__ = ["memory"]


@click.group()
@home_option
def memory() -> None:
    """Read and edit MEMORY.md / USER.md as a person (actor `user`)."""


def _file(target: str) -> str:
    return memory_file(target).rsplit("/", 1)[-1]


def run_events(handle: Memoir, run: str) -> list[Event]:
    """The events of ``run`` (just committed: read by seq, not by scanning)."""
    info = handle.state.runs.get(run)
    if info is None:
        return []
    return list(handle.events(after=info.first_seq - 1, until=info.last_seq))


def _for_people(result: dict[str, Any], target: str, text: str) -> UserError:
    """A refused memory call, said for a person instead of for the model."""
    error = str(result.get("error", ""))
    name = _file(target)
    if error.startswith("Memory at") or error.startswith("Replacement would put"):
        numbers = re.search(r"([\d,]+)/([\d,]+) chars", error)
        used = f" ({numbers.group(1)} of {numbers.group(2)} characters used)" if numbers else ""
        return UserError(f"{name} has no room for this{used}: the text is {len(text):,} "
                         f"characters. Shorten it, or remove or shorten other entries first "
                         f"(`memoir memory list --target {target}` shows them).",
                         exit=Exit.REFUSED)
    threat = re.search(r"threat pattern '([^']+)'|invisible unicode character (U\+[0-9A-F]+)",
                       error)
    if error.startswith("Blocked") and threat:
        what = (f"matches the threat pattern '{threat.group(1)}'" if threat.group(1) else
                f"holds the invisible character {threat.group(2)}")
        return UserError(f"not saved: the text {what}. Memory goes into every prompt the "
                         "agent sees, so text that reads like an instruction to it, or that "
                         "hides characters, is refused; `memoir log --type "
                         "memory.write_rejected` lists refusals.", exit=Exit.REFUSED)
    if error.startswith("Refusing to write"):
        return UserError(f"{name} was edited by hand and memoir will not write over it: "
                         "`memoir adopt` keeps the edit (then try again), `memoir rebuild "
                         "--force` discards it (keeping a .bak copy).", exit=Exit.REFUSED)
    return UserError(error or "the write was refused", exit=Exit.REFUSED)


def _pick(handle: Memoir, target: str, what: str) -> Entry:
    """The entry ``what`` names: an entry id (or a unique prefix of one), else the one
    entry whose text contains it."""
    entries = handle.state.memory.target(target).entries
    ids = [e.id for e in entries]
    if what.startswith("e-") and any(i.startswith(what) for i in ids):
        wanted = resolve(what, ids, "entry")
        return next(e for e in entries if e.id == wanted)
    hits = [e for e in entries if what in e.text]
    if not hits:
        raise UserError(f"no entry in {_file(target)} has the id or contains the text "
                        f"{what!r}; `memoir memory list --target {target}` shows the entries "
                        "and their ids", exit=Exit.NOT_FOUND)
    if len({e.text for e in hits}) > 1:
        raise UserError(f"{len(hits)} entries in {_file(target)} contain {what!r}; name one "
                        "by its id", exit=Exit.USAGE,
                        details={"match": [f"{e.id}  {_preview(e.text)}" for e in hits]})
    return hits[0]


def _preview(text: str) -> str:
    line = text.replace("\n", " ⏎ ")
    return line if len(line) <= 70 else line[:67] + "..."


def _memory_write(ctx: click.Context, args: dict[str, Any], text: str) -> None:
    handle = open_home(ctx)
    run = short_id("cli-")
    result, _ = memory_call(handle, args, by=Caller(actor="user", run=run, run_kind="cli"))
    target = str(args["target"])
    if not result.get("success"):
        raise _for_people(result, target, text)
    events = run_events(handle, run)
    if is_json():
        entries = handle.state.memory.target(target).entries
        chars = len("\n§\n".join(e.text for e in entries))
        echo_json(write_json(run, events, target=target, message=result.get("message"),
                             chars=chars, limit=handle.state.memory.limits[target]))
        return
    message = result["message"]
    if message.startswith("Entry already exists"):
        message = f"{_file(target)} already has this entry; nothing changed."
    click.echo(f"{message} {target}: {result['usage']}" + (f" (run {run})" if events else ""))


target_option = click.option(
    "--target", "-t", type=click.Choice(TARGETS), default="memory", show_default=True,
    help="memory (MEMORY.md) or user (USER.md).",
)


@memory.command("add")
@home_option
@target_option
@click.argument("text")
@click.pass_context
def memory_add(ctx: click.Context, target: str, text: str) -> None:
    """Add an entry (TEXT, or - to read it from standard input)."""
    text = _text_argument(text)
    _memory_write(ctx, {"action": "add", "target": target, "content": text}, text)


def _text_argument(text: str) -> str:
    """TEXT as given, or standard input for ``-``; empty text is a usage error (exit 2),
    not a refusal."""
    if text == "-":
        text = sys.stdin.read().strip()
        if not text:
            raise click.BadParameter("standard input held no text", param_hint="TEXT")
    if not text.strip():
        raise click.BadParameter("the entry text is empty", param_hint="TEXT")
    return text


@memory.command("replace")
@home_option
@target_option
@click.argument("entry")
@click.argument("text")
@click.pass_context
def memory_replace(ctx: click.Context, target: str, entry: str, text: str) -> None:
    """Replace ENTRY (its id, a prefix of it, or a part of its text) with TEXT (- reads
    it from standard input)."""
    text = _text_argument(text)
    old = _pick(open_home(ctx, readonly=True), target, entry)
    _memory_write(ctx, {"action": "replace", "target": target, "old_text": old.text,
                        "entry_id": old.id, "content": text}, text)


@memory.command("remove")
@home_option
@target_option
@click.argument("entry")
@click.pass_context
def memory_remove(ctx: click.Context, target: str, entry: str) -> None:
    """Remove ENTRY (its id, a prefix of it, or a part of its text)."""
    old = _pick(open_home(ctx, readonly=True), target, entry)
    _memory_write(ctx, {"action": "remove", "target": target, "old_text": old.text,
                        "entry_id": old.id}, old.text)


@memory.command("reset")
@home_option
@click.option("--target", "-t", type=click.Choice([*TARGETS, "all"]), default="all",
              show_default=True, help="Which store to empty.")
@yes_option
@click.pass_context
def memory_reset(ctx: click.Context, target: str, yes: bool) -> None:
    """Remove every entry of MEMORY.md, USER.md or both, as one run (Hermes's
    `memory reset`; `memoir revert RUN` brings them back)."""
    handle = open_home(ctx)
    targets = cast(list[Target], list(TARGETS) if target == "all" else [target])
    for t in targets:
        if handle.target_drift(t) is not None:
            raise UserError(f"{_file(t)} was edited by hand: `memoir adopt` keeps the edit "
                            "first, `memoir rebuild --force` discards it", exit=Exit.REFUSED)
    count = sum(len(handle.state.memory.target(t).entries) for t in targets)
    names = " and ".join(_file(t) for t in targets)
    if count:
        confirm(f"Remove all {count} entries of {names}?", yes)
    run = short_id("cli-")

    def decide(state: State) -> Decision[None]:
        payloads: list[Payload] = []
        for t in targets:
            entries = state.memory.target(t).entries
            payloads += [EntryRemoved(target=t, entry_id=e.id, previous=e.text, position=i,
                                      reason="memory reset")
                         for i, e in reversed(list(enumerate(entries)))]
        return Decision(events=payloads)

    events, _ = handle.commit(decide, by=Caller(actor="user", run=run, run_kind="cli",
                                                run_summary=f"memory reset {target}"))
    if is_json():
        echo_json(write_json(run, events, removed=len(events) - 1 if events else 0))
        return
    if not events:
        click.echo(f"{names}: already empty; nothing changed")
        return
    click.echo(f"removed {len(events) - 1} entries of {names} (run {run}); "
               f"`memoir revert {run}` brings them back")


@memory.command("list")
@home_option
@click.option("--target", "-t", type=click.Choice(TARGETS), default=None,
              help="Only this target (default: both).")
@click.option("--at", "at_seq", type=click.IntRange(min=0), default=None, help="As of this seq.")
@click.option("--full", is_flag=True,
              help="Whole entries (the default when the output is not a terminal).")
@click.pass_context
def memory_list(ctx: click.Context, target: str | None, at_seq: int | None,
                full: bool) -> None:
    """List entries with their ids."""
    handle = open_home(ctx, readonly=True)
    state = handle.view(at_seq)
    targets = [target] if target else list(TARGETS)
    if is_json():
        echo_json({t: [{"id": e.id, "text": e.text} for e in state.memory.target(t).entries]
                   for t in targets})
        return
    whole = full or not sys.stdout.isatty()
    for t in targets:
        entries = state.memory.target(t).entries
        click.echo(f"[{t}] {len(entries)} {'entry' if len(entries) == 1 else 'entries'}")
        if not whole:
            table(["  ID", "TEXT"], [[f"  {e.id}", _preview(e.text)] for e in entries])
            continue
        for e in entries:  # a line per line of the entry, its id on the first
            first, *rest = e.text.split("\n")
            click.echo(f"  {e.id}  {first}")
            for line in rest:
                click.echo(f"  {' ' * len(e.id)}  {line}")
