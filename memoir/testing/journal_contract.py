"""What every part of the journal conformance suite shares: the journal under test
(``make``, ``reopen``) and small builders of drafts (see
:mod:`memoir.testing.journal_conformance`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memoir.clock import FakeClock
from memoir.events.codec import GENESIS, encode_record
from memoir.events.memory import EntryAdded
from memoir.events.types import Draft, Event
from memoir.journal import Journal

__all__ = ["added", "batch", "chain_holds"]


def added(text: str, *, entry: str = "e-000000000001", target: str = "memory") -> Draft:
    return Draft(data=EntryAdded(target=target, entry_id=entry, text=text),  # type: ignore[arg-type]
                 actor="agent", session="s-1")


def batch(n: int, prefix: str = "fact") -> list[Draft]:
    return [added(f"{prefix} {i}", entry=f"e-{i:012x}") for i in range(n)]


def chain_holds(events: list[Event]) -> bool:
    prev = GENESIS
    for e in events:
        _line, prev = encode_record(
            seq=e.seq, id=e.id, ts=e.ts, actor=e.actor, session=e.session, run=e.run,
            causation=e.causation, more=e.more, data=e.data, prev=prev, meta=e.meta,
            salt=e.salt,
        )
        if prev.decode() != e.hash:
            return False
    return True


class _Contract:
    """What every part of the contract needs: a journal to test (``make``) and the same
    journal as another process opens it (``reopen``)."""

    def make(self, clock: FakeClock | None = None) -> Journal:
        raise NotImplementedError

    def reopen(self, journal: Journal) -> Journal:
        """The same journal as another process would see it (or the same object)."""
        raise NotImplementedError

    @pytest.fixture
    def journal(self) -> Iterator[Journal]:
        j = self.make()
        yield j
        j.close()

    # -- empty journal ---------------------------------------------------------------------

    def test_empty_journal_has_head_zero_and_reads_nothing(self, journal: Journal) -> None:
        assert journal.head() == 0
        assert list(journal.read()) == []
        assert list(journal.read(after=0, until=10)) == []
        report = journal.verify()
        assert (report.records, report.head_hash, report.types) == (0, "", {})

    def test_empty_append_writes_nothing(self, journal: Journal) -> None:
        assert journal.append([]) == []
        assert journal.head() == 0
