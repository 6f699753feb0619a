"""The memory projection: entries per target, the fold steps that keep them, and their
renderings in Hermes's formats.

Files: entries joined by ``"\\n§\\n"``, no trailing newline, ``""`` when empty (spec
§1.1).  Prompt blocks: a rule of 46 ``═``, a header with usage, the rule again, the
entries (spec §1.8).  Usage counts code points of the joined text, delimiters included.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import msgspec

from memoir.events.codec import Forgotten
from memoir.events.memory import EntryAdded, EntryRemoved, EntryReplaced, LimitsSet
from memoir.events.types import Event, Payload

if TYPE_CHECKING:
    from memoir.projections.state import State

__all__ = [
    "DEFAULT_LIMITS",
    "DELIMITER",
    "FILE_NAMES",
    "FOLDS",
    "HEADERS",
    "TARGETS",
    "Entry",
    "MemoryState",
    "TargetState",
    "dedupe",
    "file_text",
    "fold_past",
    "mark_forgotten",
    "parse_file",
    "render_block",
    "reread",
    "round_trips",
    "usage_numbers",
    "usage_text",
    "well_formed",
]

DELIMITER = "\n§\n"
TARGETS = ("memory", "user")
DEFAULT_LIMITS = {"memory": 2200, "user": 1375}
FILE_NAMES = {"memory": "MEMORY.md", "user": "USER.md"}
HEADERS = {"memory": "MEMORY (your personal notes)", "user": "USER PROFILE (who the user is)"}
RULE = "═" * 46


class Entry(msgspec.Struct, frozen=True, array_like=True):
    """One memory entry: a stable id and its text."""

    id: str
    text: str


class TargetState(msgspec.Struct):
    """The entries of one target, in order.  ``written`` is False until the first write,
    because Hermes creates a file only when it first saves that target."""

    entries: list[Entry] = msgspec.field(default_factory=list)
    written: bool = False

    def texts(self) -> list[str]:
        return [e.text for e in self.entries]

    def index_of(self, entry_id: str) -> int:
        for i, entry in enumerate(self.entries):
            if entry.id == entry_id:
                return i
        return -1


class MemoryState(msgspec.Struct):
    memory: TargetState = msgspec.field(default_factory=TargetState)
    user: TargetState = msgspec.field(default_factory=TargetState)
    limits: dict[str, int] = msgspec.field(default_factory=lambda: dict(DEFAULT_LIMITS))

    def target(self, name: str) -> TargetState:
        return self.memory if name == "memory" else self.user

    def copy(self) -> MemoryState:
        return MemoryState(
            memory=TargetState(list(self.memory.entries), self.memory.written),
            user=TargetState(list(self.user.entries), self.user.written),
            limits=dict(self.limits),
        )


def dedupe(texts: Sequence[str]) -> list[str]:
    """Exact duplicates removed, first occurrence kept, order kept (Hermes's reload rule)."""
    seen: set[str] = set()
    out = []
    for text in texts:
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def file_text(texts: Sequence[str]) -> str:
    """The bytes-to-be of a memory file: entries joined by the delimiter, no trailing newline."""
    return DELIMITER.join(texts)


def _universal_newlines(raw: str) -> str:
    # Hermes reads memory files in text mode, so "\r\n" and a lone "\r" arrive as "\n";
    # an entry holding "\r§\r" therefore reads back as two entries.
    if "\r" not in raw:
        return raw
    return raw.replace("\r\n", "\n").replace("\r", "\n")


def parse_file(raw: str) -> list[str]:
    """Hermes's read rule: newlines as text mode reads them, split on the full delimiter,
    strip each piece, drop empty pieces."""
    raw = _universal_newlines(raw)
    if not raw.strip():
        return []
    return [piece.strip() for piece in raw.split(DELIMITER) if piece.strip()]


def reread(texts: Sequence[str]) -> list[str]:
    """The entries Hermes holds after re-reading a file that holds ``texts``.

    Usually ``texts`` deduped.  It differs when an entry holds the delimiter (one entry
    reads back as several), a carriage return, or blanks next to an embedded delimiter.
    """
    if not texts:
        return []
    return dedupe(parse_file(file_text(texts)))


def round_trips(texts: Sequence[str], limit: int) -> bool:
    """Whether a file holding ``texts`` passes Hermes's drift guard (spec §1.7)."""
    return well_formed(file_text(texts), limit)


def well_formed(raw: str, limit: int) -> bool:
    """Whether a memory file's text passes Hermes's drift guard (spec §1.7).

    The guard refuses replace, remove and batch when re-reading and re-joining the file
    does not give its stripped text back, or when one entry is longer than the whole
    limit (the signature of text appended outside the tool).  A hand edit that passes
    is well formed: memoir adopts it before an agent's write.
    """
    raw = _universal_newlines(raw)
    if not raw.strip():
        return True
    parsed = [piece.strip() for piece in raw.split(DELIMITER) if piece.strip()]
    if raw.strip() != DELIMITER.join(parsed):
        return False
    return max(len(p) for p in parsed) <= limit


def usage_numbers(texts: Sequence[str], limit: int) -> tuple[int, int]:
    """(current chars, percent) — percent is floor(current/limit*100) capped at 100."""
    current = len(DELIMITER.join(texts)) if texts else 0
    pct = min(100, int(current / limit * 100)) if limit > 0 else 0
    return current, pct


def usage_text(texts: Sequence[str], limit: int) -> str:
    """``"<pct>% — <current:,>/<limit:,> chars"``, as in Hermes's tool results."""
    current, pct = usage_numbers(texts, limit)
    return f"{pct}% — {current:,}/{limit:,} chars"


def render_block(target: str, texts: Sequence[str], limit: int) -> str | None:
    """The frozen system-prompt block for ``target``, or None when it has no entries.

    Hermes renders the snapshot from the file as it reads it back (:func:`reread`), and
    entries matching a threat pattern are replaced by a ``[BLOCKED: …]`` line in the
    prompt only; usage is counted on those sanitized entries.  An entry that could pass
    for part of the block's frame is shown defused (:func:`~memoir.threats.quoting.
    quoted_entry`); every other entry is shown byte for byte.
    """
    from memoir.threats import sanitize_for_prompt  # the scanner loads on first use
    from memoir.threats.quoting import quoted_entry

    saved = reread(texts)
    entries = sanitize_for_prompt(saved, FILE_NAMES[target])
    if not entries:
        return None
    header = f"{HEADERS[target]} [{usage_text(entries, limit)}]"
    # A saved entry is data: shown as is, or defused where it reads as part of the
    # block's layout or another frame (a mask is memoir's own line, kept).  Usage is
    # Hermes's figure, counted before.
    shown = [quoted_entry(e) if e == s else e for s, e in zip(saved, entries, strict=True)]
    return "\n".join([RULE, header, RULE, DELIMITER.join(shown)])


# -- fold steps ----------------------------------------------------------------------------


def _entry_added(memory: MemoryState, event: Event) -> None:
    data = event.data
    assert isinstance(data, EntryAdded)
    target = memory.target(data.target)
    entry = Entry(data.entry_id, data.text)
    if data.position is None:
        target.entries.append(entry)
    else:
        target.entries.insert(data.position, entry)
    target.written = True


def _entry_replaced(memory: MemoryState, event: Event) -> None:
    data = event.data
    assert isinstance(data, EntryReplaced)
    target = memory.target(data.target)
    i = target.index_of(data.entry_id)
    if i >= 0:
        target.entries[i] = Entry(data.entry_id, data.text)
    target.written = True


def _entry_removed(memory: MemoryState, event: Event) -> None:
    data = event.data
    assert isinstance(data, EntryRemoved)
    target = memory.target(data.target)
    i = target.index_of(data.entry_id)
    if i >= 0:
        del target.entries[i]
    target.written = True


def _limits_set(memory: MemoryState, event: Event) -> None:
    data = event.data
    assert isinstance(data, LimitsSet)
    memory.limits = {"memory": data.memory, "user": data.user}


#: What a past view shows in place of a forgotten entry (``memoir forget``).
FORGOTTEN_TEXT = "[forgotten]"
#: seq -> (target, entry id, "added" | "replaced") of forgotten memory records: what a
#: past view needs to show a mark where an entry was (the live fold has none, so a
#: forgotten entry is simply absent from the current memory).
Marks = Mapping[int, tuple[str, str, str]]


def mark_forgotten(memory: MemoryState, event: Event, marks: Marks) -> None:
    """Leave ``[forgotten]`` where the forgotten memory record ``event`` (its payload a
    tombstone) added or replaced an entry, as ``marks`` says; the fold step of a past
    view (:func:`fold_past`)."""
    found = marks.get(event.seq) if isinstance(event.data, Forgotten) else None
    if found is None:
        return
    target_name, entry_id, kind = found
    target = memory.target(target_name)
    if kind == "added":
        target.entries.append(Entry(entry_id, FORGOTTEN_TEXT))
    else:
        i = target.index_of(entry_id)
        if i >= 0:
            target.entries[i] = Entry(entry_id, FORGOTTEN_TEXT)
    target.written = True


def fold_past(state: State, events: Iterable[Event], marks: Marks) -> State:
    """Fold ``events`` into ``state`` as a past view does: as the live fold, plus a
    mark where a forgotten record changed the memory (``marks``, given explicitly)."""
    for event in events:
        state.apply(event)
        if marks:
            mark_forgotten(state.memory, event, marks)
    return state


#: payload type → fold step on :class:`MemoryState` (composed by :mod:`memoir.projections.state`).
FOLDS: dict[type[Payload], Callable[[MemoryState, Event], None]] = {
    EntryAdded: _entry_added,
    EntryReplaced: _entry_replaced,
    EntryRemoved: _entry_removed,
    LimitsSet: _limits_set,
}
