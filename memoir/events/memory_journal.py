"""An in-memory journal with the same interface and guarantees as the file journal,
minus durability.  For tests and for embedding memoir where nothing must persist."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager

from memoir.clock import Clock, SystemClock
from memoir.errors import ValidationError
from memoir.events.codec import GENESIS, encode_record
from memoir.events.journal import Expectation, Journal, JournalWriter, _mint, check_expectation
from memoir.events.types import Draft, Event

__all__ = ["InMemoryJournal"]


class InMemoryJournal(Journal):
    """Records kept in a list; hashes are computed exactly as the file journal does."""

    def __init__(self, *, clock: Clock | None = None) -> None:
        self.clock = clock or SystemClock()
        self._events: list[Event] = []
        self._ids: dict[str, int] = {}
        self._lock = threading.RLock()

    def head(self) -> int:
        return len(self._events)

    def read(self, after: int = 0, until: int | None = None) -> Iterator[Event]:
        with self._lock:
            stop = len(self._events) if until is None else min(until, len(self._events))
            chunk = self._events[max(after, 0) : stop]
        yield from chunk

    def locked(self) -> AbstractContextManager[JournalWriter]:
        return self._locked()

    @contextmanager
    def _locked(self) -> Iterator[JournalWriter]:
        with self._lock:
            yield _MemoryWriter(self)

    def _write(self, drafts: Sequence[Draft], expect: Expectation | None) -> list[Event]:
        if not drafts:
            return []
        given = [d.id for d in drafts if d.id]
        if len(set(given)) != len(given):
            raise ValidationError("an append lists the same event id twice")
        existing = [self._ids[i] for i in given if i in self._ids]
        if existing:
            first = existing[0]
            if len(existing) != len(drafts) or existing != list(
                range(first, first + len(drafts))
            ):
                raise ValidationError(
                    "a retried append must repeat the original append exactly"
                )
            return self._events[first - 1 : first - 1 + len(drafts)]
        check_expectation(self, len(self._events), expect)
        prev = self._events[-1].hash.encode() if self._events else GENESIS
        out = []
        seq = len(self._events)
        for i, draft in enumerate(drafts):
            event_id, ts = _mint(draft, self.clock)
            seq += 1
            more = len(drafts) - 1 - i
            _line, prev = encode_record(
                seq=seq, id=event_id, ts=ts, actor=draft.actor, session=draft.session,
                run=draft.run, causation=draft.causation, more=more, data=draft.data, prev=prev,
            )
            out.append(
                Event(
                    seq=seq, id=event_id, ts=ts, type=draft.data.TYPE, v=draft.data.VERSION,
                    actor=draft.actor, session=draft.session, run=draft.run,
                    causation=draft.causation, more=more, data=draft.data, hash=prev.decode(),
                )
            )
        self._events.extend(out)
        for event in out:
            self._ids[event.id] = event.seq
        return out


class _MemoryWriter(JournalWriter):
    def __init__(self, journal: InMemoryJournal) -> None:
        self._journal = journal

    @property
    def head(self) -> int:
        return len(self._journal._events)

    def append(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        return self._journal._write(drafts, expect)
