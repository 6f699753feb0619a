"""The journal conformance suite: the contract every journal backend keeps, as pytest
tests anyone can run against a backend of their own (extra ``memoir[testing]``).

memoir runs its own backends through this class (the in-memory, file and PostgreSQL
journals, tests/journal/test_journal_conformance.py), so the contract shipped is the
one memoir keeps.  Subclass :class:`JournalConformance` in a test module, give it
``make`` (a new, empty journal) and ``reopen`` (the same journal as another process
would open it), and pytest collects every test::

    from memoir.testing.journal_conformance import JournalConformance

    class TestMyJournal(JournalConformance):
        def make(self, clock=None):
            return MyJournal(clock=clock)

        def reopen(self, journal):
            return MyJournal.connect(journal.address)

What only some backends can do (read stored lines, load a copy, tombstone, keep shared
bodies, tell of commits, keep a schema, grant roles, be one file) is a capability of
:mod:`memoir.journal.interface`; set ``supports_lines = True`` and the like for each
your backend inherits, and the part that states it runs (a flag that does not match
what the backend inherits fails ``test_supports_flags_say_what_the_backend_can_do``).

A backend that cannot do something the contract asks fails the test that states it,
named for what it checks (``test_a_retry_that_differs_from_the_original_append_is_
refused``).  docs/testing.md has a worked example, run by memoir's own tests.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memoir  # noqa: F401  (registers the event types)
from memoir.clock import FakeClock
from memoir.engine.seals import Seals
from memoir.errors import ConflictError, ValidationError
from memoir.events.memory import EntryAdded, EntryRemoved
from memoir.events.types import Draft, Event
from memoir.ids import new_id
from memoir.journal import ExpectHead, ExpectUntouched, Journal
from memoir.testing.builders import memory_drafts
from memoir.testing.journal_capabilities import Capabilities
from memoir.testing.journal_contract import _Contract, added, batch, chain_holds

__all__ = ["JournalConformance", "added", "batch", "chain_holds"]


class _AppendAndRead(_Contract):
    """Appending, reading, the hash chain and verify."""

    # -- append and read --------------------------------------------------------------------

    def test_appends_get_gapless_seqs_from_one(self, journal: Journal) -> None:
        first = journal.append(batch(3))
        second = journal.append([added("one more")])
        assert [e.seq for e in first + second] == [1, 2, 3, 4]
        assert journal.head() == 4

    def test_records_carry_type_version_metadata_and_payload(self, journal: Journal) -> None:
        draft = Draft(data=EntryAdded(target="user", entry_id="e-1", text="Likes tea"),
                      actor="reviewer.memory", session="s-9", run="run-3", causation="c-1")
        (event,) = journal.append([draft])
        (read,) = journal.read()
        for e in (event, read):
            assert e.type == "memory.entry_added" and e.v == EntryAdded.VERSION
            assert (e.actor, e.session, e.run, e.causation) == ("reviewer.memory", "s-9",
                                                               "run-3", "c-1")
            assert e.data == draft.data
            assert len(e.id) == 32 and e.ts
        assert read == event

    def test_writer_mints_distinct_ids_and_keeps_given_ones(self, journal: Journal) -> None:
        mine = new_id()
        events = journal.append([*batch(5), Draft(data=added("x").data, actor="user", id=mine,
                                                  ts="2026-01-01T00:00:00.000000+00:00")])
        assert len({e.id for e in events}) == 6
        assert events[-1].id == mine and events[-1].ts == "2026-01-01T00:00:00.000000+00:00"

    def test_more_counts_the_records_that_follow_in_the_same_append(
        self, journal: Journal
    ) -> None:
        events = journal.append(batch(4)) + journal.append(batch(1))
        assert [e.more for e in events] == [3, 2, 1, 0, 0]

    @pytest.mark.parametrize(
        ("after", "until", "expected"),
        [(0, None, [1, 2, 3, 4, 5]), (2, None, [3, 4, 5]), (0, 3, [1, 2, 3]), (1, 4, [2, 3, 4]),
         (4, 4, []), (5, None, []), (9, None, []), (0, 99, [1, 2, 3, 4, 5]), (3, 1, []),
         (-5, 2, [1, 2]), (0, -1, []), (0, 0, [])],
    )
    def test_read_returns_the_seqs_in_the_half_open_range(
        self, journal: Journal, after: int, until: int | None, expected: list[int]
    ) -> None:
        journal.append(batch(2))
        journal.append(batch(3))
        assert [e.seq for e in journal.read(after=after, until=until)] == expected

    def test_read_reverse_is_read_newest_first(self) -> None:
        journal = self.make()
        try:
            assert list(journal.read_reverse()) == []
            # Records of many sizes, some longer than a read-back chunk.
            for n in (1, 7, 3, 40, 1, 2):
                journal.append(batch(n, prefix="x" * (n * 700)))
            for after, until in ((0, None), (0, 5), (3, 9), (20, None), (53, 60), (54, None),
                                 (10, 10), (9, 10), (0, 0)):
                forward = list(journal.read(after=after, until=until))
                assert list(journal.read_reverse(after=after, until=until)) == forward[::-1]
        finally:
            journal.close()

    def test_a_read_in_progress_does_not_see_later_appends(self, journal: Journal) -> None:
        journal.append(batch(3))
        reader = journal.read()
        first = next(reader)
        journal.append(batch(2))
        assert [first.seq, *(e.seq for e in reader)] == [1, 2, 3]

    def test_large_batch_is_one_append(self, journal: Journal) -> None:
        events = journal.append(batch(10_000))
        assert [e.seq for e in events] == list(range(1, 10_001))
        assert events[0].more == 9_999 and events[-1].more == 0
        assert journal.head() == 10_000
        read = list(journal.read(after=4_000, until=6_000))
        assert [e.seq for e in read] == list(range(4_001, 6_001))
        assert read[0].data == events[4_000].data
        assert journal.verify().records == 10_000

    def test_what_is_read_is_what_was_appended(self) -> None:
        # @given inside the test: one Hypothesis test per backend class.
        @given(appends=st.lists(st.lists(memory_drafts(), min_size=1, max_size=4), max_size=6))
        # A backend's own suite runs on machines of every speed: no deadline, and a
        # slow draw is not a failure of the backend.
        @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        def check(appends: list[list[Draft]]) -> None:
            journal = self.make()
            try:
                written = [e for drafts in appends for e in journal.append(drafts)]
                assert list(journal.read()) == written
                assert [e.data for e in written] == [d.data for ds in appends for d in ds]
                assert [e.seq for e in written] == list(range(1, len(written) + 1))
                assert list(self.reopen(journal).read()) == written
            finally:
                journal.close()

        check()

    # -- hash chain and verify ---------------------------------------------------------------

    def test_every_record_hash_chains_to_the_one_before(self, journal: Journal) -> None:
        journal.append(batch(3))
        journal.append([added("tail")])
        events = list(journal.read())
        assert chain_holds(events)
        assert len({e.hash for e in events}) == 4

    def test_verify_counts_records_and_types_and_names_the_head_hash(
        self, journal: Journal
    ) -> None:
        journal.append(batch(3))
        (removed,) = journal.append([Draft(data=EntryRemoved(
            target="memory", entry_id="e-000000000000", previous="fact 0", position=0),
            actor="agent")])
        report = journal.verify()
        assert report.records == 4
        assert report.head_hash == removed.hash
        assert report.types == {"memory.entry_added": 3, "memory.entry_removed": 1}
        assert report.bytes > 0


class _RetriesAndExpectations(_Contract):
    """Retried appends, optimistic expectations, the writer's lock and seals."""

    # -- retries -------------------------------------------------------------------------------

    def test_retrying_an_append_returns_the_original_records(self, journal: Journal) -> None:
        drafts = [d.with_meta(id=new_id()) for d in batch(3)]
        original = journal.append(drafts)
        journal.append([added("in between")])
        again = journal.append(drafts)
        assert again == original
        assert journal.head() == 4
        assert [e.seq for e in journal.read()] == [1, 2, 3, 4]

    def test_retrying_from_a_fresh_journal_object_returns_the_original_records(
        self, journal: Journal
    ) -> None:
        drafts = [d.with_meta(id=new_id()) for d in batch(2)]
        original = journal.append(drafts)
        other = self.reopen(journal)
        try:
            assert other.append(drafts) == original
            assert other.head() == 2
        finally:
            if other is not journal:
                other.close()

    def test_retry_with_a_fake_clock_in_the_past_is_still_recognised(self) -> None:
        journal = self.make(clock=FakeClock("2020-01-01T00:00:00+00:00"))
        try:
            drafts = [added("dated").with_meta(id=new_id())]  # id minted by the real clock
            original = journal.append(drafts)
            journal.append(batch(3))
            assert self.reopen(journal).append(drafts) == original
            assert journal.head() == 4
        finally:
            journal.close()

    def test_a_retry_that_differs_from_the_original_append_is_refused(
        self, journal: Journal
    ) -> None:
        drafts = [d.with_meta(id=new_id()) for d in batch(2)]
        journal.append(drafts)
        with pytest.raises(ValidationError, match="retried append"):
            journal.append([drafts[0], added("new").with_meta(id=new_id())])
        with pytest.raises(ValidationError, match="retried append"):
            journal.append(list(reversed(drafts)))
        assert journal.head() == 2

    def test_an_append_naming_one_id_twice_is_refused(self, journal: Journal) -> None:
        same = new_id()
        with pytest.raises(ValidationError, match="same event id twice"):
            journal.append([added("a").with_meta(id=same), added("b").with_meta(id=same)])
        assert journal.head() == 0

    # -- expectations --------------------------------------------------------------------------

    def test_expect_head_appends_when_the_head_matches(self, journal: Journal) -> None:
        journal.append(batch(2))
        (event,) = journal.append([added("x")], expect=ExpectHead(2))
        assert event.seq == 3

    def test_expect_head_conflicts_when_the_journal_moved_on(self, journal: Journal) -> None:
        journal.append(batch(2))
        with pytest.raises(ConflictError, match="expected the journal to end at seq 1, but it "
                           "ends at 2") as info:
            journal.append([added("x")], expect=ExpectHead(1))
        assert info.value.head == 2
        assert journal.head() == 2

    def test_expect_untouched_conflicts_on_a_later_event_of_the_same_entity(
        self, journal: Journal
    ) -> None:
        journal.append([added("a", entry="e-a")])
        journal.append([added("b", entry="e-b")])
        with pytest.raises(ConflictError, match=r"1 event\(s\) after seq 1 .*seq 2") as info:
            journal.append([added("c")], expect=ExpectUntouched(
                frozenset({"memory:memory:e-b"}), after=1))
        assert info.value.conflicting == (2,)
        assert journal.head() == 2

    def test_expect_untouched_appends_when_only_other_entities_changed(
        self, journal: Journal
    ) -> None:
        journal.append([added("a", entry="e-a")])
        journal.append([added("b", entry="e-b")])
        (event,) = journal.append([added("c")], expect=ExpectUntouched(
            frozenset({"memory:memory:e-a"}), after=1))
        assert event.seq == 3
        journal.append([added("d")], expect=ExpectUntouched({"memory:user"}, after=0))  # type: ignore[arg-type]

    def test_locked_writer_sees_a_fresh_head_and_appends(self, journal: Journal) -> None:
        journal.append(batch(2))
        with journal.locked() as writer:
            assert writer.head == 2
            writer.append([added("x")], expect=ExpectHead(writer.head))
            assert writer.head == 3

    def test_the_lock_is_held_from_the_start_of_the_block(self, journal: Journal) -> None:
        """What a caller reads inside ``locked()`` before it stages (the engine catches
        up there, then decides) is the whole journal: no other writer commits from the
        block's start to its end.  (A lock taken only at the first stage let another
        process's records in between, and the engine folded past them.)"""
        journal.append(batch(1))
        other = self.reopen(journal)
        landed: list[int] = []
        with journal.locked() as writer:
            seen = [e.seq for e in journal.read()]
            thread = threading.Thread(
                target=lambda: landed.extend(e.seq for e in other.append(batch(1, "o"))))
            thread.start()
            # Nothing can land while the block lasts (a false pass on a slow machine at
            # worst, never a false failure).
            thread.join(timeout=0.2)
            assert landed == [] and [e.seq for e in journal.read()] == seen == [1]
            (mine,) = writer.stage(batch(1, "mine"))
            writer.write()
        thread.join(timeout=60)
        assert mine.seq == 2 and landed == [3]
        if other is not journal:
            other.close()

    def test_keyed_seals_cover_every_append_and_name_what_they_do_not(
            self, journal: Journal, tmp_path: Path) -> None:
        """Seals with a key: beside the journal (a file home's .memoir/seals.jsonl), or
        kept by the journal itself in each append's own transaction (a database)."""
        seals = Seals(tmp_path, b"a key of more than sixteen bytes", journal)
        if journal.keeps_seals:
            journal.sealer = seals.line
        for i in range(3):
            events = journal.append(batch(2, prefix=f"s{i}"))
            if not journal.keeps_seals:
                seals.seal(events[0].seq, events[-1].seq, events[-1].hash)
        check = seals.check(journal)
        assert (check.checked, check.unsealed, check.problems) == (3, [], [])
        journal.sealer = None  # a writer without the key
        journal.append(batch(1, prefix="unsealed"))
        check = seals.check(journal)
        assert check.unsealed == [(7, 7)] and "1 record(s) are not sealed" in check.problems[0]
        other = Seals(tmp_path, b"another key, also long enough", journal)
        seen = other.check(journal)
        if journal.keeps_seals:
            # A shared journal's seal rows can be inserted by any writer: those not made
            # with the key are left aside, never a problem of their own.
            assert seen.ignored == 3 and seen.checked == 0
            assert seen.problems == ["7 record(s) are not sealed (seq 1-7): the seals file "
                                     "was deleted or cut, the records were added without "
                                     "the key, or a writer died between its append and its "
                                     "seal; if you trust them, `memoir verify --reseal` "
                                     "seals them"]
        else:
            assert all("does not match the key" in p for p in seen.problems[:3])
        assert seals.reseal(journal) == 1
        assert seals.check(journal).problems == []


class _WritersAndPositions(_Contract):
    """Staged appends (group commit), positions and anchors, threads."""

    # -- staged appends (group commit) ---------------------------------------------------------

    def test_staged_appends_are_written_together_each_all_or_nothing(
        self, journal: Journal
    ) -> None:
        with journal.locked() as writer:
            first = writer.stage(batch(2, "a"))
            second = writer.stage(batch(3, "b"))
            assert writer.head == 5  # the staged records count
            assert journal.head() == 0  # nothing is written yet
            offset = writer.write()
        assert offset is None  # synced already (sync=True)
        assert [e.seq for e in first + second] == [1, 2, 3, 4, 5]
        assert [e.more for e in first + second] == [1, 0, 2, 1, 0]
        assert list(journal.read()) == first + second
        assert chain_holds(first + second)

    def test_staged_records_not_written_are_dropped(self, journal: Journal) -> None:
        journal.append(batch(1))
        with pytest.raises(RuntimeError), journal.locked() as writer:
            writer.stage(batch(2, "lost"))
            raise RuntimeError("the caller failed before writing")
        assert journal.head() == 1
        (event,) = journal.append([added("next")])
        assert event.seq == 2
        assert journal.verify().records == 2

    def test_expectations_see_the_appends_staged_before(self, journal: Journal) -> None:
        with journal.locked() as writer:
            (staged,) = writer.stage([added("mine", entry="e-000000000042")])
            with pytest.raises(ConflictError):
                writer.stage([added("other")], expect=ExpectHead(0))
            with pytest.raises(ConflictError):
                writer.stage([added("again", entry="e-000000000043")], expect=ExpectUntouched(
                    frozenset({"memory:memory:e-000000000042"}), after=0))
            writer.stage([added("fine")], expect=ExpectHead(staged.seq))
            writer.write()
        assert journal.head() == 2

    def test_an_id_staged_twice_in_one_write_is_refused(self, journal: Journal) -> None:
        mine = new_id()
        draft = Draft(data=added("x").data, actor="user", id=mine)
        with journal.locked() as writer:
            writer.stage([draft])
            with pytest.raises(ValidationError, match="staged in the same write"):
                writer.stage([draft])
            writer.write()
        assert [e.id for e in journal.read()] == [mine]

    # -- what the engine needs besides appending and reading -----------------------------------

    def test_position_names_the_last_record_and_anchors_it(self, journal: Journal) -> None:
        assert journal.position() == (0, 0, "")
        assert journal.head_hash() == ""
        assert journal.anchor(0, 0, "")
        journal.append(batch(2))
        *_, last = journal.append(batch(3, prefix="more"))
        position = journal.position()
        assert position.seq == last.seq == journal.head() == 5
        assert position.hash == last.hash == journal.head_hash()
        assert journal.anchor(*position)
        # A checkpoint that names the wrong hash, seq or offset is not vouched for.
        assert not journal.anchor(position.seq, position.offset, "0" * 32)
        assert not journal.anchor(position.seq - 1, position.offset, position.hash)
        assert not journal.anchor(position.seq, position.offset + 1, position.hash)

    def test_an_anchor_inside_an_append_is_refused(self, journal: Journal) -> None:
        journal.append(batch(1))
        first = journal.position()
        inner = journal.append(batch(3, prefix="x"))[1]  # more == 1: not an append's end
        assert journal.anchor(*first)
        mid_offset = None
        # The offset of a record inside an append is the backend's business; whatever it
        # is, no offset makes that record an anchor.
        for offset in range(0, journal.position().offset + 2):
            if journal.anchor(inner.seq, offset, inner.hash):
                mid_offset = offset
        assert mid_offset is None

    def test_an_anchored_reopen_reads_on_from_the_anchor(self, journal: Journal) -> None:
        journal.append(batch(3))
        position = journal.position()
        journal.append(batch(2, prefix="after"))
        other = self.reopen(journal)
        assert other.anchor(*position)
        assert [e.seq for e in other.read(after=position.seq)] == [4, 5]
        assert other.head() == 5

    def test_caught_up_to_never_claims_what_is_not_so(self, journal: Journal) -> None:
        journal.append(batch(2))
        other = self.reopen(journal)
        assert not other.caught_up_to(1)
        with journal.locked() as writer:
            assert not journal.caught_up_to(writer.head + 1)
        other.append(batch(1, prefix="other"))
        # Whatever the backend caches, it never says it has seen all when it has not.
        assert not journal.caught_up_to(2)
        assert journal.head() == 3

    def test_recover_and_repair_of_a_sound_journal_do_nothing(self, journal: Journal) -> None:
        written = journal.append(batch(3))
        assert journal.recover() is None
        assert journal.repair() is None
        assert list(journal.read()) == written

    def test_a_deferred_write_is_acknowledged_by_sync_to(self, journal: Journal) -> None:
        with journal.locked() as writer:
            events = writer.stage(batch(2))
            offset = writer.write(sync=False)
        if offset is not None:
            journal.sync_to(offset)
        assert list(journal.read()) == events
        # The lock is free again.
        assert [e.seq for e in journal.append(batch(1, prefix="next"))] == [3]

    # -- threads -------------------------------------------------------------------------------

    def test_concurrent_threads_lose_nothing_and_duplicate_nothing(
        self, journal: Journal
    ) -> None:
        acked: list[list[Event]] = []
        errors: list[BaseException] = []

        def work(n: int) -> None:
            try:
                for i in range(25):
                    acked.append(journal.append(batch(1 + i % 3, prefix=f"t{n}-{i}")))
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        events = list(journal.read())
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        by_seq = {e.seq: e for e in events}
        assert sum(len(a) for a in acked) == len(events)
        for append in acked:
            assert [by_seq[e.seq] for e in append] == append
        assert chain_holds(events)


class JournalConformance(_AppendAndRead, _RetriesAndExpectations, _WritersAndPositions,
                         Capabilities):
    """The contract of a journal backend: subclass it, provide :meth:`make` and
    :meth:`reopen`, set the ``supports_*`` flag of each capability it has, and pytest
    collects every test of the four parts."""
