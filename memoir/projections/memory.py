"""The memory projection: entries per target, and their renderings in Hermes's formats.

Files: entries joined by ``"\\n§\\n"``, no trailing newline, ``""`` when empty (spec
§1.1).  Prompt blocks: a rule of 46 ``═``, a header with usage, the rule again, the
entries (spec §1.8).  Usage counts code points of the joined text, delimiters included.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from memoir.threats import sanitize_for_prompt

__all__ = [
    "DEFAULT_LIMITS",
    "DELIMITER",
    "FILE_NAMES",
    "HEADERS",
    "Entry",
    "MemoryState",
    "TargetState",
    "dedupe",
    "file_text",
    "parse_file",
    "render_block",
    "usage_numbers",
    "usage_text",
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
    return DELIMITER.join(texts)


def parse_file(raw: str) -> list[str]:
    """Hermes's read rule: split on the full delimiter, strip, drop empty pieces."""
    if not raw.strip():
        return []
    return [piece.strip() for piece in raw.split(DELIMITER) if piece.strip()]


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

    Entries are deduped (Hermes snapshots a freshly loaded, deduped file) and entries
    matching a threat pattern are replaced by a ``[BLOCKED: …]`` line in the prompt only.
    """
    entries = sanitize_for_prompt(dedupe(texts), FILE_NAMES[target])
    if not entries:
        return None
    header = f"{HEADERS[target]} [{usage_text(entries, limit)}]"
    return "\n".join([RULE, header, RULE, DELIMITER.join(entries)])
