"""Adopting hand edits of MEMORY.md / USER.md as ordinary ``user`` events.

:func:`adoption_events` finds the edited files (through the read-only view of the
projected files a decision is given) and plans their events.

The edit is diffed against the journal's entries so unchanged entries keep their
ids, an entry edited in place becomes a replace, an entry moved elsewhere keeps its id
(removed, then added back at its new place), and the resulting order is exactly the
file's.  A person's file is theirs: an entry the threat scan flags is kept, with the
patterns it matched recorded on its event (``flagged``), and masked in the prompt as
Hermes masks it; a file over the target's character limit is kept too (the agent's
next add then has to make room).

:func:`plan_edit` is the diff itself; the memory tool uses it too, to record how a
file Hermes would re-read differently (an entry holding the delimiter) is normalised.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import msgspec

from memoir.engine.files import FilesView
from memoir.engine.port import Home
from memoir.errors import AdoptionConflict, ValidationError
from memoir.events.memory import EntryAdded, EntryRemoved, EntryReplaced, Target
from memoir.events.types import Event, Payload
from memoir.ids import short_id
from memoir.projections.memory import TARGETS, Entry, dedupe, parse_file, well_formed
from memoir.projections.render.memory import memory_file, render_memory_file
from memoir.projections.state import State
from memoir.threats import prompt_threats

__all__ = ["EditBase", "adoption_events", "edit_base", "flagged_entries", "merge_edit",
           "plan_adoption", "plan_edit"]


def plan_edit(
    target: Target,
    entries: Sequence[Entry],
    texts: Sequence[str],
    new_id: Callable[[], str] = lambda: short_id("e-"),
) -> tuple[list[Payload], list[Entry]]:
    """Events that turn ``entries`` into exactly ``texts``, and the entries that result.

    Applied in order, the events give ``texts`` whatever the ids: removals first (from
    the end, so each recorded position is where the entry stood), then in-place
    replacements, then additions at their final positions, left to right.  An entry
    that only moved is removed and added back under its old id.
    """
    old = list(entries)
    matcher = difflib.SequenceMatcher(a=[e.text for e in old], b=list(texts), autojunk=False)
    # new index -> id of the old entry that becomes it (kept or replaced in place)
    survivor: dict[int, str] = {}
    replaced: list[tuple[Entry, str]] = []
    removed: list[int] = []
    opcodes = matcher.get_opcodes()
    # Texts on either side that the matcher did not line up.  An entry is edited in
    # place only when its old text is not wanted elsewhere and its new text is not
    # freed elsewhere; otherwise it is removed and added back, keeping its id.
    wanted = Counter(texts[j] for op, _i1, _i2, j1, j2 in opcodes if op != "equal"
                     for j in range(j1, j2))
    freed = Counter(old[i].text for op, i1, i2, _j1, _j2 in opcodes if op != "equal"
                    for i in range(i1, i2))
    for op, i1, i2, j1, j2 in opcodes:
        if op == "equal":
            for k in range(i2 - i1):
                survivor[j1 + k] = old[i1 + k].id
            continue
        pairs: list[tuple[int, int]] = []
        if op == "replace":
            olds = [i for i in range(i1, i2) if not wanted[old[i].text]]
            news = [j for j in range(j1, j2) if not freed[texts[j]]]
            pairs = list(zip(olds, news, strict=False))
        for i, j in pairs:
            survivor[j] = old[i].id
            replaced.append((old[i], texts[j]))
        paired = {i for i, _j in pairs}
        removed.extend(i for i in range(i1, i2) if i not in paired)

    events: list[Payload] = []
    # Ids of removed entries, by text, so an entry that moved keeps its id.
    reusable: dict[str, list[str]] = {}
    for i in sorted(removed, reverse=True):
        entry = old[i]
        events.append(EntryRemoved(target=target, entry_id=entry.id, previous=entry.text,
                                   position=i))
        reusable.setdefault(entry.text, []).insert(0, entry.id)
    for entry, text in replaced:
        events.append(EntryReplaced(target=target, entry_id=entry.id, text=text,
                                    previous=entry.text))
    result: list[Entry] = []
    for j, text in enumerate(texts):
        entry_id = survivor.get(j)
        if entry_id is None:
            ids = reusable.get(text)
            entry_id = ids.pop(0) if ids else new_id()
            events.append(EntryAdded(target=target, entry_id=entry_id, text=text, position=j))
        result.append(Entry(entry_id, text))
    return events, result


def merge_edit(base: Sequence[Entry], edited: Sequence[str], current: Sequence[Entry],
               *, rel: str, force: bool = False) -> list[str]:
    """The entries that keep both a hand edit and what was journaled since.

    ``base`` are the entries the file held when memoir last wrote it (what the person
    started from), ``edited`` what the person saved, ``current`` the journal's entries
    now.  The person's changes (base → edited: removals, in-place edits, additions) are
    applied to the current entries, so writes journaled meanwhile (an agent's add, say)
    are kept.  An entry both sides changed, differently, is a conflict
    (:class:`AdoptionConflict`) unless ``force``, which lets the person's version win.
    """
    mine, entries = plan_edit("memory", base, edited, new_id=_fresh_ids())
    removed = {e.entry_id for e in mine if isinstance(e, EntryRemoved)}
    replaced = {e.entry_id: e.text for e in mine if isinstance(e, EntryReplaced)}
    # plan_edit re-adds moved entries under their old id: those are moves, not removals.
    moved = {e.entry_id for e in mine if isinstance(e, EntryAdded)} & removed
    removed -= moved
    now = {e.id: e.text for e in current}
    then = {e.id: e.text for e in base}
    theirs_removed = set(then) - set(now)
    theirs_changed = {i for i in then if i in now and now[i] != then[i]}
    clashes = []
    for entry_id in sorted((removed | set(replaced)) & (theirs_removed | theirs_changed)):
        if entry_id in removed and entry_id in theirs_removed:
            continue  # both removed it
        if replaced.get(entry_id) is not None and replaced[entry_id] == now.get(entry_id):
            continue  # both made the same edit
        clashes.append(then[entry_id])
    if clashes and not force:
        shown = "; ".join(repr(c[:60]) for c in clashes[:3])
        raise AdoptionConflict(
            f"{rel} was edited by hand while memoir changed the same entr"
            f"{'y' if len(clashes) == 1 else 'ies'} ({shown}); edit the file again from "
            "what it holds now, or run `memoir adopt --force` to keep the hand edit",
            clashes=clashes)
    if clashes:
        return list(edited)
    # The person's view, with what the journal did meanwhile laid over it.
    merged: list[tuple[str, str]] = []  # (id, text)
    for entry in entries:
        if entry.id in theirs_removed and entry.id not in replaced:
            continue  # removed by a journaled write since, untouched by the person
        text = entry.text
        if entry.id in theirs_changed and entry.id not in replaced:
            text = now[entry.id]
        merged.append((entry.id, text))
    # Entries journaled since the base, placed after the entry they follow now.
    placed = {i for i, _ in merged}
    for index, entry in enumerate(current):
        if entry.id in then or entry.id in placed:
            continue
        after = next((current[j].id for j in range(index - 1, -1, -1)
                      if current[j].id in placed), None)
        at = 0 if after is None else [i for i, _ in merged].index(after) + 1
        merged.insert(at, (entry.id, entry.text))
        placed.add(entry.id)
    return [text for _, text in merged]


@dataclass(frozen=True)
class EditBase:
    """The version of a memory file a hand edit most likely started from: its entries
    and the seq they are the state of, and the entries journaled since that the edit
    does not show (kept by a merge), each with the seq and actor that wrote it."""

    entries: list[Entry]
    seq: int
    #: The texts of the edited file.
    edited: frozenset[str] = frozenset()
    since: dict[str, tuple[int, str]] = field(default_factory=dict)

    def kept(self, current: Sequence[Entry]) -> list[str]:
        """Why each entry journaled since the base and missing from the edit stays."""
        base = {e.id for e in self.entries}
        shown = self.edited
        out = []
        for entry in current:
            if entry.id in base or entry.text in shown:
                continue
            seq, actor = self.since.get(entry.id, (0, "?"))
            out.append(f"kept {entry.text[:60]!r}: written by {actor} at seq {seq}, after "
                       f"the version the edit started from (seq {self.seq}); remove it "
                       "with `memoir memory remove` if the edit meant to delete it")
        return out


#: How many versions of a file back a hand edit's starting point is looked for.
_VERSIONS_BACK = 256
_MEMORY_EVENTS = ("memory.entry_added", "memory.entry_replaced", "memory.entry_removed")


def edit_base(engine: Home, target: str) -> EditBase | None:
    """The version the hand edit of ``target``'s file most likely started from (None: the
    file holds no hand edit, or memoir has no record of writing it).

    An editor buffer may have been opened before memoir last wrote the file: the person
    opens USER.md, an agent adds "Prefers tea", the person saves the older buffer plus a
    line of their own.  The file alone cannot tell that from a deliberate deletion of
    "Prefers tea", so the reading that loses nothing is taken: when the edit lacks some
    of what memoir last wrote but holds every entry of an earlier version (not an empty
    one, at most 256 versions back) and none journaled after that version, the newest
    such version is the base, and the entries journaled after it stay unless the edit
    changed them.  Otherwise the base is what memoir last wrote.  :meth:`EditBase.kept`
    says which entries stayed, and why."""
    rel = memory_file(target)
    at = engine.files.written_at(rel)
    state = engine.state
    if at is None or at > state.seq:
        return None
    drift = engine.files.drifted(rel, render_memory_file(state, target))
    if drift is None or drift.actual is None:
        return None
    try:
        edited = frozenset(dedupe(parse_file(drift.actual.decode("utf-8"))))
    except UnicodeDecodeError:
        return None
    version = list(engine.view(at).memory.target(target).entries)
    written = EditBase(version, at, edited)
    if {e.text for e in version} <= edited:
        return written  # nothing memoir wrote is missing: an ordinary edit
    since: dict[str, tuple[int, str]] = {}
    for event in engine.events(types=["memory.entry_added"], after=at):
        if getattr(event.data, "target", None) == target:
            since[event.data.entry_id] = (event.seq, event.actor)  # type: ignore[attr-defined]
    seen = 0
    later: set[str] = set()  # texts journaled after the version looked at
    # Reading back is bounded: the last 50,000 records before memoir's write.
    for event in engine.events(types=_MEMORY_EVENTS, after=max(0, at - 50_000), until=at,
                               reverse=True):
        if seen >= _VERSIONS_BACK:
            break
        data = event.data
        if getattr(data, "target", None) != target:
            continue
        seen += 1
        version = _undo(version, event)
        if isinstance(data, EntryAdded | EntryReplaced):
            later.add(data.text)
        if isinstance(data, EntryAdded):
            since[data.entry_id] = (event.seq, event.actor)
        texts = {e.text for e in version}
        # A buffer of this version holds all of it, and nothing journaled after it.
        if texts and texts <= edited and not (later - texts) & edited:
            ids = {e.id for e in version}
            return EditBase(version, event.seq - 1, edited,
                            {i: at for i, at in since.items() if i not in ids})
    return written


def _undo(entries: list[Entry], event: Event) -> list[Entry]:
    """The entries before ``event`` (a memory event of their target)."""
    data = event.data
    out = list(entries)
    if isinstance(data, EntryAdded):
        out = [e for e in out if e.id != data.entry_id]
    elif isinstance(data, EntryReplaced):
        out = [Entry(e.id, data.previous) if e.id == data.entry_id else e for e in out]
    elif isinstance(data, EntryRemoved):
        out.insert(min(data.position, len(out)), Entry(data.entry_id, data.previous))
    return out


def _fresh_ids() -> Callable[[], str]:
    counter = iter(range(1 << 30))
    return lambda: f"new-{next(counter)}"


def plan_adoption(state: State, target: str, texts: Sequence[str], rel: str) -> list[Payload]:
    """Events that turn ``target``'s entries into ``texts`` (as parsed from ``rel``).

    New or changed entries that match a threat pattern are adopted with the patterns
    they matched in ``flagged``.
    """
    if target not in ("memory", "user"):
        raise ValidationError(f"unknown memory target {target!r}; use 'memory' or 'user'")
    del rel
    new = dedupe(texts)
    old = state.memory.target(target).entries
    t: Target = "memory" if target == "memory" else "user"
    events, _entries = plan_edit(t, old, new)
    known = {e.text for e in old}
    flagged: list[Payload] = []
    for event in events:
        # Entries already in the journal passed (or were let in) before; only what the
        # edit brings is scanned, as a write would scan it.
        if isinstance(event, EntryAdded | EntryReplaced) and event.text not in known:
            found = tuple(prompt_threats(event.text))
            if found:
                event = msgspec.structs.replace(event, flagged=found)
        flagged.append(event)
    return flagged


def flagged_entries(state: State, target: str) -> list[tuple[Entry, list[str]]]:
    """The entries of ``target`` the threat scan flags now, with the patterns found
    (adopted hand edits; the prompt shows them masked)."""
    found = []
    for entry in state.memory.target(target).entries:
        ids = prompt_threats(entry.text)
        if ids:
            found.append((entry, ids))
    return found


def adoption_events(state: State, files: FilesView, *,
                    bases: Mapping[str, Sequence[Entry]] | None = None,
                    force: bool = False, targets: Sequence[str] = TARGETS,
                    well_formed_only: bool = False,
                    ) -> tuple[list[Payload], list[str]]:
    """The events that adopt the hand edits of MEMORY.md and USER.md, and the files
    adopted.  A deleted file is not an edit (it is written again from the journal).

    ``bases`` holds, per file, the entries it held when memoir last wrote it (the version
    a hand edit starts from): the edit is merged three ways with the journal
    (:func:`merge_edit`); without one, the file's entries replace the journal's.
    ``well_formed_only`` leaves out a file Hermes's drift guard would refuse (its text
    does not re-read as it is, or one entry is longer than the whole limit).
    """
    payloads: list[Payload] = []
    changed: list[str] = []
    for target in targets:
        rel = memory_file(target)
        drift = files.drifted(rel, render_memory_file(state, target))
        if drift is None or drift.actual is None:
            continue
        try:
            text = drift.actual.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValidationError(f"{rel}: not UTF-8 ({exc}); fix the file first") from None
        if well_formed_only and not well_formed(text, state.memory.limits[target]):
            continue
        edited = dedupe(parse_file(text))
        base = (bases or {}).get(rel)
        if base is not None:
            edited = merge_edit(base, edited, state.memory.target(target).entries,
                                rel=rel, force=force)
        payloads += plan_adoption(state, target, edited, rel)
        changed.append(rel)
    return payloads, changed
