"""The journal interface every backend implements, and what it shares: expectations,
reports, id minting and the expectation check.

The file journal is in :mod:`memoir.events.journal`, the in-memory one in
:mod:`memoir.events.memory_journal`; both pass ``tests/test_journal_conformance.py``.
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Self

from memoir.clock import Clock, SystemClock, format_ts
from memoir.errors import ConflictError
from memoir.events.types import Draft, Event
from memoir.ids import random_hex

__all__ = [
    "ExpectHead",
    "ExpectUntouched",
    "Expectation",
    "Journal",
    "JournalWriter",
    "RecoveryReport",
    "VerifyReport",
    "check_expectation",
    "mint",
]


@dataclass(frozen=True)
class ExpectHead:
    """The append succeeds only if the journal's last seq is still ``seq``."""

    seq: int


@dataclass(frozen=True)
class ExpectUntouched:
    """The append succeeds only if no record after ``after`` touches any of ``entities``."""

    entities: frozenset[str]
    after: int

    def __post_init__(self) -> None:
        # Accept any iterable of keys; a plain str would silently become its characters.
        if isinstance(self.entities, str):
            raise TypeError("ExpectUntouched.entities must be a collection of keys, not a str")
        object.__setattr__(self, "entities", frozenset(self.entities))


Expectation = ExpectHead | ExpectUntouched


@dataclass(frozen=True)
class RecoveryReport:
    """What opening or repairing the journal had to cut, and where the cut bytes went.

    ``reappended`` are the new seqs of the records :meth:`FileJournal.repair` wrote
    again; ``skipped`` the original seqs of records in the cut bytes it did not (damaged,
    part of an append that lost a record, or already in the journal).
    """

    cut_bytes: int
    saved_to: str | None
    kept_head: int
    reappended: tuple[int, ...] = ()
    skipped: tuple[int, ...] = ()


@dataclass(frozen=True)
class VerifyReport:
    """The result of a full check: committed records, the head's hash, and the types seen.

    ``pending_bytes`` counts bytes after the last complete append: a writer mid-append,
    or the torn tail of one that died (cut by the next writer).
    """

    records: int
    head_hash: str
    bytes: int
    types: dict[str, int] = field(default_factory=dict)
    pending_bytes: int = 0


class JournalWriter(ABC):
    """The view of the journal an append gets while it holds the lock.

    Appends can be staged: :meth:`stage` mints the records of one atomic append (seq,
    id, hash) after everything staged before it, and :meth:`write` writes all staged
    appends with one write and one sync.  That is how concurrent commits share an
    fsync (group commit).  Staged records that are not written when the lock is
    released are dropped; a failed :meth:`write` leaves none of them in the journal.
    """

    @property
    @abstractmethod
    def head(self) -> int:
        """The last seq, fresh (every record of every process is counted), staged included."""

    @abstractmethod
    def stage(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        """Mint ``drafts`` as one atomic append after what is staged; nothing is written yet.

        ``expect`` is checked against the journal plus the appends staged before.  Drafts
        whose ids are already in the journal return the original records and stage nothing.
        """

    @abstractmethod
    def write(self, *, sync: bool = True) -> int | None:
        """Write every staged append in one write and one sync (per the durability policy).

        ``sync=False`` (a hint, honoured by journals that fsync per append): write now,
        sync later.  The return value is then an offset to pass to the journal's
        ``sync_to``, which makes the appends durable and only then gives up the lock
        (the lock outlives the ``locked()`` block until then); None means nothing is
        left to do.  Until ``sync_to`` returns, the appends are not acknowledged.
        """

    def append(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        """Write ``drafts`` as one atomic append and return the records as written."""
        events = self.stage(drafts, expect=expect)
        self.write()
        return events


class Journal(ABC):
    """An append-only sequence of events.

    Every backend passes the conformance suite in ``tests/test_journal_conformance.py``.
    """

    clock: Clock

    @abstractmethod
    def head(self) -> int:
        """The last committed seq visible now (0 for an empty journal)."""

    @abstractmethod
    def read(self, after: int = 0, until: int | None = None) -> Iterator[Event]:
        """Committed records with ``after < seq <= until``, in order."""

    @abstractmethod
    def locked(self) -> AbstractContextManager[JournalWriter]:
        """Hold the append lock; the writer appends and sees a fresh head."""

    @abstractmethod
    def verify(self) -> VerifyReport:
        """Read every record and check the hash chain; raises JournalCorrupted."""

    def append(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        """Append ``drafts`` atomically (one lock, one write, one fsync).

        Drafts that carry ids already in the journal (a retry of an append that
        went through) return the original records instead of writing again.
        """
        with self.locked() as writer:
            return writer.append(drafts, expect=expect)

    def close(self) -> None:  # noqa: B027  (optional hook: most backends hold nothing)
        """Release resources; flush what the durability policy left unsynced."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def mint(drafts: Sequence[Draft], clock: Clock) -> list[tuple[str, str]]:
    """The id and timestamp of each draft: its own, or new ones.

    The clock is read once per append, so the records of one append share their time.
    """
    if all(d.id and d.ts for d in drafts):
        return [(d.id, d.ts) for d in drafts]
    if isinstance(clock, SystemClock):
        ms, ts = clock.stamp()
    else:
        now = clock.now()
        ms, ts = int(now.timestamp() * 1000), format_ts(now)
    prefix = f"{ms & 0xFFFFFFFFFFFF:012x}"
    # One call for the randomness of every id (same format as memoir.ids.new_id).
    noise = random_hex(10 * len(drafts))
    return [
        (d.id or prefix + noise[20 * i : 20 * i + 20], d.ts or ts)
        for i, d in enumerate(drafts)
    ]


def check_expectation(
    journal: Journal, head: int, expect: Expectation | None, *, pending: Sequence[Event] = ()
) -> None:
    """Raise ConflictError if ``expect`` does not hold at ``head``.

    ``pending``: records staged after the journal's last record (up to ``head``).
    """
    if expect is None:
        return
    if isinstance(expect, ExpectHead):
        if head != expect.seq:
            raise ConflictError(
                f"expected the journal to end at seq {expect.seq}, but it ends at {head}; "
                "re-read the state and try again",
                head=head,
            )
        return
    committed = head - len(pending)
    seen = itertools.chain(journal.read(after=expect.after, until=committed),
                           (e for e in pending if e.seq > expect.after))
    clashes = tuple(
        event.seq for event in seen if expect.entities.intersection(event.entities())
    )
    if clashes:
        shown = ", ".join(map(str, clashes[:10]))
        raise ConflictError(
            f"{len(clashes)} event(s) after seq {expect.after} touch the same entities "
            f"(seq {shown}); re-validate against the current state",
            head=head,
            conflicting=clashes,
        )
