"""The capabilities part of the journal conformance suite: what only some backends can
do (:mod:`memoir.journal.interface`), each stated by tests that run when the backend's
``supports_*`` flag says it has the capability, and one test that the flags say what the
backend inherits (a backend cannot claim a capability it does not declare, nor declare
one it is not tested for)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import ClassVar

import pytest

from memoir.errors import ValidationError
from memoir.events.codec import (
    Forgotten,
    hash_of_line,
    line_hash_ok,
    payload_digest,
    payload_span,
)
from memoir.journal import (
    FileBacked,
    Journal,
    LineAccess,
    Loading,
    Notices,
    Roles,
    Schema,
    SharedBodies,
    Tombstoning,
)
from memoir.testing.journal_contract import _Contract, batch

__all__ = ["Capabilities"]

#: flag -> the capability it stands for.
FLAGS: dict[str, type] = {
    "supports_lines": LineAccess,
    "supports_loading": Loading,
    "supports_tombstones": Tombstoning,
    "supports_shared_bodies": SharedBodies,
    "supports_notices": Notices,
    "supports_schema": Schema,
    "supports_roles": Roles,
    "supports_file": FileBacked,
}


class Capabilities(_Contract):
    """Set the flag of each capability the backend inherits."""

    supports_lines: ClassVar[bool] = False
    supports_loading: ClassVar[bool] = False
    supports_tombstones: ClassVar[bool] = False
    supports_shared_bodies: ClassVar[bool] = False
    supports_notices: ClassVar[bool] = False
    supports_schema: ClassVar[bool] = False
    supports_roles: ClassVar[bool] = False
    supports_file: ClassVar[bool] = False

    def _needs(self, *flags: str) -> None:
        missing = [f for f in flags if not getattr(self, f)]
        if missing:
            pytest.skip(f"the backend does not claim {', '.join(missing)}")

    def test_supports_flags_say_what_the_backend_can_do(self, journal: Journal) -> None:
        wrong = {flag: getattr(self, flag) for flag, capability in FLAGS.items()
                 if getattr(self, flag) != isinstance(journal, capability)}
        assert wrong == {}, "each flag must match the capability the backend inherits"

    # -- LineAccess ------------------------------------------------------------------------

    def test_stored_lines_are_the_records_chained_in_order(self, journal: Journal) -> None:
        self._needs("supports_lines")
        assert isinstance(journal, LineAccess)
        events = journal.append(batch(4)) + journal.append(batch(3, "more"))
        stored = list(journal.read_lines())
        assert [s.seq for s in stored] == [e.seq for e in events]
        prev = b""
        for line, event in zip(stored, events, strict=True):
            assert line_hash_ok(prev, line.line) and not line.line.endswith(b"\n")
            prev = hash_of_line(line.line)
            assert prev.decode() == event.hash
        assert [s.seq for s in journal.read_lines(after=2, until=5)] == [3, 4, 5]
        offsets = [s.offset for s in stored]
        assert offsets == sorted(set(offsets)) or set(offsets) == {-1}

    # -- Loading ---------------------------------------------------------------------------

    def test_a_copy_loads_whole_and_only_into_an_empty_journal(self, journal: Journal) -> None:
        self._needs("supports_lines", "supports_loading")
        assert isinstance(journal, LineAccess)
        events = journal.append(batch(5))
        target = self.make()
        try:
            assert isinstance(target, Loading)
            lines = [s.line for s in journal.read_lines()]
            assert target.load_lines(iter(lines)) == 5
            assert [e.hash for e in target.read()] == [e.hash for e in events]
            with pytest.raises(ValidationError):
                target.load_lines(iter(lines))
            assert target.head() == 5
        finally:
            target.close()

    # -- Tombstoning -----------------------------------------------------------------------

    def test_a_tombstone_removes_the_payload_and_the_chain_still_holds(
            self, journal: Journal) -> None:
        self._needs("supports_lines", "supports_tombstones")
        assert isinstance(journal, LineAccess) and isinstance(journal, Tombstoning)
        journal.append(batch(3, "a secret"))
        line = next(s for s in journal.read_lines() if s.seq == 2)
        span = payload_span(line.line)
        assert span is not None
        digest = payload_digest(line.line[span[0]:span[1]]).decode()
        assert journal.can_forget()
        journal.tombstone({2: digest, 3: "0" * 32})  # 3: another payload than planned
        after = {s.seq: s.line for s in journal.read_lines()}
        assert len(after[2]) == len(line.line) and b"a secret 1" not in after[2]
        assert b"a secret 2" in after[3]
        assert [type(e.data) is Forgotten for e in journal.read()] == [False, True, False]
        assert journal.verify().records == 3
        journal.tombstone({2: digest})  # once is enough: a second time changes nothing
        assert {s.seq: s.line for s in journal.read_lines()} == after
        again = self.reopen(journal)
        try:
            assert [type(e.data) is Forgotten for e in again.read()] == [False, True, False]
        finally:
            if again is not journal:
                again.close()

    # -- SharedBodies ----------------------------------------------------------------------

    def test_shared_bodies_are_kept_by_reference_once(self, journal: Journal) -> None:
        self._needs("supports_shared_bodies")
        assert isinstance(journal, SharedBodies)
        ref = "pack-000001:0:5:" + "ab" * 16
        journal.put_bodies([(ref, b"hello")])
        journal.put_bodies([(ref, b"other")])  # a reference names its bytes: kept first
        assert journal.body(ref) == b"hello"
        assert journal.body("pack-000001:9:5:" + "cd" * 16) is None

    # -- Notices ---------------------------------------------------------------------------

    def test_a_waiting_reader_is_told_of_another_writers_commit(self, journal: Journal) -> None:
        self._needs("supports_notices")
        assert isinstance(journal, Notices)
        journal.wait_for_append(0.01)  # starts listening
        other = self.reopen(journal)
        told = threading.Event()

        def wait() -> None:
            if journal.wait_for_append(30.0):
                told.set()

        waiter = threading.Thread(target=wait)
        waiter.start()
        try:
            other.append(batch(1))
        finally:
            waiter.join()
            if other is not journal:
                other.close()
        assert told.is_set()

    # -- Schema, Roles, FileBacked ---------------------------------------------------------

    def test_a_schema_has_a_version(self, journal: Journal) -> None:
        self._needs("supports_schema")
        assert isinstance(journal, Schema)
        assert isinstance(journal.schema_version(), int) and journal.schema_version() >= 1

    def test_roles_say_what_this_handle_may_do(self, journal: Journal) -> None:
        self._needs("supports_roles")
        assert isinstance(journal, Roles)
        rights = journal.privileges()
        assert "superuser" in rights and all(isinstance(v, bool) for v in rights.values())

    def test_a_file_backed_journal_ends_where_its_file_says(self, journal: Journal) -> None:
        self._needs("supports_file")
        assert isinstance(journal, FileBacked)
        events = journal.append(batch(3))
        end = journal.file_end()
        assert (end.seq, end.hash) == (3, events[-1].hash)
        assert Path(journal.path).stat().st_size >= end.offset > 0
        assert str(journal.path) in journal.where()
