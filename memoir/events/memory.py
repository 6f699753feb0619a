"""Memory events: what happened to the entries of MEMORY.md (``memory``) and USER.md (``user``).

Every entry has a stable id minted when it is added, so replay never depends on
substring matching or positions; replace and remove carry the text they replaced.
"""

from __future__ import annotations

from typing import Literal

from memoir.events.types import Payload, event_type, require
from memoir.names import MAX_MEMORY_CHARS, check_text_size

__all__ = [
    "PAYLOADS",
    "EntryAdded",
    "EntryRemoved",
    "EntryReplaced",
    "LimitsSet",
    "Target",
    "WriteRejected",
]

Target = Literal["memory", "user"]


@event_type("memory.entry_added", version=2)
class EntryAdded(Payload, frozen=True, kw_only=True):
    """A new entry: appended, or inserted at ``position`` (adoption of a hand edit)."""

    target: Target
    entry_id: str
    text: str
    position: int | None = None
    #: Threat patterns the text matched when it was journaled: only an adopted hand
    #: edit can carry any (an agent's write is refused instead).  The prompt masks it.
    flagged: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        require("text", check_text_size(self.text))

    def entities(self) -> tuple[str, ...]:
        return (f"memory:{self.target}", f"memory:{self.target}:{self.entry_id}")


@event_type("memory.entry_replaced")
class EntryReplaced(Payload, frozen=True, kw_only=True):
    """An entry's text replaced in place; ``previous`` is the text it had."""

    target: Target
    entry_id: str
    text: str
    previous: str
    #: As for ``memory.entry_added``.
    flagged: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        require("text", check_text_size(self.text))

    def entities(self) -> tuple[str, ...]:
        return (f"memory:{self.target}", f"memory:{self.target}:{self.entry_id}")


@event_type("memory.entry_removed")
class EntryRemoved(Payload, frozen=True, kw_only=True):
    """An entry removed; ``previous`` is its text, ``position`` where it stood.

    ``reason`` is ``None`` for an ordinary removal and ``"duplicate"`` when a write
    collapsed an identical duplicate, as Hermes does whenever it rewrites the file.
    """

    target: Target
    entry_id: str
    previous: str
    position: int
    reason: str | None = None

    def entities(self) -> tuple[str, ...]:
        return (f"memory:{self.target}", f"memory:{self.target}:{self.entry_id}")


@event_type("memory.write_rejected")
class WriteRejected(Payload, frozen=True, kw_only=True):
    """A memory write refused by a rule; nothing changed.  Kept for the audit trail.

    The refused text itself is not stored: a redacted preview (each word cut to its
    first three characters, at most 60 characters; older records hold up to 200
    characters verbatim), its length and its SHA-256 are enough to recognise it without
    keeping hostile text — or a secret someone tried to save — around.
    """

    target: Target
    action: str
    reason: str
    pattern_ids: list[str]
    preview: str
    length: int
    sha256: str


@event_type("memory.limits_set")
class LimitsSet(Payload, frozen=True, kw_only=True):
    """The character limits in force from this event on.

    Limits are journaled, not read from config at render time, so a prompt rendered
    for an old seq uses the limits that were in force then.
    """

    memory: int
    user: int

    def __post_init__(self) -> None:
        for field, value in (("memory", self.memory), ("user", self.user)):
            if not 1 <= value <= MAX_MEMORY_CHARS:
                require(field, f"limit {value} is outside 1..{MAX_MEMORY_CHARS:,}")


#: Every payload type of this module, for the catalog (:mod:`memoir.events.catalog`).
PAYLOADS: tuple[type[Payload], ...] = (
    EntryAdded,
    EntryReplaced,
    EntryRemoved,
    WriteRejected,
    LimitsSet,
)
