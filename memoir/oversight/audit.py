"""Auditing what was learned: what changed between two points of the journal, and
which event wrote each entry or line.

Both are read from the journal, never from the files: ``diff`` folds the state at
two seqs and compares the memory files and skill files memoir would write for each;
``blame`` follows every write of the entries (memory) or the versions of a skill
file, carrying each line's origin through the edits as ``git blame`` does.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

from memoir.engine.port import Home
from memoir.errors import NotFoundError
from memoir.events.memory import EntryAdded, EntryReplaced
from memoir.events.skills import (
    SkillContentSet,
    SkillCreated,
    SkillFileRemoved,
    SkillFileWritten,
    SkillPatched,
    SkillRestored,
)
from memoir.events.types import Event
from memoir.projections.memory import TARGETS
from memoir.projections.render.memory import memory_file, render_memory_file
from memoir.projections.skills import SKILL_FILE, shown_path, skill_paths
from memoir.projections.state import State
from memoir.skills.history import unified

__all__ = ["Origin", "blame_memory", "blame_skill", "diff_after", "diff_span", "diff_states"]


def _files(state: State) -> dict[str, str]:
    """Every file memoir would project for ``state``: path → text."""
    out: dict[str, str] = {}
    for t in TARGETS:
        data = render_memory_file(state, t)
        if data is not None:
            out[memory_file(t)] = data.decode("utf-8")
    for record in state.skills.skills.values():
        # A file of an external skills folder is named under its configured entry.
        out.update({shown_path(rel, [record.root]): text
                    for rel, text in skill_paths(record).items()})
    return out


def diff_states(before: State, after: State) -> dict[str, str]:
    """Path → unified diff for every projected file that differs (memory files first,
    then skill files by path)."""
    return _diff_files(_files(before), _files(after))


def diff_span(engine: Home, start: int, end: int) -> dict[str, str]:
    """``diff_states(view(start), view(end))`` holding one state, not two: the files
    of the state at ``start`` are rendered, then the same state is folded on to
    ``end`` (a long home's state is tens of megabytes)."""
    return diff_after(engine.view(start), engine.events(after=start, until=end))


def diff_after(state: State, events: Iterable[Event]) -> dict[str, str]:
    """What folding ``events`` into ``state`` (which it changes) does to the projected
    files, as :func:`diff_states` gives it."""
    before = _files(state)
    state.fold(events)
    return _diff_files(before, _files(state))


def _diff_files(a: dict[str, str], b: dict[str, str]) -> dict[str, str]:
    out = {}
    for path in sorted(set(a) | set(b), key=lambda p: (not p.startswith("memories/"), p)):
        text = unified(a.get(path), b.get(path), path)
        if text:
            out[path] = text
    return out


@dataclass(frozen=True)
class Origin:
    """The event that wrote an entry or a line."""

    seq: int
    ts: str
    actor: str
    run: str | None
    session: str | None
    type: str

    @classmethod
    def of(cls, event: Event) -> Origin:
        return cls(event.seq, event.ts, event.actor, event.run, event.session, event.type)


def blame_memory(engine: Home, target: str, seq: int | None = None) -> list[tuple[str, str,
                                                                                   Origin]]:
    """(entry id, text, origin) for each entry of ``target`` as of ``seq`` (default: now),
    in file order: the origin is the event that last set the entry's text."""
    state = engine.view(seq)
    last: dict[str, Origin] = {}
    for event in engine.events(types=["memory.entry_added", "memory.entry_replaced"],
                               until=state.seq):
        data = event.data
        if isinstance(data, EntryAdded | EntryReplaced) and data.target == target:
            last[data.entry_id] = Origin.of(event)
    return [(e.id, e.text, last[e.id]) for e in state.memory.target(target).entries
            if e.id in last]


def _file_text(event: Event, file: str) -> tuple[bool, str | None]:
    """Whether ``event`` sets ``file`` of its skill, and the text it leaves."""
    data = event.data
    if isinstance(data, SkillCreated):
        return True, data.content if file == SKILL_FILE else data.files.get(file)
    if isinstance(data, SkillContentSet) and file == SKILL_FILE:
        return True, data.content
    if isinstance(data, SkillPatched | SkillFileWritten) and data.file == file:
        return True, data.content
    if isinstance(data, SkillFileRemoved) and data.file == file:
        return True, None
    return False, None


def blame_skill(engine: Home, name: str, file: str = SKILL_FILE,
                seq: int | None = None) -> list[tuple[str, Origin]]:
    """(line, origin) for each line of a skill's file as of ``seq`` (default: now): the
    origin is the event that wrote that line, carried through later edits."""
    state = engine.view(seq)
    record = state.skills.skills.get(name)
    if record is None or record.file(file) is None:
        raise NotFoundError(f"skill '{name}' has no file '{file}' at seq {state.seq}"
                            if record is not None else
                            f"no skill named '{name}' at seq {state.seq}")
    names = {name}
    lines: list[tuple[str, Origin]] = []
    for event in engine.events(types=["skill.*"], until=state.seq):
        data = event.data
        if isinstance(data, SkillRestored) and data.as_name == name:
            names.add(data.name)
        if getattr(data, "name", None) not in names:
            continue
        sets, text = _file_text(event, file)
        if not sets:
            continue
        if text is None:
            lines = []
            continue
        new = text.splitlines()
        origin = Origin.of(event)
        matcher = difflib.SequenceMatcher(a=[line for line, _ in lines], b=new,
                                          autojunk=False)
        carried: list[tuple[str, Origin]] = []
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                carried += lines[i1:i2]
            else:
                carried += [(line, origin) for line in new[j1:j2]]
        lines = carried
    return lines
