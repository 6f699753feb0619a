"""The journal interface and the file journal: append-only JSONL with a hash chain.

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

See ``docs/journal.md`` for the format.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Literal, NamedTuple

import msgspec
import structlog

from memoir.clock import Clock, SystemClock, format_ts
from memoir.errors import (
    ConflictError,
    JournalCorrupted,
    JournalError,
    UnknownEventType,
    ValidationError,
)
from memoir.events.codec import (
    GENESIS,
    HASH_HEX,
    Decoder,
    RawRecord,
    encode_record,
    hash_of_line,
    line_hash_ok,
)
from memoir.events.interface import (
    Expectation,
    ExpectHead,
    ExpectUntouched,
    Journal,
    JournalWriter,
    RecoveryReport,
    VerifyReport,
    check_expectation,
    mint,
)
from memoir.events.locking import LockTimeout, ProcessLock
from memoir.events.types import Draft, Event, Payload
from memoir.ids import id_time_ms

__all__ = [
    "Durability",
    "ExpectHead",
    "ExpectUntouched",
    "Expectation",
    "FileJournal",
    "Journal",
    "JournalWriter",
    "RecoveryReport",
    "VerifyReport",
    "check_expectation",
    "mint",
]

log = structlog.get_logger("memoir.journal")

Durability = Literal["always", "batch", "never"]
_BATCH_SYNC_SECONDS = 0.05
_CHUNK = 4 << 20
_INDEX_EVERY = 4096
# How many of the latest event ids a journal object keeps in memory to recognise a
# retried append without reading the file.
_RECENT_IDS = 100_000
# A retried append is looked for among records written since its ids were minted,
# minus this much, to allow for clocks of different processes disagreeing a little.
_RETRY_SKEW_MS = 5 * 60 * 1000
# The end of a complete record: its hash field (always last, fixed width).
_RECORD_END = re.compile(rb'"hash":"[0-9a-f]{32}"}')
# msgspec reports invalid UTF-8 with the builtin error, not its own.
_BAD_LINE = (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError)


class _Tail(NamedTuple):
    """A position in the file: just after record ``seq``, whose hash and ``more`` are given."""

    seq: int = 0
    offset: int = 0
    hash: bytes = GENESIS
    more: int = 0


class FileJournal(Journal):
    """A JSONL file journal, safe for many threads and processes appending at once.

    ``durability``: ``always`` fsyncs every append before acknowledging it;
    ``batch`` fsyncs at most 50 ms after an append (a crash may lose the appends of
    the last 50 ms); ``never`` leaves it to the OS (tests, throwaway homes).

    Opening reads the whole file once: it checks every record's hash and refuses a
    damaged journal (:class:`JournalCorrupted`), and cuts a torn tail.  Pass
    ``recover=False`` to skip that (``memoir repair`` opens a journal that way), or
    ``scan=False`` to defer it: then :meth:`anchor` a checkpoint and call :meth:`recover`,
    which checks only the records after the checkpoint (how a home opens fast).
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
    ) -> None:
        self.path = Path(path)
        self.durability: Durability = durability
        self.clock = clock or SystemClock()
        self.lock_timeout = lock_timeout
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._decoder = Decoder()
        self._mutex = threading.RLock()
        self._flock = ProcessLock(str(self.path) + ".lock")
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        self._tail = _Tail()
        # seq -> the position just before it; sparse, so a read can start mid-file.
        self._index: dict[int, _Tail] = {1: _Tail()}
        self._recent_ids: dict[str, int] = {}
        # Every record from this seq to the tail has its id in _recent_ids.
        self._ids_from = 1
        self._last_sync = time.monotonic()
        self._unsynced = False
        self._timer: threading.Timer | None = None
        self._synced_offset = 0
        # Records minted under the lock but not yet written (see JournalWriter.stage).
        self._staged_lines: list[bytes] = []
        self._staged_events: list[Event] = []
        # True while this object holds the lock and has read every record in the file.
        self._settled = False
        # Deferred syncs (JournalWriter.write(sync=False)): each holds the lock until
        # its sync; _sync_mutex makes concurrent syncs share one fsync.
        self._sync_mutex = threading.Lock()
        self._broken: JournalError | None = None
        self.recovery: RecoveryReport | None = None
        if recover and scan:
            try:
                self._open()
            except BaseException:
                os.close(self._fd)
                self._fd = -1
                raise

    def __repr__(self) -> str:
        return f"FileJournal({str(self.path)!r}, durability={self.durability!r})"

    # -- reading ---------------------------------------------------------------------------

    def _size(self) -> int:
        return os.fstat(self._fd).st_size

    def _lines(self, start: int, end: int) -> Iterator[tuple[bytes, int]]:
        """Complete lines in [start, end) with the offset just after each; a final
        fragment without a newline is yielded with offset -1."""
        offset = start
        carry = b""
        while offset < end:
            chunk = os.pread(self._fd, min(_CHUNK, end - offset), offset)
            if not chunk:
                break  # the file shrank under us (a torn tail was cut)
            offset += len(chunk)
            data = carry + chunk if carry else chunk
            base = offset - len(data)
            lines = data.split(b"\n")
            carry = lines.pop()
            for line in lines:
                base += len(line) + 1
                yield line, base
        if carry:
            yield carry, -1

    def _scan(self, start: _Tail, end: int) -> Iterator[tuple[RawRecord, bytes, int]]:
        """Decode and check the records in [start, end).  Yields (record, line, offset after).

        Every complete line must be the next record of the chain (seq, hash, ``more``
        countdown, known type), or JournalCorrupted / UnknownEventType is raised naming
        its line.  A final line without a newline is a torn write (or a write still in
        progress) and ends the scan quietly, unless it holds a whole record followed by
        stray bytes, which no write produces.
        """
        prev, seq, more = start.hash, start.seq, start.more
        envelope = self._decoder.envelope
        versions = self._decoder.versions
        for line, after in self._lines(start.offset, end):
            lineno = seq + 1  # one record per line, seqs from 1: line number == seq
            if after == -1:
                if self._stray_bytes_after_record(line, prev, lineno):
                    raise self._damage(lineno, "a whole record followed by stray bytes "
                                       "(its newline was altered)", end, end)
                return
            problem = None
            try:
                rec = envelope(line)
            except _BAD_LINE as exc:
                problem = f"not a journal record ({exc})"
            else:
                if rec.seq != lineno:
                    problem = f"seq {rec.seq} where {lineno} was expected"
                elif not line_hash_ok(prev, line):
                    problem = "hash does not match (the record was altered)"
                elif rec.more < 0 or (more > 0 and rec.more != more - 1):
                    problem = f"more={rec.more} where {max(more - 1, 0)} was expected"
            if problem is not None:
                raise self._damage(lineno, problem, after, end)
            if versions.get(rec.type, 0) < rec.v:
                try:
                    self._decoder.check_known(rec)
                except UnknownEventType as exc:
                    raise UnknownEventType(f"{self.path}: line {lineno}: {exc}") from None
            seq, prev, more = lineno, line[-HASH_HEX - 2 : -2], rec.more
            yield rec, line, after

    def _stray_bytes_after_record(self, fragment: bytes, prev: bytes, lineno: int) -> bool:
        # A torn write leaves a prefix of a record line, and a record line ends with its
        # hash field; so a chain-valid record inside the fragment with bytes after it
        # cannot come from a crash.
        for match in _RECORD_END.finditer(fragment):
            whole = fragment[: match.end()]
            if match.end() < len(fragment) and line_hash_ok(prev, whole):
                try:
                    return self._decoder.envelope(whole).seq == lineno
                except _BAD_LINE:
                    continue
        return False

    def _damage(self, lineno: int, problem: str, after: int, end: int) -> JournalCorrupted:
        rest = 0
        offset = after
        while 0 <= offset < end:
            chunk = os.pread(self._fd, min(_CHUNK, end - offset), offset)
            if not chunk:
                break
            rest += chunk.count(b"\n")
            offset += len(chunk)
        follows = f"{rest} more line(s) follow it" if rest else "it is the last line"
        return JournalCorrupted(
            f"{problem}; {follows}. Run `memoir repair` to cut the damage and re-append "
            "the valid records after it (the cut bytes are kept beside the journal)",
            path=str(self.path), line=lineno, seq=lineno,
        )

    def _event(self, rec: RawRecord) -> Event:
        try:
            return self._decoder.event(rec)
        except _BAD_LINE as exc:
            raise JournalCorrupted(
                f"the payload of {rec.type} v{rec.v} does not fit its schema: {exc}",
                path=str(self.path), line=rec.seq, seq=rec.seq,
            ) from None

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
        # _remember per record, unrolled: opening a journal runs this for every record.
        ids = self._recent_ids
        group_ids: list[tuple[str, int]] = []
        group_index: list[tuple[int, _Tail]] = []
        before = self._tail  # the position before the record being looked at
        for rec, line, after in self._scan(self._tail, end):
            seq, more = rec.seq, rec.more
            if seq % _INDEX_EVERY == 1:
                group_index.append((seq, before))
            group_ids.append((rec.id, seq))
            if more == 0 or seq % _INDEX_EVERY == 0:
                before = _Tail(seq, after, hash_of_line(line), more)
            if more == 0:
                ids.update(group_ids)
                self._index.update(group_index)
                self._tail = before
                group_ids.clear()
                group_index.clear()
                if len(ids) >= 2 * _RECENT_IDS:
                    self._trim_ids()
                    ids = self._recent_ids
        return end

    def _forget(self) -> None:
        self._settled = False
        self._tail = _Tail()
        self._index = {1: _Tail()}
        self._recent_ids.clear()
        self._ids_from = 1

    def _remember(self, seq: int, event_id: str, more: int, line: bytes, after: int) -> None:
        """Move the tail past record ``seq`` (read or just written)."""
        if seq % _INDEX_EVERY == 1:
            self._index[seq] = self._tail
        self._tail = _Tail(seq, after, hash_of_line(line), more)
        self._recent_ids[event_id] = seq
        self._trim_ids()

    def _trim_ids(self) -> None:
        if len(self._recent_ids) >= 2 * _RECENT_IDS:
            # Forget the older half at once: cheaper than one eviction per record.
            keep = list(self._recent_ids.items())[-_RECENT_IDS:]
            self._recent_ids = dict(keep)
            self._ids_from = keep[0][1]

    def caught_up_to(self, seq: int) -> bool:
        """True when this object holds the lock, has read the whole file, and ``seq`` is
        its last record: nothing new can be there to read (a cheap check, no I/O)."""
        return self._settled and self._tail.seq == seq

    def head(self) -> int:
        with self._mutex:
            self._advance()
            return self._tail.seq

    def head_hash(self) -> str:
        """The hash of the last committed record ("" for an empty journal)."""
        with self._mutex:
            self._advance()
            return self._tail.hash.decode()

    def _records(self, after: int, until: int | None) -> Iterator[tuple[RawRecord, bytes]]:
        with self._mutex:
            self._advance()
            tail = self._tail
            start = self._start_for(max(after, 0) + 1)
        stop = tail.seq if until is None else min(until, tail.seq)
        if after >= stop:
            return
        for rec, line, _after in self._scan(start, tail.offset):
            if rec.seq > stop:
                return
            if rec.seq > after:
                yield rec, line

    def read(self, after: int = 0, until: int | None = None) -> Iterator[Event]:
        for rec, _line in self._records(after, until):
            yield self._event(rec)

    def read_lines(self, after: int = 0, until: int | None = None) -> Iterator[tuple[int, bytes]]:
        """The raw verified lines (seq, bytes) — for tools that print the journal as is."""
        for rec, line in self._records(after, until):
            yield rec.seq, line

    def _start_for(self, seq: int) -> _Tail:
        best = max((s for s in self._index if s <= seq), default=1)
        return self._index[best]

    def anchor(self, seq: int, offset: int, record_hash: str) -> bool:
        """Check that the record ending at ``offset`` is ``seq`` with ``record_hash``.

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
        except _BAD_LINE:
            return False
        if rec.seq != seq or hash_of_line(line) != record_hash.encode() or rec.more != 0:
            return False
        with self._mutex:
            here = _Tail(seq, offset, record_hash.encode(), 0)
            if self._tail.seq < seq:
                self._tail = here
                self._ids_from = seq + 1
            self._index[seq + 1] = here
        return True

    def position(self) -> tuple[int, int, str]:
        """(seq, byte offset after it, its hash) of the last committed record."""
        with self._mutex:
            self._advance()
            return self._tail.seq, self._tail.offset, self._tail.hash.decode()

    # -- appending ---------------------------------------------------------------------------

    def locked(self) -> AbstractContextManager[JournalWriter]:
        return self._locked()

    def _acquire(self) -> None:
        if self._broken is not None:
            raise self._broken
        try:
            self._flock.acquire(timeout=self.lock_timeout)
        except LockTimeout:
            raise ConflictError(
                f"could not lock {self.path} within {self.lock_timeout:g}s; another "
                "process holds it (a stuck writer?)", head=self._tail.seq,
            ) from None

    @contextmanager
    def _locked(self) -> Iterator[JournalWriter]:
        with self._mutex:
            self._acquire()
            try:
                self._catch_up_locked()
                yield _FileWriter(self)
            finally:
                self._unlock()

    def _unlock(self) -> None:
        # Staged records nobody wrote (the caller failed) are dropped, unwritten.
        self._discard_staged()
        if self._flock.lock_count == 1:
            self._settled = False
        self._flock.release()

    def append(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        """Append ``drafts`` atomically: lock, catch up, check, one write, fsync, unlock.

        The same steps as ``with locked() as w: w.append(...)``, without the context
        manager and writer objects (a durable single-event append is latency-bound).
        """
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

    def _cut_tail(self, size: int) -> RecoveryReport:
        # We hold the lock, so no live writer is mid-append: the bytes after the last
        # complete append belong to a writer that died before acknowledging them.
        # _advance scanned them without complaint, so they are a torn prefix of one
        # append (see _scan), never damage.
        keep = self._tail.offset
        torn = [rec.seq for rec, _line, _after in self._scan(self._tail, size)]
        cut = os.pread(self._fd, size - keep, keep)
        aside = self._save_aside(cut, f"torn-{self._stamp()}-after-{self._tail.seq}")
        os.ftruncate(self._fd, keep)
        os.fsync(self._fd)
        self._synced_offset = min(self._synced_offset, keep)
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

    def _save_aside(self, blob: bytes, label: str) -> Path:
        """Write ``blob`` durably to a new file beside the journal, never over an old one."""
        for n in range(1, 10_000):
            suffix = "" if n == 1 else f"-{n}"
            aside = self.path.with_name(f"{self.path.name}.{label}{suffix}")
            try:
                fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                continue
            try:
                view = memoryview(blob)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
            _fsync_dir(self.path.parent)
            return aside
        raise OSError(f"cannot find a free name for {self.path.name}.{label} in {self.path.parent}")

    def recover(self) -> None:
        """Check the records after the known position and cut a torn tail if there is one.

        For a journal opened with ``scan=False``: call it after :meth:`anchor` (when a
        checkpoint vouches for the prefix), so only the records after the checkpoint are
        read and hash-checked on open.
        """
        with self._mutex:
            self._open()

    def _open(self) -> None:
        """Check the file from the known position, and cut a torn tail under the lock."""
        self._advance()
        if self._size() != self._tail.offset:
            with self.locked():
                pass
        if self.durability != "never":
            # Whatever an earlier process left unsynced is on disk from here on.
            size = self._size()
            os.fsync(self._fd)
            self._synced_offset = size

    def _find_existing(self, ids: Sequence[str]) -> dict[str, int]:
        """Seqs of records whose ids are in ``ids`` (for idempotent retries)."""
        found = {i: self._recent_ids[i] for i in ids if i in self._recent_ids}
        missing = [i for i in ids if i not in found]
        if not missing or self._ids_from <= 1:
            return found
        wanted = set(missing)
        floor = self._retry_floor(missing)
        for rec in self._read_backwards():
            if rec.id in wanted:
                found[rec.id] = rec.seq
                wanted.discard(rec.id)
                if not wanted:
                    break
            if floor and rec.ts < floor:
                break
        return found

    def _retry_floor(self, ids: Sequence[str]) -> str:
        """The oldest ``ts`` a record carrying one of ``ids`` can have ("" = no bound)."""
        times = [id_time_ms(i) for i in ids]
        known = [t for t in times if t is not None]
        if len(known) != len(times):
            return ""  # foreign ids carry no time: look through the whole journal
        now_ms = int(self.clock.now().timestamp() * 1000)
        if max(known) > now_ms + _RETRY_SKEW_MS:
            # The ids come from a clock ahead of ours (say, ours is a fake one in the
            # past); records' timestamps say nothing about them then.
            return ""
        oldest = min(known) - _RETRY_SKEW_MS
        return format_ts(dt.datetime.fromtimestamp(max(oldest, 0) / 1000, dt.UTC))

    def _read_backwards(self) -> Iterator[RawRecord]:
        pos = self._tail.offset
        carry = b""
        while pos > 0:
            size = min(1 << 16, pos)
            pos -= size
            parts = (os.pread(self._fd, size, pos) + carry).split(b"\n")
            carry = parts.pop(0) if pos > 0 else b""
            for line in reversed(parts):
                if line:
                    yield self._decoder.envelope(line)

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
            existing = self._find_existing(given)
            if existing:
                return self._replay_retry(drafts, existing)
        tail = self._staged_tail()
        check_expectation(self, tail[0], expect, pending=self._staged_events)
        lines, events = self._mint([drafts], tail)
        self._staged_lines += lines
        self._staged_events += events
        return events

    def _staged_tail(self) -> tuple[int, bytes]:
        if self._staged_events:
            last = self._staged_events[-1]
            return last.seq, last.hash.encode()
        return self._tail.seq, self._tail.hash

    def _discard_staged(self) -> None:
        self._staged_lines = []
        self._staged_events = []

    def _write_staged(self, sync: bool) -> int | None:
        lines, events = self._staged_lines, self._staged_events
        self._discard_staged()
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

        Syncs running at the same time share fsyncs: one that finds its bytes already
        covered by another's returns at once.  A failed fsync leaves the journal
        unusable (the kernel may have dropped the unsynced pages, so nothing after the
        last good sync can be vouched for): this and every later append raise
        :class:`JournalError`, and the home must be opened again, which recovers.
        """
        try:
            with self._sync_mutex:
                if self._broken is not None:
                    raise self._broken
                if self._synced_offset < offset:
                    end = self._tail.offset  # everything written so far is covered
                    try:
                        os.fsync(self._fd)
                    except OSError as exc:
                        self._broken = JournalError(
                            f"{self.path}: fsync failed ({exc}); appends since the last "
                            "good sync are not durable; open the home again to recover"
                        )
                        raise self._broken from exc
                    self._synced_offset = max(self._synced_offset, end)
                    self._last_sync = time.monotonic()
        finally:
            with self._mutex:
                if self._flock.lock_count == 1:
                    self._settled = False
                self._flock.release()

    def _append_new(self, appends: Sequence[Sequence[Draft]]) -> list[Event]:
        """Write ``appends`` (each one atomic append) in one write and one sync."""
        lines, events = self._mint(appends, (self._tail.seq, self._tail.hash))
        if lines:
            self._write_lines(lines, events)
        return events

    def _mint(
        self, appends: Sequence[Sequence[Draft]], after: tuple[int, bytes]
    ) -> tuple[list[bytes], list[Event]]:
        """Encode ``appends`` as records following (seq, hash) ``after``."""
        seq, prev = after
        lines: list[bytes] = []
        events: list[Event] = []
        # The hot loop of a bulk append: per record only encode, hash and build the Event.
        for drafts in appends:
            count = len(drafts)
            for i, (draft, (event_id, ts)) in enumerate(zip(drafts, mint(drafts, self.clock),
                                                            strict=True)):
                seq += 1
                more = count - 1 - i
                data = draft.data
                line, prev = encode_record(
                    seq=seq, id=event_id, ts=ts, actor=draft.actor, session=draft.session,
                    run=draft.run, causation=draft.causation, more=more, data=data,
                    prev=prev,
                )
                lines.append(line)
                events.append(
                    Event(
                        seq=seq, id=event_id, ts=ts, type=data.TYPE, v=data.VERSION,
                        actor=draft.actor, session=draft.session, run=draft.run,
                        causation=draft.causation, more=more, data=data,
                        hash=prev.decode(),
                    )
                )
        return lines, events

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
                self._sync(start + len(blob))
        except BaseException:
            # Leave no partial append behind for this process; a crash is handled on open.
            os.ftruncate(self._fd, start)
            raise
        self._remember_many(events, lines, start)

    def _remember_many(self, events: Sequence[Event], lines: Sequence[bytes],
                       start: int) -> None:
        """Move the tail past records just written (one update, not one per record)."""
        offset = start
        before = self._tail  # the position just before the next indexed record
        for event, line in zip(events, lines, strict=True):
            if event.seq % _INDEX_EVERY == 1:
                self._index[event.seq] = before
            offset += len(line) + 1
            if event.seq % _INDEX_EVERY == 0:
                before = _Tail(event.seq, offset, event.hash.encode(), event.more)
        last = events[-1]
        self._tail = _Tail(last.seq, offset, last.hash.encode(), last.more)
        self._recent_ids.update((e.id, e.seq) for e in events)
        self._trim_ids()

    def _replay_retry(self, drafts: Sequence[Draft], existing: dict[str, int]) -> list[Event]:
        seqs = [existing.get(d.id) for d in drafts]
        first = seqs[0]
        if first is None or seqs != list(range(first, first + len(drafts))):
            raise ValidationError(
                "a retried append must repeat the original append exactly: some of its "
                f"event ids are already in the journal (seq {sorted(existing.values())}) "
                "and some are not, or they are in another order"
            )
        return list(self.read(after=first - 1, until=first + len(drafts) - 1))

    def _sync(self, written_to: int) -> None:
        if self.durability == "always":
            os.fsync(self._fd)
            self._synced_offset = written_to
        elif self.durability == "batch":
            now = time.monotonic()
            if now - self._last_sync >= _BATCH_SYNC_SECONDS:
                os.fsync(self._fd)
                self._last_sync = now
                self._synced_offset = written_to
                self._unsynced = False
            else:
                self._unsynced = True
                self._schedule_sync(_BATCH_SYNC_SECONDS - (now - self._last_sync))

    def _schedule_sync(self, delay: float) -> None:
        if self._timer is None:
            timer = threading.Timer(delay, self._timed_sync)
            timer.daemon = True
            self._timer = timer
            timer.start()

    def _timed_sync(self) -> None:
        with self._mutex:
            self._timer = None
            if self._fd >= 0 and self._unsynced:
                self._fsync_now()

    def _fsync_now(self) -> None:
        size = self._size()
        os.fsync(self._fd)
        self._synced_offset = size
        self._last_sync = time.monotonic()
        self._unsynced = False

    @property
    def synced_offset(self) -> int:
        """Bytes known to be on stable storage (what survives a power cut)."""
        return self._synced_offset

    def flush(self) -> None:
        """fsync now, whatever the durability policy."""
        with self._mutex:
            self._fsync_now()

    # -- maintenance ---------------------------------------------------------------------------

    def verify(self) -> VerifyReport:
        """Check every record: the hash chain, the seqs, the appends, every payload's schema.

        Bytes after the last complete append (a writer mid-append, or the torn tail
        of one that died) are reported as ``pending_bytes``, not judged.
        """
        with self._mutex:
            self._advance()
            try:
                return self._verify_once()
            except JournalCorrupted:
                if self._flock.is_locked:
                    raise
                # As in _advance: a lock-free read may straddle a torn tail being cut.
                self._acquire()
                try:
                    return self._verify_once()
                finally:
                    self._flock.release()

    def _verify_once(self) -> VerifyReport:
        size = self._size()
        count = 0
        types: dict[str, int] = {}
        group: list[str] = []
        head = _Tail()
        for rec, line, after in self._scan(_Tail(), size):
            self._event(rec)
            group.append(rec.type)
            if rec.more == 0:
                count += len(group)
                for name in group:
                    types[name] = types.get(name, 0) + 1
                group.clear()
                head = _Tail(rec.seq, after, hash_of_line(line))
        return VerifyReport(records=count, head_hash=head.hash.decode(), bytes=head.offset,
                            types=types, pending_bytes=size - head.offset)

    def repair(self) -> RecoveryReport | None:
        """Cut the first damaged record and everything after it, keeping the cut bytes
        beside the journal (``journal.jsonl.cut-…``), then re-append every whole, valid
        append found in the cut bytes (same ids, payloads and metadata; new seqs and
        hashes).  Returns None if the journal was sound.

        Cutting starts at the append that holds the damage.  Records that are damaged,
        belong to an append that lost a record, or are already in the kept part are not
        re-appended; their original seqs are listed in ``skipped``.  A record of an
        event type this memoir does not know stops the repair (UnknownEventType): it
        may be valid, so upgrade memoir first.  Other processes should close the
        journal while it is repaired.
        """
        with self._mutex:
            self._acquire()
            try:
                return self._repair_locked()
            finally:
                self._flock.release()

    def _repair_locked(self) -> RecoveryReport | None:
        size = self._size()
        kept = _Tail()
        known: set[str] = set()
        group: list[str] = []
        try:
            for rec, line, after in self._scan(_Tail(), size):
                self._event(rec)
                group.append(rec.id)
                if rec.more == 0:
                    kept = _Tail(rec.seq, after, hash_of_line(line))
                    known.update(group)
                    group.clear()
        except JournalCorrupted:
            pass
        if kept.offset == size:
            return None
        cut = os.pread(self._fd, size - kept.offset, kept.offset)
        appends, skipped = self._salvage(cut, kept, known)
        aside = self._save_aside(cut, f"cut-{self._stamp()}-after-{kept.seq}")
        os.ftruncate(self._fd, kept.offset)
        os.fsync(self._fd)
        self._synced_offset = min(self._synced_offset, kept.offset)
        self._forget()
        self._advance()
        drafts = [
            [Draft(data=e.data, actor=e.actor, session=e.session, run=e.run,
                   causation=e.causation, id=e.id, ts=e.ts) for e in append]
            for append in appends
        ]
        written = self._append_new(drafts)
        if self.durability == "never":
            self._fsync_now()  # a repair is worth one fsync whatever the policy
        report = RecoveryReport(
            cut_bytes=len(cut), saved_to=str(aside), kept_head=kept.seq,
            reappended=tuple(e.seq for e in written), skipped=tuple(skipped),
        )
        log.warning("journal.repaired", journal=str(self.path), cut_bytes=len(cut),
                    saved_to=str(aside), kept_head=kept.seq, reappended=len(written),
                    skipped=list(skipped))
        return report

    def _salvage(
        self, cut: bytes, kept: _Tail, known: set[str]
    ) -> tuple[list[list[Event]], list[int]]:
        """The whole valid appends in ``cut``, and the seqs of the records left out.

        A record is valid if it decodes and, when the line before it is a valid record
        with the seq just before, its hash chains to that line's (a line after damage
        cannot be checked against the damaged one).  Appends are recognised by their
        ``more`` countdown; one interrupted by a bad line or a gap is left out whole, and
        so is one right after a line that does not decode (it may have been its head).
        """
        pieces = cut.split(b"\n")
        if pieces[-1] == b"":
            pieces.pop()
        appends: list[list[Event]] = []
        skipped: list[int] = []
        current: list[Event] = []
        current_ok = True
        link: tuple[int, bytes] | None = (kept.seq, kept.hash)
        prev_more: int | None = 0

        for piece in pieces:
            try:
                rec = self._decoder.envelope(piece)
            except _BAD_LINE:
                if current:
                    skipped += [e.seq for e in current]
                    current = []
                link, prev_more = None, None
                continue
            ok = link is None or link[0] != rec.seq - 1 or line_hash_ok(link[1], piece)
            event: Event | None = None
            if ok:
                try:
                    self._decoder.check_known(rec)
                except UnknownEventType as exc:
                    raise UnknownEventType(
                        f"{self.path}: line {rec.seq}: {exc}; repair would have to drop it"
                    ) from None
                try:
                    event = self._decoder.event(rec)
                except _BAD_LINE:
                    ok = False
            link = (rec.seq, hash_of_line(piece)) if ok else None
            if current and rec.more != current[-1].more - 1:
                skipped += [e.seq for e in current]  # the countdown broke off
                current = []
            if not current:
                # An append starts after a record with more == 0.  After a line that
                # does not decode (prev_more None) nobody knows: it may have been this
                # append's head, and re-appending a part of an append would break its
                # atomicity without anyone noticing, so it is left out (and reported).
                current_ok = prev_more == 0
            placeholder = Event(seq=rec.seq, id=rec.id, ts=rec.ts, type=rec.type, v=rec.v,
                                actor=rec.actor, more=rec.more, data=_UNREADABLE)
            current.append(event if event is not None else placeholder)
            current_ok = current_ok and ok and rec.more >= 0
            prev_more = rec.more
            if rec.more <= 0:
                ids = {e.id for e in current}
                if current_ok and not ids & known:
                    appends.append(current)
                    known.update(ids)
                else:
                    skipped += [e.seq for e in current]
                current = []
        skipped += [e.seq for e in current]
        return appends, skipped

    def close(self) -> None:
        with self._mutex:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._fd < 0:
                return
            if self._unsynced:
                self._fsync_now()
            os.close(self._fd)
            self._fd = -1
            self._flock.close()


class _Unreadable(Payload, frozen=True, kw_only=True):
    """Stands in for the payload of a salvaged record that will not be re-appended."""


_UNREADABLE = _Unreadable()


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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
