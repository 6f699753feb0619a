"""Event records: the envelope every journal line carries, and the payload registry.

A journal line is one JSON object::

    {"seq":7,"id":"0190…","ts":"2026-11-22T02:28:00.123456+00:00","type":"memory.entry_added",
     "v":2,"actor":"agent","session":"s-…","run":null,"causation":null,"more":0,
     "data":{…},"hash":"…"}

A record may also carry ``"meta"`` (after ``causation``): string facts about the caller
that are not memoir's own, such as the MCP client that made a write or the Hermes tool
call a mirrored write came from.  It is written only when there is some, so records
without it keep the bytes (and hashes) they always had.

``type`` names the payload class (the table of every type is
:data:`memoir.events.catalog.REGISTRY`); ``v`` is that payload's
schema version (older versions are upgraded on read, see :mod:`memoir.events.upcasters`);
``more`` counts the records of the same atomic append that follow this one, so a
reader can tell a complete append from a torn one; ``hash`` chains every record to
the one before it (see :mod:`memoir.events.codec`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar, Literal, TypeVar

import msgspec

__all__ = [
    "ACTORS",
    "Actor",
    "Draft",
    "Event",
    "Payload",
    "event_type",
    "registry",
    "require",
]

Actor = str
#: The actors memoir itself uses.  Any string is accepted; these have meaning to guards.
ACTORS: tuple[str, ...] = (
    "agent",
    "user",
    "reviewer.memory",
    "reviewer.skills",
    "curator",
    "import",
    "system",
)

Target = Literal["memory", "user"]


class Payload(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Base of every event payload.  Subclasses are named with :func:`event_type` and
    listed in their module's ``PAYLOADS``."""

    TYPE: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1

    def entities(self) -> tuple[str, ...]:
        """The keys of what this event touches, for conflict checks and revert."""
        return ()


P = TypeVar("P", bound=type[Payload])


def require(field: str, problem: str | None) -> None:
    """Refuse a payload whose ``field`` failed a check (``problem`` is the check's
    message).  Called from payloads' ``__post_init__``, which msgspec runs for every
    record it decodes, so a journal read back holds only names and paths a command
    would have accepted; msgspec reports the refusal as a ValidationError."""
    if problem is not None:
        raise ValueError(f"{field}: {problem}")


def event_type(name: str, version: int = 1) -> Callable[[P], P]:
    """Give a payload class its stable dotted ``name`` and schema ``version``.

    Naming a class does not make journals read it: the catalog
    (:mod:`memoir.events.catalog`) lists every type this version knows, explicitly.
    """

    def name_it(cls: P) -> P:
        cls.TYPE = name
        cls.VERSION = version
        return cls

    return name_it


def registry(classes: Iterable[type[Payload]]) -> dict[str, type[Payload]]:
    """type name → payload class for ``classes``; a name given twice is an error."""
    table: dict[str, type[Payload]] = {}
    for cls in classes:
        if not cls.TYPE:
            raise RuntimeError(f"{cls.__name__} has no event type (use @event_type)")
        if table.get(cls.TYPE, cls) is not cls:
            raise RuntimeError(f"event type {cls.TYPE!r} is named twice "
                               f"({table[cls.TYPE].__name__}, {cls.__name__})")
        table[cls.TYPE] = cls
    return table


class Event(msgspec.Struct, frozen=True, kw_only=True):
    """One record of the journal: metadata (who, when, why) and the payload."""

    seq: int
    id: str
    ts: str
    type: str
    v: int
    actor: str
    session: str | None = None
    run: str | None = None
    causation: str | None = None
    #: The caller's own facts (see the module docstring); None on most records.
    meta: dict[str, str] | None = None
    more: int = 0
    data: Payload
    hash: str = ""
    #: The random salt stored at the head of the payload (see
    #: :mod:`memoir.events.codec`): it makes the payload's digest, which a tombstone
    #: keeps, impossible to match against guesses of the forgotten text.  Empty on
    #: records written before salting and on tombstones (it went with the payload).
    salt: str = ""

    def entities(self) -> tuple[str, ...]:
        return self.data.entities()


class Draft(msgspec.Struct, frozen=True, kw_only=True):
    """An event not yet appended: the journal assigns ``seq``, ``more`` and ``hash``.

    ``id`` and ``ts`` are minted by the writer when left empty; a writer that retries an
    append passes the same ids again and gets the original records back.
    """

    data: Payload
    actor: str
    session: str | None = None
    run: str | None = None
    causation: str | None = None
    meta: dict[str, str] | None = None
    id: str = ""
    ts: str = ""

    def with_meta(self, **changes: Any) -> Draft:
        return msgspec.structs.replace(self, **changes)
