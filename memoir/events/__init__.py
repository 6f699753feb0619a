"""Events and the journal: the only truth memoir keeps."""

from memoir.events import curator, memory, runs, sessions, skills  # noqa: F401  (register types)
from memoir.events.journal import (
    Durability,
    Expectation,
    ExpectHead,
    ExpectUntouched,
    FileJournal,
    Journal,
)
from memoir.events.memory_journal import InMemoryJournal
from memoir.events.types import REGISTRY, Draft, Event, Payload, event_type

__all__ = [
    "REGISTRY",
    "Draft",
    "Durability",
    "Event",
    "ExpectHead",
    "ExpectUntouched",
    "Expectation",
    "FileJournal",
    "InMemoryJournal",
    "Journal",
    "Payload",
    "event_type",
]
