"""The file journal: append-only JSONL with a hash chain.

Appends run under a cross-process lock (``filelock``) across catch-up → expectation
check → one write of every record of the append → fsync → release.  Readers need no
lock: they stop at the last complete append (a record whose ``more`` is 0), so they
never see half of one.

What a crash can leave, and what is done about it:

* A writer that dies mid-append leaves a *prefix* of its one write: whole records of
  an append whose last record is missing, and maybe a final line without its newline.
  That tail was never acknowledged; the next writer (or opening the journal) cuts it
  off under the lock, saves the cut bytes beside the journal as
  ``journal.jsonl.torn-…`` and logs a warning.
* Anything else — a complete line that does not decode, a broken hash chain, a gap in
  the seqs, a record followed by stray bytes — no crash produces.  The journal refuses
  to open with :class:`JournalCorrupted` naming the file, line and seq;
  :meth:`FileJournal.repair` cuts the damage (keeping the bytes) and re-appends the
  valid appends found after it.

Reading and checking records is :mod:`memoir.journal.scan`; what repair keeps of the
bytes it cuts is :mod:`memoir.journal.recovery`.  See ``docs/journal.md`` for the format.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from memoir.clock import Clock, SystemClock
from memoir.errors import (
    ConflictError,
    JournalCorrupted,
    JournalError,
    JournalLost,
    ValidationError,
)
from memoir.events.codec import Decoder, RawRecord, hash_of_line
from memoir.events.maintenance import JournalRepaired
from memoir.events.types import Draft, Event
from memoir.journal.interface import (
    Durability,
    Expectation,
    Journal,
    JournalWriter,
    Position,
    Progress,
    RecoveryReport,
    VerifyReport,
    check_expectation,
    mint_records,
    retried_span,
)
from memoir.journal.locking import LockTimeout, ProcessLock
from memoir.journal.recovery import salvage, save_aside
from memoir.journal.retry import RecentIds
from memoir.journal.scan import BAD_LINE, Scanner, Tail
from memoir.journal.sync import Syncer
from memoir.logs import get_logger

__all__ = ["FileJournal", "FileReader"]

log = get_logger("memoir.journal")

# Every this many records the sparse index keeps a position, so a read can start mid-file.
_INDEX_EVERY = 4096


class FileReader(Journal):
    """What one object knows of a journal file: its committed records, read and checked.

    It follows the file as other processes append (:meth:`_advance`), keeps a sparse
    index so reads can start mid-file and the ids of the latest records (for retries),
    and answers reads without taking the append lock.  :class:`FileJournal` adds
    appending, syncing and recovery.
    """

    persistent = True

    def __init__(self, path: str | os.PathLike[str], *, clock: Clock | None = None,
                 lock_timeout: float = 60.0, readonly: bool = False) -> None:
        self.path = Path(path)
        self.clock = clock or SystemClock()
        self.lock_timeout = lock_timeout
        self.readonly = readonly
        self._decoder = Decoder()
        self._mutex = threading.RLock()
        self._scanner = Scanner(self.path, self._decoder)
        self._flock = ProcessLock(str(self.path) + ".lock", readonly=readonly)
        if readonly:
            self._fd = os.open(self.path, os.O_RDONLY)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        self._scanner.fd = self._fd
        self._tail = Tail()
        # seq -> the position just before it; sparse, so a read can start mid-file.
        self._index: dict[int, Tail] = {1: Tail()}
        self._ids = RecentIds()
        # True while this object holds the lock and has read every record in the file.
        self._settled = False
        # Set by a failed fsync (see memoir.journal.sync): no lock is taken any more.
        self._broken: JournalError | None = None
        # The process that opened the file: its lock and descriptors are not a forked
        # child's (both would think they hold the lock and interleave appends).
        self._pid = os.getpid()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r})"

    def fileno(self) -> int:
        """The descriptor of the journal file (-1 once closed)."""
        return self._fd

    def _writable(self) -> None:
        if self.readonly:
            raise JournalError(f"{self.path} is open read-only; nothing can be appended, "
                               "cut or repaired through this handle")

    def _acquire(self) -> None:
        if self._broken is not None:
            raise self._broken
        if os.getpid() != self._pid:
            raise JournalError(
                f"{self.path} was opened by process {self._pid}; this is a forked child "
                f"(process {os.getpid()}): open the home again in the child "
                "(memoir.open), a handle does not cross fork()")
        try:
            self._flock.acquire(timeout=self.lock_timeout)
        except LockTimeout:
            raise ConflictError(
                f"could not lock {self.path} within {self.lock_timeout:g}s; another "
                "process holds it (a stuck writer?)", head=self._tail.seq,
            ) from None

    # -- reading ---------------------------------------------------------------------------

    def _size(self) -> int:
        return os.fstat(self._fd).st_size

    def _advance(self) -> int | None:
        """Catch the tail up with what other processes appended; the file size seen, if
        it was read."""
        if self._settled:
            return None  # under our own lock, caught up: nobody else can have appended
        try:
            return self._advance_once()
        except JournalCorrupted:
            if self._flock.is_locked:
                raise
            # Without the lock, a read can straddle a torn tail being cut and rewritten
            # by another process; damage is only real if it is still there under the lock.
            self._acquire()
            try:
                return self._advance_once()
            finally:
                self._flock.release()

    def _advance_once(self) -> int:
        end = self._size()
        if end < self._tail.offset:
            # Only `repair` shortens a journal below a committed record; start over.
            log.warning("journal.shrank", journal=str(self.path), size=end,
                        known_offset=self._tail.offset)
            self._forget()
        if end == self._tail.offset:
            return end
        # Bookkeeping per append, not per record: opening a journal runs this for all.
        group_ids: list[tuple[str, int]] = []
        group_index: list[tuple[int, Tail]] = []
        before = self._tail  # the position before the record being looked at
        for rec, line, after in self._scanner.scan(self._tail, end):
            seq, more = rec.seq, rec.more
            if seq % _INDEX_EVERY == 1:
                group_index.append((seq, before))
            group_ids.append((rec.id, seq))
            if more == 0 or seq % _INDEX_EVERY == 0:
                before = Tail(seq, after, hash_of_line(line), more)
            if more == 0:
                self._ids.update(group_ids)
                self._index.update(group_index)
                self._tail = before
                group_ids.clear()
                group_index.clear()
        return end

    def _forget(self) -> None:
        self._settled = False
        self._tail = Tail()
        self._index = {1: Tail()}
        self._ids.forget()

    def caught_up_to(self, seq: int) -> bool:
        """True when this object holds the lock, has read the whole file, and ``seq`` is
        its last record: nothing new can be there to read (a cheap check, no I/O)."""
        return self._settled and self._tail.seq == seq

    def head(self) -> int:
        with self._mutex:
            self._advance()
            return self._tail.seq

    def head_hash(self) -> str:
        with self._mutex:
            self._advance()
            return self._tail.hash.decode()

    def _records(self, after: int, until: int | None) -> Iterator[tuple[RawRecord, bytes]]:
        with self._mutex:
            self._advance()
            tail = self._tail
            best = max((s for s in self._index if s <= max(after, 0) + 1), default=1)
            start = self._index[best]
        stop = tail.seq if until is None else min(until, tail.seq)
        if after >= stop:
            return
        for rec, line, end in self._scanner.scan(start, tail.offset):
            seq = rec.seq
            if seq > stop:
                return
            if seq % _INDEX_EVERY == 0 and seq + 1 not in self._index:
                # Positions seen while reading are remembered as while opening, so a
                # later read (or a memory snapshot) can start there.
                with self._mutex:
                    self._index[seq + 1] = Tail(seq, end, hash_of_line(line), rec.more)
            if seq > after:
                yield rec, line

    def read(self, after: int = 0, until: int | None = None) -> Iterator[Event]:
        for rec, _line in self._records(after, until):
            yield self._scanner.event(rec)

    def position_after(self, seq: int) -> Position | None:
        with self._mutex:
            known = self._index.get(seq + 1)
        if known is None or known.seq != seq or known.more != 0 or seq <= 0:
            return None
        return Position(seq, known.offset, known.hash.decode())

    def read_family(self, prefix: str, after: int = 0, until: int | None = None
                    ) -> Iterator[Event]:
        for rec, _line in self._records(after, until):
            if rec.type.startswith(prefix):
                yield self._scanner.event(rec)

    def _end_tail(self) -> Tail:
        """The end of the last complete append, found from the end of the file (no
        forward scan): bytes after the last newline are a write in progress or torn, and
        trailing records with ``more`` > 0 belong to an append not finished yet."""
        size = self._size()
        look = min(size, 1 << 16)
        while look:
            blob = os.pread(self._fd, look, size - look)
            cut = blob.rfind(b"\n")
            if cut >= 0:
                end = size - look + cut + 1
                break
            if look == size:
                return Tail()
            look = min(size, look * 4)
        else:
            return Tail()
        for line, start in self._scanner.lines_backwards(end):
            try:
                rec = self._decoder.envelope(line)
            except BAD_LINE:
                raise JournalCorrupted("the last record is not valid (memoir verify names "
                                       "the damage)", path=str(self.path)) from None
            if rec.more == 0:
                return Tail(rec.seq, start + len(line) + 1, hash_of_line(line), 0)
        return Tail()

    def end(self) -> Tail:
        """The position just after the last complete append, found from the end of the
        file (no forward scan); start :meth:`read_since` from it to follow new appends."""
        with self._mutex:
            return self._end_tail()

    def read_since(self, position: Tail) -> tuple[list[Event], Tail]:
        """The events of the appends completed after ``position`` (an :meth:`end`, or
        what the last call returned), checked against the hash chain, and the position
        after them.  Costs what was appended, not the journal's length: this is how
        ``memoir log --follow`` waits for new events."""
        with self._mutex:
            tail = self._end_tail()
        if tail.offset < position.offset or (tail.offset == position.offset
                                             and tail.seq != position.seq):
            raise JournalCorrupted(
                f"the journal changed under this reader (it was at record {position.seq}, "
                f"byte {position.offset}; the file now ends at record {tail.seq}): it was "
                "repaired or replaced; read it again", path=str(self.path))
        if tail.offset == position.offset:
            return [], position
        events = [self._scanner.event(rec) for rec, _line, _after
                  in self._scanner.scan(position, tail.offset)]
        return events, tail

    def tail_seq(self) -> int:
        """The last complete append's seq, found from the end of the file; bytes after
        it (a torn write, or one in progress) are reported as on opening, not judged."""
        with self._mutex:
            tail = self._end_tail()
            if self._size() > tail.offset:
                log.warning("journal.torn_tail_found", journal=str(self.path),
                            bytes=self._size() - tail.offset,
                            why="an incomplete append at the end: a writer died mid-append "
                                "(cut by the next writer) or is writing now")
            return tail.seq

    def read_reverse(self, after: int = 0, until: int | None = None) -> Iterator[Event]:
        """Newest first, read from the end of the file: the last records of a long
        journal cost only their own bytes, even when nothing of it was read before.
        Each record is checked against the chain from the last complete append down."""
        with self._mutex:
            tail = self._end_tail()
            if tail.seq < self._tail.seq:  # shrank under us (a repair): read it afresh
                self._advance()
                tail = self._tail
        stop = tail.seq if until is None else min(until, tail.seq)
        if after >= stop:
            return
        for rec in self._scanner.backwards(tail, after, stop):
            yield self._scanner.event(rec)

    def read_lines(self, after: int = 0, until: int | None = None) -> Iterator[tuple[int, bytes]]:
        """The raw verified lines (seq, bytes) — for tools that print the journal as is."""
        for rec, line in self._records(after, until):
            yield rec.seq, line

    def anchor(self, seq: int, offset: int, record_hash: str) -> bool:
        """Check that the record ending at byte ``offset`` is ``seq`` with ``record_hash``.

        Used to validate a checkpoint without reading the journal before it.  On
        success the position is remembered so reads after ``seq`` start there.
        """
        if seq == 0:
            return offset == 0 and record_hash == ""
        if offset <= 0 or offset > self._size():
            return False
        look = min(offset, 1 << 20)
        blob = os.pread(self._fd, look, offset - look)
        if not blob.endswith(b"\n"):
            return False
        line = blob[:-1].rsplit(b"\n", 1)[-1]
        try:
            rec = self._decoder.envelope(line)
        except BAD_LINE:
            return False
        if rec.seq != seq or hash_of_line(line) != record_hash.encode() or rec.more != 0:
            return False
        with self._mutex:
            here = Tail(seq, offset, record_hash.encode(), 0)
            if self._tail.seq < seq:
                self._tail = here
                self._ids.start_after(seq)
            self._index[seq + 1] = here
        return True

    def position(self) -> Position:
        """(seq, byte offset after it, its hash) of the last committed record."""
        with self._mutex:
            self._advance()
            return Position(self._tail.seq, self._tail.offset, self._tail.hash.decode())

    def _remember(self, events: Sequence[Event], lines: Sequence[bytes], start: int) -> None:
        """Move the tail past records just written (one update, not one per record)."""
        offset = start
        before = self._tail  # the position just before the next indexed record
        for event, line in zip(events, lines, strict=True):
            if event.seq % _INDEX_EVERY == 1:
                self._index[event.seq] = before
            offset += len(line) + 1
            if event.seq % _INDEX_EVERY == 0:
                before = Tail(event.seq, offset, event.hash.encode(), event.more)
        last = events[-1]
        self._tail = Tail(last.seq, offset, last.hash.encode(), last.more)
        self._ids.update((e.id, e.seq) for e in events)

    def verify(self, progress: Progress | None = None) -> VerifyReport:
        """Check every record: the hash chain, the seqs, the appends, every payload's schema.

        Bytes after the last complete append (a writer mid-append, or the torn tail
        of one that died) are reported as ``pending_bytes``, not judged.
        """
        with self._mutex:
            self._advance()
            try:
                return self._scanner.verify(progress)
            except JournalCorrupted:
                if self._flock.is_locked:
                    raise
                # As in _advance: a lock-free read may straddle a torn tail being cut.
                self._acquire()
                try:
                    return self._scanner.verify(progress)
                finally:
                    self._flock.release()

    def _close_fd(self) -> None:
        os.close(self._fd)
        self._fd = self._scanner.fd = -1




class FileJournal(FileReader):
    """A JSONL file journal, safe for many threads and processes appending at once.

    ``durability``: ``always`` fsyncs every append before acknowledging it;
    ``batch`` fsyncs at most 50 ms after an append (a crash may lose the appends of
    the last 50 ms); ``never`` leaves it to the OS (tests, throwaway homes).

    Opening reads the whole file once: it checks every record's hash and refuses a
    damaged journal (:class:`JournalCorrupted`), and cuts a torn tail.  Pass
    ``recover=False`` to skip that (``memoir repair`` opens a journal that way), or
    ``scan=False`` to defer it: then :meth:`anchor` a checkpoint and call :meth:`recover`,
    which checks only the records after the checkpoint (how a home opens fast).
    ``readonly``: open the file to read only; appends, cuts and repairs are refused (a
    torn tail is reported, not cut), and nothing is created.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        durability: Durability = "always",
        clock: Clock | None = None,
        lock_timeout: float = 60.0,
        recover: bool = True,
        scan: bool = True,
        readonly: bool = False,
    ) -> None:
        super().__init__(path, clock=clock, lock_timeout=lock_timeout, readonly=readonly)
        self.durability: Durability = durability
        self._syncer = Syncer(self.path, durability, self._mutex)
        self._syncer.fd = self._fd
        # Records minted under the lock but not yet written (see JournalWriter.stage).
        self._staged_lines: list[bytes] = []
        self._staged_events: list[Event] = []
        self.recovery: RecoveryReport | None = None
        if recover and scan:
            try:
                self._open()
            except BaseException:
                self._close_fd()
                raise

    def __repr__(self) -> str:
        return f"FileJournal({str(self.path)!r}, durability={self.durability!r})"

    # -- appending ---------------------------------------------------------------------------

    def locked(self) -> AbstractContextManager[JournalWriter]:
        return self._locked()

    @contextmanager
    def quiet(self) -> Iterator[None]:
        # flock works on a read-only descriptor too: a reader can wait for writers.
        with self._mutex:
            self._acquire()
            try:
                self._advance()
                yield
            finally:
                self._flock.release()

    @contextmanager
    def _locked(self) -> Iterator[JournalWriter]:
        self._writable()
        with self._mutex:
            self._acquire()
            try:
                self._catch_up_locked()
                yield _FileWriter(self)
            finally:
                self._unlock()

    def _unlock(self) -> None:
        # Staged records nobody wrote (the caller failed) are dropped, unwritten.
        self._staged_lines = []
        self._staged_events = []
        if self._flock.lock_count == 1:
            self._settled = False
        self._flock.release()

    def append(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        """Append ``drafts`` atomically: lock, catch up, check, one write, fsync, unlock.

        The same steps as ``with locked() as w: w.append(...)``, without the context
        manager and writer objects (a durable single-event append is latency-bound).
        """
        self._writable()
        with self._mutex:
            self._acquire()
            try:
                self._catch_up_locked()
                events = self._stage(drafts, expect)
                self._write_staged(True)
                return events
            finally:
                self._unlock()

    def _catch_up_locked(self) -> None:
        """Under the lock: read what others appended and cut a torn tail left by a crash."""
        size = self._advance()
        if size is None:
            size = self._size()
        if size > self._tail.offset:
            self._cut_tail(size)
        self._settled = True

    def _stage(self, drafts: Sequence[Draft], expect: Expectation | None) -> list[Event]:
        """Mint ``drafts`` as one append after what is staged; written by :meth:`_write_staged`."""
        if not drafts:
            return []
        given = [d.id for d in drafts if d.id]
        if given:
            if len(set(given)) != len(given):
                raise ValidationError("an append lists the same event id twice")
            if not set(given).isdisjoint(e.id for e in self._staged_events):
                raise ValidationError("an append repeats event ids staged in the same write")
            existing = self._ids.find(given, self.clock,
                                      self._scanner.read_backwards(self._tail.offset))
            if existing:
                return self._replay_retry(drafts, existing)
        tail = self._staged_tail()
        check_expectation(self, tail[0], expect, pending=self._staged_events)
        lines, events = mint_records([drafts], tail, self.clock)
        self._staged_lines += lines
        self._staged_events += events
        return events

    def _replay_retry(self, drafts: Sequence[Draft], existing: dict[str, int]) -> list[Event]:
        first = retried_span(drafts, existing)
        return list(self.read(after=first - 1, until=first + len(drafts) - 1))

    def _staged_tail(self) -> tuple[int, bytes]:
        if self._staged_events:
            last = self._staged_events[-1]
            return last.seq, last.hash.encode()
        return self._tail.seq, self._tail.hash

    def _write_staged(self, sync: bool) -> int | None:
        lines, events = self._staged_lines, self._staged_events
        self._staged_lines, self._staged_events = [], []
        if not lines:
            return None
        if sync or self.durability != "always":
            self._write_lines(lines, events)
            return None
        self._write_lines(lines, events, sync=False)
        # Keep the lock past the caller's `locked()` block, until sync_to() has run.
        self._flock.acquire(timeout=self.lock_timeout)
        return self._tail.offset

    def sync_to(self, offset: int) -> None:
        """Make the journal durable up to ``offset`` (from ``write(sync=False)``), then
        drop the lock that write kept.

        Syncs running at the same time share fsyncs.  A failed fsync leaves the journal
        unusable: this and every later append raise :class:`JournalError`, and the home
        must be opened again, which recovers (see :mod:`memoir.journal.sync`).
        """
        try:
            self._syncer.sync_to(offset, lambda: self._tail.offset)
        finally:
            self._broken = self._syncer.broken
            with self._mutex:
                if self._flock.lock_count == 1:
                    self._settled = False
                self._flock.release()

    def _write_lines(self, lines: list[bytes], events: Sequence[Event], *,
                     sync: bool = True) -> None:
        """One write of ``lines`` at the tail, then the sync the policy asks for."""
        lines.append(b"")
        blob = b"\n".join(lines)
        del lines[-1]
        start = self._tail.offset
        try:
            view = memoryview(blob)
            while view:
                view = view[os.write(self._fd, view) :]
            if sync:
                self._syncer.after_write(start + len(blob))
        except BaseException:
            # Leave no partial append behind for this process; a crash is handled on open.
            os.ftruncate(self._fd, start)
            raise
        self._remember(events, lines, start)

    @property
    def synced_offset(self) -> int:
        """Bytes known to be on stable storage (what survives a power cut)."""
        return self._syncer.synced_offset

    def flush(self) -> None:
        """fsync now, whatever the durability policy."""
        with self._mutex:
            self._syncer.now()

    # -- recovery and maintenance --------------------------------------------------------------

    def recover(self, *, acknowledged: int = 0) -> RecoveryReport | None:
        """Check the records after the known position and cut a torn tail if there is one.

        For a journal opened with ``scan=False``: call it after :meth:`anchor` (when a
        checkpoint vouches for the prefix), so only the records after the checkpoint are
        read and hash-checked on open.  Returns what was cut (None: nothing).
        ``acknowledged``: a seq the caller knows was acknowledged; a journal ending
        before it lost records, and a torn tail is then not cut (JournalError).
        """
        with self._mutex:
            before = self.recovery
            self._open(acknowledged)
            return self.recovery if self.recovery is not before else None

    def _open(self, acknowledged: int = 0) -> None:
        """Check the file from the known position, and cut a torn tail under the lock."""
        self._advance()
        if self._size() != self._tail.offset:
            if self._tail.seq < acknowledged:
                raise JournalLost(
                    self.path, self._tail.seq, acknowledged,
                    detail=f"ends with an incomplete record after seq {self._tail.seq} (not "
                           "a crash mid-append: nothing was cut)")
            if self.readonly:
                log.warning("journal.torn_tail_found", journal=str(self.path),
                            bytes=self._size() - self._tail.offset,
                            why="read-only: it is cut by the next writer")
                return
            with self.locked():
                pass
        if not self.readonly:
            self._syncer.opened(self._size())

    def _cut_tail(self, size: int) -> RecoveryReport:
        # We hold the lock, so no live writer is mid-append: the bytes after the last
        # complete append belong to a writer that died before acknowledging them.
        # _advance scanned them without complaint, so they are a torn prefix of one
        # append (see Scanner.scan), never damage.
        keep = self._tail.offset
        torn = [rec.seq for rec, _line, _after in self._scanner.scan(self._tail, size)]
        cut = os.pread(self._fd, size - keep, keep)
        aside = save_aside(self.path, cut, f"torn-{self._stamp()}-after-{self._tail.seq}")
        os.ftruncate(self._fd, keep)
        os.fsync(self._fd)
        self._syncer.cut(keep)
        report = RecoveryReport(cut_bytes=len(cut), saved_to=str(aside),
                                kept_head=self._tail.seq, skipped=tuple(torn))
        log.warning(
            "journal.torn_tail_cut", journal=str(self.path), cut_bytes=len(cut),
            whole_records_cut=len(torn), saved_to=str(aside), head=self._tail.seq,
            why="a writer died mid-append; that append was never acknowledged",
        )
        self.recovery = report
        return report

    def _stamp(self) -> str:
        return self.clock.now().strftime("%Y%m%dT%H%M%S%fZ")

    def repair(self, *, salvage: bool = False) -> RecoveryReport | None:
        """Cut the first damaged record and everything after it, keeping the cut bytes
        beside the journal (``journal.jsonl.cut-…``), and append a ``journal.repaired``
        record saying so.  Returns None if the journal was sound.

        Records after the damage cannot be checked against the trusted part of the
        chain (anyone can re-hash a forged record that follows a damaged one), so they
        are not kept by default.  ``salvage``: re-append the whole, valid appends found
        in the cut bytes (same ids, payloads and metadata; new seqs and hashes) right
        after the ``journal.repaired`` record, which lists them as unverified.  Records
        that are damaged, out of order, part of an append that lost a record, or already
        in the kept part are never re-appended; their original seqs are in ``skipped``.
        A record of an event type this memoir does not know stops the repair
        (UnknownEventType): it may be valid, so upgrade memoir first.  Other processes
        should close the journal while it is repaired.
        """
        self._writable()
        with self._mutex:
            self._acquire()
            try:
                return self._repair_locked(salvage)
            finally:
                self._flock.release()

    def _repair_locked(self, salvage_records: bool) -> RecoveryReport | None:
        size = self._size()
        kept = Tail()
        known: set[str] = set()
        group: list[str] = []
        try:
            for rec, line, after in self._scanner.scan(Tail(), size):
                self._scanner.event(rec)
                group.append(rec.id)
                if rec.more == 0:
                    kept = Tail(rec.seq, after, hash_of_line(line))
                    known.update(group)
                    group.clear()
        except JournalCorrupted:
            pass
        if kept.offset == size:
            return None
        cut = os.pread(self._fd, size - kept.offset, kept.offset)
        appends, skipped = salvage(self._decoder, self.path, cut, kept, known)
        if not salvage_records:
            skipped = sorted(skipped + [e.seq for append in appends for e in append])
            appends = []
        aside = save_aside(self.path, cut, f"cut-{self._stamp()}-after-{kept.seq}")
        os.ftruncate(self._fd, kept.offset)
        os.fsync(self._fd)
        self._syncer.cut(kept.offset)
        self._forget()
        self._advance()
        marker = Draft(actor="system", data=JournalRepaired(
            cut_bytes=len(cut), kept_head=kept.seq, saved_to=aside.name,
            salvaged=[e.seq for append in appends for e in append], left_out=list(skipped),
            reason="damaged record after seq " + str(kept.seq)))
        drafts = [[marker]] + [
            [Draft(data=e.data, actor=e.actor, session=e.session, run=e.run,
                   causation=e.causation, meta=e.meta, id=e.id, ts=e.ts) for e in append]
            for append in appends
        ]
        lines, minted = mint_records(drafts, (self._tail.seq, self._tail.hash), self.clock)
        self._write_lines(lines, minted)
        written = minted[1:]
        if self.durability == "never":
            self._syncer.now()  # a repair is worth one fsync whatever the policy
        report = RecoveryReport(
            cut_bytes=len(cut), saved_to=str(aside), kept_head=kept.seq,
            reappended=tuple(e.seq for e in written), skipped=tuple(skipped),
        )
        log.warning("journal.repaired", journal=str(self.path), cut_bytes=len(cut),
                    saved_to=str(aside), kept_head=kept.seq, reappended=len(written),
                    skipped=list(skipped))
        return report

    def close(self) -> None:
        with self._mutex:
            if self._fd < 0:
                return
            self._syncer.close()
            self._syncer.fd = -1
            self._close_fd()
            self._flock.close()

class _FileWriter(JournalWriter):
    def __init__(self, journal: FileJournal) -> None:
        self._journal = journal

    @property
    def head(self) -> int:
        return self._journal._staged_tail()[0]

    def stage(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        return self._journal._stage(drafts, expect)

    def write(self, *, sync: bool = True) -> int | None:
        return self._journal._write_staged(sync)
