"""Storage of the event journal: the interface every backend implements, the file
journal, the in-memory journal, and the cross-process lock.

The event vocabulary (what a record says) is :mod:`memoir.events`; this package is
where records are kept.
"""

from memoir.journal.file import FileJournal
from memoir.journal.interface import (
    Durability,
    Expectation,
    ExpectHead,
    ExpectUntouched,
    Journal,
    JournalWriter,
    Position,
    RecoveryReport,
    VerifyReport,
)
from memoir.journal.memory import InMemoryJournal

__all__ = [
    "Durability",
    "ExpectHead",
    "ExpectUntouched",
    "Expectation",
    "FileJournal",
    "InMemoryJournal",
    "Journal",
    "JournalWriter",
    "Position",
    "RecoveryReport",
    "VerifyReport",
]
