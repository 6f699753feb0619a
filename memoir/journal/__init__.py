"""Storage of the event journal: the interface every backend implements and the
capabilities some have (:mod:`.interface`), the backends — a file (:mod:`.file`, the
embedded default), a PostgreSQL database (:mod:`.postgres`), memory (:mod:`.memory`) —
chosen by location (:func:`open_journal`), the staging every writer shares, and the
transcript store beside the journal.

The event vocabulary (what a record says) is :mod:`memoir.events`; this package is
where records are kept.  Nothing outside it names a backend: it opens one with
:func:`open_journal` and asks what it can do with ``isinstance(journal, Capability)``.
"""

from memoir.journal.choose import open_journal
from memoir.journal.file import FileJournal
from memoir.journal.interface import (
    Durability,
    Expectation,
    ExpectHead,
    ExpectUntouched,
    FileBacked,
    Journal,
    JournalWriter,
    LineAccess,
    Loading,
    Notices,
    Position,
    RecoveryReport,
    Roles,
    Schema,
    SharedBodies,
    StoredLine,
    Tombstoning,
    VerifyReport,
)
from memoir.journal.memory import InMemoryJournal
from memoir.journal.urls import is_database, redact_url

__all__ = [
    "Durability",
    "ExpectHead",
    "ExpectUntouched",
    "Expectation",
    "FileBacked",
    "FileJournal",
    "InMemoryJournal",
    "Journal",
    "JournalWriter",
    "LineAccess",
    "Loading",
    "Notices",
    "Position",
    "RecoveryReport",
    "Roles",
    "Schema",
    "SharedBodies",
    "StoredLine",
    "Tombstoning",
    "VerifyReport",
    "is_database",
    "open_journal",
    "redact_url",
]
