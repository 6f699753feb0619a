"""Reading a journal file: what one object knows of it (:class:`FileReader`), its
committed records read and checked as other processes append, a sparse index so reads
start mid-file, and the reads that start from the file's end.  Appending, syncing and
recovery are :class:`~memoir.journal.file.appending.JournalFile`'s."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

from memoir.clock import Clock, SystemClock
from memoir.errors import ConflictError, JournalCorrupted, JournalError
from memoir.events.codec import Decoder, RawRecord, hash_of_line
from memoir.events.types import Event
from memoir.fs.locking import LockTimeout, ProcessLock
from memoir.journal.file.retry import RecentIds
from memoir.journal.file.scan import Scanner, Tail
from memoir.journal.file.tombstones import read_forgotten
from memoir.journal.interface import Position, Progress, StoredLine, VerifyReport
from memoir.logs import get_logger

__all__ = ["INDEX_EVERY", "FileReader"]

log = get_logger("memoir.journal")

# Every this many records the sparse index keeps a position, so a read can start mid-file.
INDEX_EVERY = 4096


class FileReader:
    """What one object knows of a journal file: its committed records, read and checked.

    It follows the file as other processes append (:meth:`_advance`), keeps a sparse
    index so reads can start mid-file and the ids of the latest records (for retries),
    and answers reads without taking the append lock.  :class:`JournalFile` adds
    appending, syncing and recovery.
    """

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
        self._scanner.forgotten = read_forgotten(self.path)
        self._tail = Tail()
        # seq -> the position just before it; sparse, so a read can start mid-file.
        self._index: dict[int, Tail] = {1: Tail()}
        self._ids = RecentIds()
        # True while this object holds the lock and has read every record in the file.
        self._settled = False
        # Set by a failed fsync (see memoir.journal.file.sync): no lock is taken any more.
        self._broken: JournalError | None = None
        # The process that opened the file: its lock and descriptors are not a forked
        # child's (both would think they hold the lock and interleave appends).
        self._pid = os.getpid()

    def fileno(self) -> int:
        """The descriptor of the journal file (-1 once closed)."""
        return self._fd

    @property
    def scanner(self) -> Scanner:
        return self._scanner

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
            if seq % INDEX_EVERY == 1:
                group_index.append((seq, before))
            group_ids.append((rec.id, seq))
            if more == 0 or seq % INDEX_EVERY == 0:
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

    def _span(self, after: int, until: int | None) -> tuple[Tail, Tail, int]:
        """Where a read after ``after`` starts (an indexed position at or before it),
        the tail it reads to, and the last seq it yields."""
        with self._mutex:
            self._advance()
            tail = self._tail
            start = self._index[max((s for s in self._index if s <= max(after, 0) + 1),
                                    default=1)]
        return start, tail, tail.seq if until is None else min(until, tail.seq)

    def _records(self, after: int, until: int | None
                 ) -> Iterator[tuple[RawRecord, bytes, int]]:
        start, tail, stop = self._span(after, until)
        if after >= stop:
            return
        for rec, line, end in self._scanner.scan(start, tail.offset):
            seq = rec.seq
            if seq > stop:
                return
            if seq % INDEX_EVERY == 0 and seq + 1 not in self._index:
                # Positions seen while reading are remembered as while opening, so a
                # later read (or a memory snapshot) can start there.
                with self._mutex:
                    self._index[seq + 1] = Tail(seq, end, hash_of_line(line), rec.more)
            if seq > after:
                yield rec, line, end

    def read(self, after: int = 0, until: int | None = None) -> Iterator[Event]:
        for rec, _line, _end in self._records(after, until):
            yield self._scanner.event(rec)

    def position_after(self, seq: int) -> Position | None:
        with self._mutex:
            known = self._index.get(seq + 1)
        if known is None or known.seq != seq or known.more != 0 or seq <= 0:
            return None
        return Position(seq, known.offset, known.hash.decode())

    def read_family(self, prefix: str, after: int = 0, until: int | None = None
                    ) -> Iterator[Event]:
        for rec, _line, _end in self._records(after, until):
            if rec.type.startswith(prefix):
                yield self._scanner.event(rec)

    def _end_tail(self) -> Tail:
        """The end of the last complete append, found from the end of the file (no
        forward scan): bytes after the last newline are a write in progress or torn, and
        trailing records with ``more`` > 0 belong to an append not finished yet."""
        return self._scanner.last_append_end(self._size())

    def end(self) -> Tail:
        """The position just after the last complete append, found from the end of the
        file (no forward scan); start :meth:`read_since` from it to follow new appends."""
        with self._mutex:
            return self._end_tail()

    def file_end(self) -> Position:
        end = self.end()
        return Position(end.seq, end.offset, end.hash.decode())

    def read_since(self, position: Tail) -> tuple[list[Event], Tail]:
        """The events of the appends completed after ``position`` (an :meth:`end`, or
        what the last call returned), checked against the hash chain, and the position
        after them.  Costs what was appended, not the journal's length: this is how
        ``memoir log --follow`` waits for new events."""
        with self._mutex:
            tail = self._end_tail()
        return self._scanner.appended_since(position, tail), tail

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

    def read_lines(self, after: int = 0, until: int | None = None, *,
                   checked: bool = True) -> Iterator[StoredLine]:
        """The lines with their byte offsets (see :class:`LineAccess`); unchecked, the
        committed lines as they are, ten times faster."""
        if not checked:
            start, tail, stop = self._span(after, until)
            yield from self._scanner.stored_lines(start, tail.offset, after, stop)
            return
        for rec, line, end in self._records(after, until):
            yield StoredLine(rec.seq, end - len(line) - 1, line)

    def anchor(self, seq: int, offset: int, record_hash: str) -> bool:
        """Check that the record ending at byte ``offset`` is ``seq`` with ``record_hash``.

        Used to validate a checkpoint without reading the journal before it.  On
        success the position is remembered so reads after ``seq`` start there.
        """
        if seq == 0:
            return offset == 0 and record_hash == ""
        if offset <= 0 or offset > self._size():
            return False
        found = self._scanner.record_ending_at(offset)
        if found is None:
            return False
        rec, line = found
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




