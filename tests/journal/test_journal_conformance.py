"""memoir's own journals run the shipped conformance suite
(:mod:`memoir.testing.journal_conformance`), so the contract users test their backends
against cannot drift from the one memoir keeps; plus what is particular to a backend.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memoir.clock import FakeClock
from memoir.errors import ConflictError, JournalCorrupted
from memoir.events.types import Draft, Event
from memoir.ids import new_id
from memoir.journal import FileJournal, InMemoryJournal, Journal
from memoir.journal.postgres import PostgresJournal
from memoir.testing import memory_drafts
from memoir.testing.journal_conformance import JournalConformance, added, batch
from tests.support.postgres import in_schema


class TestInMemoryJournal(JournalConformance):
    def make(self, clock: FakeClock | None = None) -> Journal:
        return InMemoryJournal(clock=clock)

    def reopen(self, journal: Journal) -> Journal:
        return journal


class TestFileJournal(JournalConformance):
    supports_lines = supports_tombstones = supports_file = True
    @pytest.fixture(autouse=True)
    def _folder(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self._dir = tmp_path_factory.mktemp("journal")
        self._count = 0

    def make(self, clock: FakeClock | None = None) -> Journal:
        self._count += 1
        path = self._dir / f"journal-{self._count}.jsonl"
        return FileJournal(path, durability="never", clock=clock)

    def reopen(self, journal: Journal) -> Journal:
        assert isinstance(journal, FileJournal)
        return FileJournal(journal.path, durability="never", clock=journal.clock)


    def test_read_reverse_checks_the_chain_from_the_head_down(self) -> None:
        journal = self.make()
        assert isinstance(journal, FileJournal)
        journal.append(batch(5))
        path = journal.path
        journal.close()
        data = path.read_bytes()
        path.write_bytes(data.replace(b"fact 1", b"fact 7", 1))
        # Opened from a known position past the damage, as a home opens from a checkpoint.
        reopened = FileJournal(path, durability="never", scan=False, recover=False)
        last = data.rstrip(b"\n").rsplit(b"\n", 1)[-1]
        assert reopened.anchor(5, len(data), last[-34:-2].decode())
        try:
            newest = reopened.read_reverse()
            assert [next(newest).seq for _ in range(3)] == [5, 4, 3]
            with pytest.raises(JournalCorrupted, match="seq 2"):
                next(newest)
        finally:
            reopened.close()


class TestPostgresJournal(JournalConformance):
    """The same contract, the records in PostgreSQL (each journal in a schema of its own
    in a database made for this module)."""

    supports_lines = supports_loading = supports_tombstones = True
    supports_shared_bodies = supports_notices = supports_schema = supports_roles = True

    @pytest.fixture(autouse=True)
    def _database(self, pg_database: str) -> None:
        self._db = pg_database

    def make(self, clock: FakeClock | None = None) -> Journal:
        url = in_schema(self._db, f"j_{new_id()[-12:]}")
        return PostgresJournal(url, create=True, clock=clock)

    def reopen(self, journal: Journal) -> Journal:
        assert isinstance(journal, PostgresJournal)
        return PostgresJournal(journal.url, clock=journal.clock)


class TestDurableFileJournal(TestFileJournal):
    """The same contract with an fsync per append (the default)."""

    def make(self, clock: FakeClock | None = None) -> Journal:
        self._count += 1
        return FileJournal(self._dir / f"journal-{self._count}.jsonl", clock=clock)


    def test_a_deferred_sync_keeps_the_lock_until_it_is_done(self) -> None:
        journal = self.make()
        assert isinstance(journal, FileJournal)
        other = FileJournal(journal.path, durability="never", lock_timeout=0.2)
        with journal.locked() as writer:
            writer.stage(batch(2))
            offset = writer.write(sync=False)
        assert offset == journal.path.stat().st_size
        # The append is written but not yet synced: no other writer may go in between.
        with pytest.raises(ConflictError, match="could not lock"):
            other.append([added("too early")])
        journal.sync_to(offset)
        assert journal.synced_offset >= offset
        (event,) = other.append([added("now")])
        assert event.seq == 3
        other.close()
        journal.close()

@given(appends=st.lists(st.lists(memory_drafts(), min_size=1, max_size=3), max_size=5))
@settings(max_examples=25)
def test_both_backends_write_identical_records_for_identical_drafts(
    appends: list[list[Draft]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    ts = "2026-03-04T05:06:07.000000+00:00"
    drafts = [[d.with_meta(ts=ts, id=f"{i:02x}{j:02x}{'0' * 28}") for j, d in enumerate(append)]
              for i, append in enumerate(appends)]
    path: Path = tmp_path_factory.mktemp("twin") / "journal.jsonl"
    def unsalted(events: list[Event]) -> list[Event]:
        # Each record's salt is drawn at random (a tombstone's digest must not be
        # guessable), and the hash covers it: both differ; the rest is the same.
        assert all(len(e.salt) == 24 for e in events)
        return [msgspec.structs.replace(e, salt="", hash="") for e in events]

    with FileJournal(path, durability="never") as on_disk:
        in_memory = InMemoryJournal()
        for append in drafts:
            assert unsalted(on_disk.append(append)) == unsalted(in_memory.append(append))
        disk, memory = on_disk.verify(), in_memory.verify()
        assert (disk.records, disk.bytes, disk.types) == (memory.records, memory.bytes,
                                                          memory.types)
