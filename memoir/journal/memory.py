"""An in-memory journal with the same interface and guarantees as the file journal,
minus durability.  For tests and for embedding memoir where nothing must persist."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager

from memoir.clock import Clock, SystemClock
from memoir.errors import JournalCorrupted
from memoir.events.codec import GENESIS, encode_record
from memoir.events.types import Draft, Event
from memoir.journal.interface import (
    Expectation,
    Journal,
    JournalWriter,
    Progress,
    VerifyReport,
)
from memoir.journal.staging import Stager

__all__ = ["InMemoryJournal"]


class InMemoryJournal(Journal):
    """Records kept in a list; ids, ``more`` and hashes are exactly the file journal's,
    so the same drafts (with the same ids and timestamps) give the same records."""

    def __init__(self, *, clock: Clock | None = None) -> None:
        self.clock = clock or SystemClock()
        self._events: list[Event] = []
        self._ids: dict[str, int] = {}
        self._lock = threading.RLock()
        self._staged = Stager(self)

    def __repr__(self) -> str:
        return f"InMemoryJournal(head={len(self._events)})"

    def head(self) -> int:
        return len(self._events)

    def read(self, after: int = 0, until: int | None = None) -> Iterator[Event]:
        with self._lock:
            head = len(self._events)
            stop = head if until is None else min(until, head)
            chunk = self._events[max(after, 0) : max(stop, 0)]
        yield from chunk

    def locked(self) -> AbstractContextManager[JournalWriter]:
        return self._locked()

    @contextmanager
    def _locked(self) -> Iterator[JournalWriter]:
        with self._lock:
            try:
                yield _MemoryWriter(self)
            finally:
                self._staged.drop()

    def verify(self, progress: Progress | None = None) -> VerifyReport:
        """Re-encode every record and check that the hash chain still holds."""
        with self._lock:
            events = list(self._events)
        prev = GENESIS
        size = 0
        types: dict[str, int] = {}
        for event in events:
            line, prev = encode_record(
                seq=event.seq, id=event.id, ts=event.ts, actor=event.actor,
                session=event.session, run=event.run, causation=event.causation,
                more=event.more, data=event.data, prev=prev, meta=event.meta,
                salt=event.salt,
            )
            if prev.decode() != event.hash:
                raise JournalCorrupted("hash does not match (the record was altered)",
                                       line=event.seq, seq=event.seq)
            size += len(line) + 1
            types[event.type] = types.get(event.type, 0) + 1
        return VerifyReport(records=len(events), head_hash=events[-1].hash if events else "",
                            bytes=size, types=types)

    def _stage(self, drafts: Sequence[Draft], expect: Expectation | None) -> list[Event]:
        def tail() -> tuple[int, bytes]:
            last = self._events[-1] if self._events else None
            return (last.seq, last.hash.encode()) if last else (0, GENESIS)

        return self._staged.stage(drafts, expect, tail=tail, known=lambda ids: {
            i: self._ids[i] for i in ids if i in self._ids})

    def _write_staged(self) -> None:
        _lines, out = self._staged.take()
        self._events.extend(out)
        for event in out:
            self._ids[event.id] = event.seq


class _MemoryWriter(JournalWriter):
    def __init__(self, journal: InMemoryJournal) -> None:
        self._journal = journal

    @property
    def head(self) -> int:
        tail = self._journal._staged.tail()
        return tail[0] if tail else len(self._journal._events)

    def stage(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        return self._journal._stage(drafts, expect)

    def write(self, *, sync: bool = True) -> int | None:
        self._journal._write_staged()
        return None
