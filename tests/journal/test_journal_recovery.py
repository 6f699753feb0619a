"""The file journal's failure model: torn tails, damage, tampering, repair, durability.

Every test works on a real journal file: it writes records through :class:`FileJournal`,
then breaks the bytes the way a crash, a disk or a person would.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import filelock
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memoir  # noqa: F401  (registers the event types)
from memoir.clock import FakeClock
from memoir.errors import ConflictError, JournalCorrupted, UnknownEventType
from memoir.events.maintenance import JournalRepaired
from memoir.events.memory import EntryAdded
from memoir.events.types import Draft, Event
from memoir.ids import new_id
from memoir.journal import ExpectUntouched, FileJournal
from tests.support.journal import rehash


def added(text: str) -> Draft:
    return Draft(data=EntryAdded(target="memory", entry_id="e-" + text[:10].ljust(10, "0"),
                                 text=text), actor="agent")


def build(path: Path, sizes: list[int]) -> list[Event]:
    """A journal at ``path`` with one append per size; returns every record written."""
    events: list[Event] = []
    with FileJournal(path, durability="never") as journal:
        for n, size in enumerate(sizes):
            events += journal.append([added(f"append {n} record {i}") for i in range(size)])
    return events


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def asides(path: Path, kind: str) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.{kind}-*"))


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "journal.jsonl"


# -- torn tails ------------------------------------------------------------------------------


def test_torn_final_line_is_cut_on_open_saved_aside_and_logged(
    path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    events = build(path, [1, 2, 1])
    sound = path.read_bytes()
    torn = lines(path)[-1][:37]  # a crash mid-write leaves a prefix of the line
    path.write_bytes(sound + torn)
    with caplog.at_level("WARNING", logger="memoir"):
        journal = FileJournal(path)
    logs = [{**r.memoir, "log_level": r.levelname.lower()}  # type: ignore[attr-defined]
            for r in caplog.records if hasattr(r, "memoir")]
    assert journal.head() == 4
    assert [e.id for e in journal.read()] == [e.id for e in events]
    assert path.read_bytes() == sound
    (aside,) = asides(path, "torn")
    assert aside.read_bytes() == torn
    assert journal.recovery is not None and journal.recovery.cut_bytes == len(torn)
    (warning,) = [entry for entry in logs if entry["event"] == "journal.torn_tail_cut"]
    assert warning["log_level"] == "warning" and warning["saved_to"] == str(aside)
    journal.close()


def test_incomplete_multi_record_append_is_cut_whole(path: Path) -> None:
    build(path, [2, 3])
    whole = lines(path)
    # The last append had 3 records; the writer died after writing two of them.
    path.write_bytes(b"".join(whole[:-1]))
    with FileJournal(path) as journal:
        assert journal.head() == 2
        assert [e.more for e in journal.read()] == [1, 0]
        assert journal.recovery is not None and journal.recovery.skipped == (3, 4)
    assert path.read_bytes() == b"".join(whole[:2])
    assert asides(path, "torn")[0].read_bytes() == b"".join(whole[2:4])


def test_incomplete_append_ending_in_a_partial_line_is_cut(path: Path) -> None:
    build(path, [1, 4])
    whole = lines(path)
    path.write_bytes(b"".join(whole[:3]) + whole[3][:-20])
    with FileJournal(path) as journal:
        assert journal.head() == 1
        journal.append([added("after recovery")])
        assert [e.seq for e in journal.read()] == [1, 2]
        assert journal.verify().records == 2


def test_a_whole_last_record_missing_only_its_newline_is_cut(path: Path) -> None:
    # A writer killed just before its last byte: the append was never acknowledged.
    build(path, [1, 1])
    whole = lines(path)
    path.write_bytes(whole[0] + whole[1][:-1])
    with FileJournal(path) as journal:
        assert journal.head() == 1


def test_zero_bytes_after_the_last_record_are_cut_as_a_torn_tail(path: Path) -> None:
    # Some file systems extend the file with zeros when power fails mid-write.
    build(path, [2])
    sound = path.read_bytes()
    path.write_bytes(sound + b"\x00" * 4096)
    with FileJournal(path) as journal:
        assert journal.head() == 2
    assert path.read_bytes() == sound


def test_the_next_writer_cuts_a_torn_tail_left_while_the_journal_was_open(path: Path) -> None:
    build(path, [1])
    with FileJournal(path, durability="never") as journal:
        with open(path, "ab") as fh:
            fh.write(b'{"seq":2,"id":"dead writer')
        assert journal.head() == 1  # readers skip it without complaint
        (event,) = journal.append([added("next")])
        assert event.seq == 2
        assert journal.recovery is not None and journal.recovery.kept_head == 1
    assert len(asides(path, "torn")) == 1


def test_two_torn_tails_cut_at_the_same_instant_keep_both_aside_files(path: Path) -> None:
    clock = FakeClock()
    build(path, [1])
    for n in range(2):
        with open(path, "ab") as fh:
            fh.write(b'{"seq":2,"id":"torn number ' + str(n).encode())
        FileJournal(path, clock=clock).close()
    kept = [p.read_bytes() for p in asides(path, "torn")]
    assert sorted(kept) == [b'{"seq":2,"id":"torn number 0', b'{"seq":2,"id":"torn number 1']


def test_lock_free_readers_never_see_half_of_an_append(path: Path) -> None:
    build(path, [1])
    reader = FileJournal(path)
    with FileJournal(path, durability="never") as writer:
        writer.append([added(f"group {i}") for i in range(3)])
    whole = lines(path)
    # Put the file back as a writer mid-append would have it: two of three records.
    path.write_bytes(b"".join(whole[:3]))
    assert reader.head() == 1
    assert [e.seq for e in reader.read()] == [1]
    with open(path, "ab") as fh:
        fh.write(whole[3][:-1])  # the last record, all but its newline
    assert reader.head() == 1
    with open(path, "ab") as fh:
        fh.write(b"\n")
    assert reader.head() == 4
    assert [e.more for e in reader.read()] == [0, 2, 1, 0]
    reader.close()


# -- damage ----------------------------------------------------------------------------------


def test_damage_followed_by_valid_records_refuses_to_open(path: Path) -> None:
    build(path, [1, 1, 1, 1])
    whole = lines(path)
    whole[1] = whole[1].replace(b"append 1", b"append X")
    path.write_bytes(b"".join(whole))
    with pytest.raises(JournalCorrupted) as info:
        FileJournal(path)
    assert (info.value.line, info.value.seq) == (2, 2)
    message = str(info.value)
    assert str(path) in message and "line 2" in message and "seq 2" in message
    assert "hash does not match" in message and "2 more line(s) follow" in message
    assert "memoir repair" in message
    assert path.read_bytes() == b"".join(whole)  # nothing was cut


def test_a_malformed_line_gives_journal_corrupted_with_line_and_seq(path: Path) -> None:
    build(path, [1, 1, 1])
    whole = lines(path)
    whole.insert(1, b"this is not json\n")
    path.write_bytes(b"".join(whole))
    with pytest.raises(JournalCorrupted, match="line 2, seq 2: not a journal record"):
        FileJournal(path)


def test_a_malformed_complete_last_line_is_damage_not_a_torn_tail(path: Path) -> None:
    build(path, [2])
    with open(path, "ab") as fh:
        fh.write(b"garbage typed by hand\n")
    with pytest.raises(JournalCorrupted, match=r"line 3, seq 3: not a journal record.*last line"):
        FileJournal(path)


def test_a_seq_gap_is_damage(path: Path) -> None:
    build(path, [1, 1, 1])
    whole = lines(path)
    path.write_bytes(whole[0] + whole[2])
    with pytest.raises(JournalCorrupted, match="line 2, seq 2: seq 3 where 2 was expected"):
        FileJournal(path)


def test_an_unknown_event_type_names_its_line_and_seq(path: Path) -> None:
    build(path, [1, 1, 1])
    whole = lines(path)
    whole[1] = whole[1].replace(b'"type":"memory.entry_added"', b'"type":"memory.pinned"')
    path.write_bytes(rehash(b"".join(whole)))
    with pytest.raises(UnknownEventType, match=r"line 2: seq 2: unknown event type "
                                               r"'memory.pinned'.*upgrade memoir"):
        FileJournal(path)
    with pytest.raises(UnknownEventType, match="line 2"):
        list(FileJournal(path, recover=False).read())


def test_a_newer_schema_version_is_refused_with_its_line(path: Path) -> None:
    build(path, [1])
    text = path.read_bytes().replace(b'"v":2', b'"v":9')
    path.write_bytes(rehash(text))
    with pytest.raises(UnknownEventType, match=r"line 1: seq 1: .*schema v9 but this memoir "
                                               r"knows up to v2"):
        FileJournal(path)


def test_a_payload_that_does_not_fit_its_schema_names_its_line(path: Path) -> None:
    build(path, [1, 1])
    text = path.read_bytes().replace(b'"target":"memory"', b'"target":"nowhere"', 1)
    path.write_bytes(rehash(text))
    journal = FileJournal(path)  # the envelope and chain are fine
    with pytest.raises(JournalCorrupted, match=r"line 1, seq 1: the payload of "
                                               r"memory\.entry_added v2 does not fit"):
        list(journal.read())
    with pytest.raises(JournalCorrupted, match="line 1"):
        journal.verify()
    journal.close()


@given(data=st.data())
def test_altering_any_byte_of_any_record_fails_verify_naming_its_line(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("tamper") / "journal.jsonl"
    build(path, [1, 3, 1, 2])
    whole = lines(path)
    blob = bytearray(b"".join(whole))
    at = data.draw(st.integers(0, len(blob) - 1), label="offset")
    new = data.draw(st.integers(0, 255).filter(lambda b: b != blob[at]), label="byte")
    blob[at] = new
    path.write_bytes(bytes(blob))
    line = 1 + sum(1 for end in _ends(whole) if end <= at)
    journal = FileJournal(path, recover=False)
    with pytest.raises(JournalCorrupted) as info:
        journal.verify()
    assert info.value.line == line and info.value.seq == line
    with pytest.raises(JournalCorrupted):
        FileJournal(path)
    journal.close()


def _ends(whole: list[bytes]) -> list[int]:
    """The offset just after each line (its newline included)."""
    ends, total = [], 0
    for line in whole:
        total += len(line)
        ends.append(total)
    return ends


def test_a_whole_last_record_followed_by_stray_bytes_is_damage(path: Path) -> None:
    build(path, [1, 1])
    blob = path.read_bytes()
    path.write_bytes(blob[:-1] + b"x")  # the final newline altered
    with pytest.raises(JournalCorrupted, match="line 2, seq 2: a whole record followed by "
                                               "stray bytes"):
        FileJournal(path)


# -- repair ----------------------------------------------------------------------------------


def _marker(journal: FileJournal) -> JournalRepaired:
    (marker,) = [e.data for e in journal.read() if isinstance(e.data, JournalRepaired)]
    return marker


def _ids(journal: FileJournal) -> list[str]:
    return [e.id for e in journal.read() if not isinstance(e.data, JournalRepaired)]


def test_repair_cuts_the_damage_keeps_the_bytes_and_says_so_in_the_journal(path: Path) -> None:
    events = build(path, [1, 1, 2, 1])
    whole = lines(path)
    whole[1] = whole[1].replace(b"record 0", b"record Z")
    path.write_bytes(b"".join(whole))
    journal = FileJournal(path, recover=False)
    report = journal.repair()
    assert report is not None
    # Nothing after the damage can be checked from a trusted record: nothing is kept.
    assert report.kept_head == 1 and report.reappended == () and report.skipped == (2, 3, 4, 5)
    assert report.saved_to is not None
    assert Path(report.saved_to).read_bytes() == b"".join(whole[1:])
    assert Path(report.saved_to).name.startswith("journal.jsonl.cut-")
    assert journal.verify().records == 2
    marker = _marker(journal)
    assert (marker.kept_head, marker.salvaged, marker.left_out) == (1, [], [2, 3, 4, 5])
    assert marker.saved_to == Path(report.saved_to).name
    assert _ids(journal) == [events[0].id]
    journal.close()


def test_repair_salvages_whole_valid_appends_when_asked_and_marks_them(path: Path) -> None:
    events = build(path, [1, 1, 2, 1])
    whole = lines(path)
    whole[1] = whole[1].replace(b"record 0", b"record Z")
    path.write_bytes(b"".join(whole))
    journal = FileJournal(path, recover=False)
    report = journal.repair(salvage=True)
    assert report is not None
    assert report.kept_head == 1 and report.skipped == (2,) and report.reappended == (3, 4, 5)
    assert journal.verify().records == 5
    kept = list(journal.read())
    assert isinstance(kept[1].data, JournalRepaired) and kept[1].actor == "system"
    assert kept[1].data.salvaged == [3, 4, 5]  # original seqs, unverified
    assert [e.id for e in kept[2:]] == [e.id for e in events[2:]]
    assert [e.more for e in kept] == [0, 0, 1, 0, 0]
    assert [(e.data, e.ts, e.actor) for e in kept[2:]] == [(e.data, e.ts, e.actor)
                                                          for e in events[2:]]
    journal.close()
    with FileJournal(path) as reopened:
        assert reopened.head() == 5


def test_a_record_forged_after_damage_is_not_laundered_into_the_chain(path: Path) -> None:
    events = build(path, [1, 1, 1])
    whole = lines(path)
    # Damage record 2, forge record 3 and chain it to what record 2 claims as its hash:
    # nothing in the journal tells the forgery from the original.
    whole[1] = whole[1].replace(b"record 0", b"record Z")
    forged = rehash(whole[0] + whole[1] + whole[2].replace(b"record 0", b"I AM FORGED"))
    forged_line = forged.split(b"\n")[2] + b"\n"
    path.write_bytes(whole[0] + whole[1] + forged_line)
    with FileJournal(path, recover=False) as journal:
        journal.repair()
        assert _ids(journal) == [events[0].id]
        assert not any(b"FORGED" in line for _seq, _offset, line in journal.read_lines())
        journal.verify()


def test_repair_never_splits_an_append_whose_lines_were_swapped(path: Path) -> None:
    build(path, [1, 1, 2, 1])
    whole = lines(path)
    whole[1] = whole[1].replace(b"record 0", b"record Z")
    whole[2], whole[3] = whole[3], whole[2]  # the two records of one append
    path.write_bytes(b"".join(whole))
    with FileJournal(path, recover=False) as journal:
        report = journal.repair(salvage=True)
        assert report is not None and 3 in report.skipped and 4 in report.skipped
        appended = [e for e in journal.read() if not isinstance(e.data, JournalRepaired)]
        assert all(e.seq == 1 or e.more == 0 for e in appended)  # no half append


def test_repair_of_a_sound_journal_changes_nothing(path: Path) -> None:
    build(path, [2, 1])
    before = path.read_bytes()
    with FileJournal(path) as journal:
        assert journal.repair() is None
    assert path.read_bytes() == before
    assert asides(path, "cut") == []


def test_repair_leaves_out_an_append_that_lost_a_record(path: Path) -> None:
    events = build(path, [1, 3, 1])
    whole = lines(path)
    del whole[2]  # the middle record of the 3-record append
    path.write_bytes(b"".join(whole))
    with FileJournal(path, recover=False) as journal:
        report = journal.repair(salvage=True)
        assert report is not None
        assert report.kept_head == 1
        assert report.skipped == (2, 4)
        assert _ids(journal) == [events[0].id, events[4].id]


def test_repair_keeps_the_append_after_a_line_whose_hash_field_was_altered(path: Path) -> None:
    events = build(path, [1, 1, 1])
    whole = lines(path)
    whole[1] = whole[1][:-5] + (b"0" if whole[1][-5:-4] != b"0" else b"1") + whole[1][-4:]
    path.write_bytes(b"".join(whole))
    with FileJournal(path, recover=False) as journal:
        report = journal.repair(salvage=True)
        assert report is not None and report.skipped == (2,)
        assert _ids(journal) == [events[0].id, events[2].id]


def test_repair_does_not_duplicate_a_record_repeated_by_hand(path: Path) -> None:
    events = build(path, [1, 1, 1])
    whole = lines(path)
    whole.insert(2, whole[1])
    path.write_bytes(b"".join(whole))
    with FileJournal(path, recover=False) as journal:
        report = journal.repair(salvage=True)
        assert report is not None and report.skipped == (2,)
        assert _ids(journal) == [e.id for e in events]


def test_repair_refuses_to_drop_a_record_of_an_unknown_type(path: Path) -> None:
    build(path, [1, 1, 1])
    whole = lines(path)
    # Record 3 is sound but of a type a newer memoir wrote; record 1 is damaged.
    whole[2] = whole[2].replace(b'"type":"memory.entry_added"', b'"type":"x.new"')
    broken = rehash(b"".join(whole)).replace(b"record 0", b"record Q", 1)
    path.write_bytes(broken)
    with FileJournal(path, recover=False) as journal, pytest.raises(UnknownEventType,
                                                                     match="line 3"):
        journal.repair()
    assert path.read_bytes() == broken
    assert asides(path, "cut") == []


@given(data=st.data())
@settings(max_examples=30)
def test_repair_never_drops_a_valid_record_silently(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("repair") / "journal.jsonl"
    sizes = data.draw(st.lists(st.integers(1, 3), min_size=2, max_size=8), label="sizes")
    events = build(path, sizes)
    whole = lines(path)
    bad = data.draw(st.integers(0, len(whole) - 2), label="damaged line")
    whole[bad] = data.draw(st.sampled_from([b"\n", b"garbage\n", whole[bad][:-9] + b'"}\n',
                                            whole[bad].replace(b"record", b"RECORD")]))
    path.write_bytes(b"".join(whole))
    with FileJournal(path, recover=False) as journal:
        report = journal.repair(salvage=True)
        assert report is not None
        kept = _ids(journal)
        journal.verify()
    assert len(kept) == len(set(kept))
    accounted = set(kept) | {events[s - 1].id for s in report.skipped}
    assert accounted >= {e.id for e in events} - {events[bad].id}
    assert report.saved_to is not None
    assert Path(report.saved_to).read_bytes() == b"".join(whole[len(whole) - len(
        Path(report.saved_to).read_bytes().splitlines()):])
    # Whole appends only: no append is re-appended without all of its records.
    starts = [sum(sizes[:i]) + 1 for i in range(len(sizes))]
    groups = {e.id: next(s for s in reversed(starts) if s <= e.seq) for e in events}
    by_group: dict[int, int] = {}
    for event_id in kept:
        by_group[groups[event_id]] = by_group.get(groups[event_id], 0) + 1
    assert all(by_group[g] == sizes[starts.index(g)] for g in by_group)


def test_a_journal_object_notices_another_one_repaired_the_file(path: Path) -> None:
    build(path, [1, 1, 1])
    stale = FileJournal(path)
    assert stale.head() == 3
    whole = lines(path)
    path.write_bytes(whole[0] + whole[1].replace(b"record 0", b"record !") + whole[2])
    with FileJournal(path, recover=False) as fixer:
        fixer.repair()
    assert stale.head() == 2
    (event,) = stale.append([added("after the repair")])
    assert event.seq == 3
    stale.close()


# -- retries seen from an anchored journal --------------------------------------------------


@pytest.mark.parametrize("journal_clock", ["2020-01-01T00:00:00+00:00", None])
def test_retry_found_by_scanning_back_from_an_anchor(path: Path, journal_clock: str | None
                                                     ) -> None:
    clock = FakeClock(journal_clock) if journal_clock else None
    drafts = [added("retry me").with_meta(id=new_id())]
    with FileJournal(path, durability="never", clock=clock) as journal:
        journal.append([added("first")])
        original = journal.append(drafts)
        journal.append([added("later")])
        seq, offset, record_hash = journal.position()
    # A journal object that trusts a checkpoint has not read the records before it.
    fresh = FileJournal(path, durability="never", clock=clock, recover=False)
    assert fresh.anchor(seq, offset, record_hash)
    assert fresh.append(drafts) == original
    assert fresh.head() == 3
    fresh.close()


# -- locking and durability ------------------------------------------------------------------


def test_a_held_lock_times_out_with_a_conflict_naming_the_journal(path: Path) -> None:
    build(path, [1])
    journal = FileJournal(path, lock_timeout=0.2)
    with filelock.FileLock(str(path) + ".lock"), pytest.raises(ConflictError,
                                                               match="could not lock"):
        journal.append([added("blocked")])
    journal.close()


def test_always_fsyncs_before_acknowledging(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal = FileJournal(path)
    synced: list[int] = []
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        real_fsync(fd)
        synced.append(os.fstat(fd).st_size)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    for i in range(3):
        journal.append([added(f"durable {i}")])
        assert synced[-1] == path.stat().st_size == journal.synced_offset
    assert len(synced) == 3
    journal.close()


def test_batch_syncs_within_fifty_milliseconds_without_another_append(path: Path) -> None:
    journal = FileJournal(path, durability="batch")
    for i in range(5):
        journal.append([added(f"batched {i}")])
    deadline = time.monotonic() + 2.0
    while journal.synced_offset < path.stat().st_size and time.monotonic() < deadline:
        time.sleep(0.01)
    assert journal.synced_offset == path.stat().st_size
    journal.close()


def test_never_leaves_syncing_to_flush(path: Path) -> None:
    journal = FileJournal(path, durability="never")
    journal.append([added("volatile")])
    assert journal.synced_offset == 0
    journal.flush()
    assert journal.synced_offset == path.stat().st_size
    journal.close()


def test_expect_untouched_refuses_a_bare_string() -> None:
    with pytest.raises(TypeError, match="not a str"):
        ExpectUntouched("memory:user", after=0)  # type: ignore[arg-type]
