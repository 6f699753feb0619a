"""The journal interface and the file journal: append-only JSONL with a hash chain.

Appends run under a cross-process lock (``filelock``) across catch-up → expectation
check → one write of every record of the append → fsync → release.  Readers need no
lock: they stop at the last complete append (a record whose ``more`` is 0), so they
never see half of one.  See ``docs/journal.md`` for the format and the failure model.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import filelock
import msgspec
import structlog

from memoir.clock import Clock, SystemClock, format_ts
from memoir.errors import ConflictError, JournalCorrupted, UnknownEventType, ValidationError
from memoir.events.codec import GENESIS, Decoder, body_of, chain_hash, encode_record, hash_of_line
from memoir.events.types import Draft, Event
from memoir.ids import id_time_ms, new_id

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
]

log = structlog.get_logger("memoir.journal")

Durability = Literal["always", "batch", "never"]
_BATCH_SYNC_SECONDS = 0.05
_CHUNK = 4 << 20
_INDEX_EVERY = 4096
# A retried append is looked for among records written since its ids were minted,
# minus this much, to allow for clocks of different processes disagreeing a little.
_RETRY_SKEW_MS = 5 * 60 * 1000


@dataclass(frozen=True)
class ExpectHead:
    """The append succeeds only if the journal's last seq is still ``seq``."""

    seq: int


@dataclass(frozen=True)
class ExpectUntouched:
    """The append succeeds only if no record after ``after`` touches any of ``entities``."""

    entities: frozenset[str]
    after: int


Expectation = ExpectHead | ExpectUntouched


@dataclass(frozen=True)
class RecoveryReport:
    """What opening or repairing the journal had to cut, and where the cut bytes went."""

    cut_bytes: int
    saved_to: str | None
    kept_head: int
    reappended: tuple[int, ...] = ()


@dataclass(frozen=True)
class VerifyReport:
    records: int
    head_hash: str
    bytes: int
    types: dict[str, int] = field(default_factory=dict)


class JournalWriter(ABC):
    """The view of the journal an append gets while it holds the lock."""

    @property
    @abstractmethod
    def head(self) -> int:
        """The last seq, fresh: every record of every process is counted."""

    @abstractmethod
    def append(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        """Write ``drafts`` as one atomic append and return the records as written."""


class Journal(ABC):
    """An append-only sequence of events.  Every backend passes ``tests/test_journal_conformance``."""

    clock: Clock

    @abstractmethod
    def head(self) -> int:
        """The last committed seq visible now (0 for an empty journal)."""

    @abstractmethod
    def read(self, after: int = 0, until: int | None = None) -> Iterator[Event]:
        """Committed records with ``after < seq <= until``, in order."""

    @abstractmethod
    def locked(self) -> AbstractContextManager[JournalWriter]:
        """Hold the append lock; the writer appends and sees a fresh head."""

    def append(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        """Append ``drafts`` atomically (one lock, one write, one fsync)."""
        with self.locked() as writer:
            return writer.append(drafts, expect=expect)

    def verify(self) -> VerifyReport:
        """Read every record and check the hash chain; raises JournalCorrupted."""
        count = 0
        last = ""
        types: dict[str, int] = {}
        for event in self.read():
            count += 1
            last = event.hash
            types[event.type] = types.get(event.type, 0) + 1
        return VerifyReport(records=count, head_hash=last, bytes=0, types=types)

    def close(self) -> None:
        """Release resources; flush what the durability policy left unsynced."""

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _mint(draft: Draft, clock: Clock) -> tuple[str, str]:
    now = clock.now()
    event_id = draft.id or new_id(int(now.timestamp() * 1000))
    return event_id, draft.ts or format_ts(now)


def check_expectation(journal: Journal, head: int, expect: Expectation | None) -> None:
    """Raise ConflictError if ``expect`` does not hold at ``head``."""
    if expect is None:
        return
    if isinstance(expect, ExpectHead):
        if head != expect.seq:
            raise ConflictError(
                f"expected the journal to end at seq {expect.seq}, but it ends at {head}; "
                "re-read the state and try again",
                head=head,
            )
        return
    clashes = tuple(
        event.seq
        for event in journal.read(after=expect.after, until=head)
        if expect.entities.intersection(event.entities())
    )
    if clashes:
        shown = ", ".join(map(str, clashes[:10]))
        raise ConflictError(
            f"{len(clashes)} event(s) after seq {expect.after} touch the same entities "
            f"(seq {shown}); re-validate against the current state",
            head=head,
            conflicting=clashes,
        )


@dataclass
class _Tail:
    """Where the verified part of the file ends."""

    seq: int = 0
    offset: int = 0
    hash: bytes = GENESIS


class FileJournal(Journal):
    """A JSONL file journal, safe for many threads and processes appending at once.

    ``durability``: ``always`` fsyncs every append before acknowledging it;
    ``batch`` fsyncs at most every 50 ms and on close (a crash may lose the last
    50 ms of acknowledged appends); ``never`` leaves it to the OS (tests).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        durability: Durability = "always",
        clock: Clock | None = None,
        lock_timeout: float = 60.0,
        recover: bool = True,
    ) -> None:
        self.path = Path(path)
        self.durability: Durability = durability
        self.clock = clock or SystemClock()
        self.lock_timeout = lock_timeout
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._decoder = Decoder()
        self._mutex = threading.RLock()
        self._flock = filelock.FileLock(str(self.path) + ".lock", thread_local=False)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        self._tail = _Tail()
        # seq -> (offset of the record, hash of the record before it); sparse.
        self._index: dict[int, tuple[int, bytes]] = {1: (0, GENESIS)}
        self._recent_ids: dict[str, int] = {}
        self._last_sync = time.monotonic()
        self._unsynced = False
        self._synced_offset = 0
        self.recovery: RecoveryReport | None = None
        if recover:
            self._open_check()

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
                break
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

    def _scan(
        self, start: _Tail, end: int, *, strict: bool, line_hint: int | None = None
    ) -> Iterator[tuple[Event, bytes, int]]:
        """Decode and verify records from ``start``.  Yields (event, line, offset after).

        Stops quietly at a torn tail.  ``strict`` raises on a torn tail too (used by
        verify).  Damage followed by a valid record always raises JournalCorrupted.
        """
        prev = start.hash
        seq = start.seq
        damaged: tuple[int, str] | None = None
        for line, after in self._lines(start.offset, end):
            lineno = seq + 1 if damaged is None else damaged[0]
            if damaged is not None:
                # Past damage: any well-formed record here means valid data follows the
                # damage, which a crash cannot produce; refuse rather than drop it.
                try:
                    rec = self._decoder.decode(line)
                except (msgspec.DecodeError, msgspec.ValidationError, UnknownEventType):
                    continue
                raise JournalCorrupted(
                    f"damaged record ({damaged[1]}) followed by valid record seq {rec.seq}; "
                    "run `memoir repair` to cut the damage (the cut bytes are kept)",
                    path=str(self.path), line=damaged[0], seq=damaged[0],
                )
            problem = None
            if after == -1:
                problem = "incomplete last line (no newline)"
            else:
                try:
                    event = self._decoder.decode(line)
                except UnknownEventType as exc:
                    raise UnknownEventType(f"{self.path}: line {lineno}: {exc}") from None
                except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                    problem = f"not a valid record: {exc}"
                else:
                    if event.seq != seq + 1:
                        problem = f"seq {event.seq} where {seq + 1} was expected"
                    elif len(line) < 60 or chain_hash(prev, body_of(line)) != hash_of_line(line):
                        problem = "hash does not match (altered or torn record)"
            if problem is None:
                seq = event.seq
                prev = hash_of_line(line)
                yield event, line, after
                continue
            damaged = (lineno, problem)
        if damaged is not None and strict:
            raise JournalCorrupted(damaged[1], path=str(self.path), line=damaged[0],
                                   seq=damaged[0])

    def _committed(self, start: _Tail, end: int) -> Iterator[tuple[Event, bytes, int]]:
        """Like _scan, but yields only whole appends (up to a record with more == 0)."""
        pending: list[tuple[Event, bytes, int]] = []
        for item in self._scan(start, end, strict=False):
            pending.append(item)
            if item[0].more == 0:
                yield from pending
                pending.clear()

    def _advance(self, *, under_lock: bool) -> None:
        """Catch the tail up with what other processes appended."""
        end = self._size()
        if end == self._tail.offset:
            return
        for event, line, after in self._committed(self._tail, end):
            self._note(event, line, after)

    def _note(self, event: Event, line: bytes, after: int) -> None:
        seq = event.seq
        if seq % _INDEX_EVERY == 1:
            self._index[seq] = (after - len(line) - 1, self._tail.hash)
        self._tail = _Tail(seq, after, hash_of_line(line))
        if len(self._recent_ids) < 200_000:
            self._recent_ids[event.id] = seq

    def head(self) -> int:
        with self._mutex:
            self._advance(under_lock=False)
            return self._tail.seq

    def head_hash(self) -> str:
        with self._mutex:
            self._advance(under_lock=False)
            return self._tail.hash.decode()

    def read(self, after: int = 0, until: int | None = None) -> Iterator[Event]:
        with self._mutex:
            self._advance(under_lock=False)
            tail = self._tail
        stop = tail.seq if until is None else min(until, tail.seq)
        if after >= stop:
            return
        start = self._start_for(after + 1)
        for event, _line, _after in self._scan(start, tail.offset, strict=True):
            if event.seq > stop:
                return
            if event.seq > after:
                yield event

    def read_lines(self, after: int = 0, until: int | None = None) -> Iterator[tuple[int, bytes]]:
        """The raw verified lines (seq, bytes) — for tools that print the journal as is."""
        with self._mutex:
            self._advance(under_lock=False)
            tail = self._tail
        stop = tail.seq if until is None else min(until, tail.seq)
        start = self._start_for(after + 1)
        for event, line, _after in self._scan(start, tail.offset, strict=True):
            if event.seq > stop:
                return
            if event.seq > after:
                yield event.seq, line

    def _start_for(self, seq: int) -> _Tail:
        best = max((s for s in self._index if s <= seq), default=1)
        offset, prev = self._index[best]
        return _Tail(best - 1, offset, prev)

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
            event = self._decoder.decode(line)
        except (msgspec.DecodeError, msgspec.ValidationError, UnknownEventType):
            return False
        if event.seq != seq or hash_of_line(line) != record_hash.encode() or event.more != 0:
            return False
        with self._mutex:
            if self._tail.seq < seq:
                self._tail = _Tail(seq, offset, record_hash.encode())
            self._index[seq + 1] = (offset, record_hash.encode())
        return True

    def position(self) -> tuple[int, int, str]:
        """(seq, byte offset after it, its hash) of the last committed record."""
        with self._mutex:
            self._advance(under_lock=False)
            return self._tail.seq, self._tail.offset, self._tail.hash.decode()

    # -- appending ---------------------------------------------------------------------------

    def locked(self) -> AbstractContextManager[JournalWriter]:
        return self._locked()

    @contextmanager
    def _locked(self) -> Iterator[JournalWriter]:
        with self._mutex:
            try:
                self._flock.acquire(timeout=self.lock_timeout)
            except filelock.Timeout:
                raise ConflictError(
                    f"could not lock {self.path} within {self.lock_timeout:g}s; another "
                    "process holds it (a stuck writer?)", head=self._tail.seq,
                ) from None
            try:
                self._catch_up_locked()
                yield _FileWriter(self)
            finally:
                self._flock.release()

    def _catch_up_locked(self) -> None:
        """Under the lock: read what others appended and cut a torn tail left by a crash."""
        self._advance(under_lock=True)
        size = self._size()
        if size != self._tail.offset:
            self._cut_tail(self._tail.offset, size)

    def _cut_tail(self, keep: int, size: int) -> RecoveryReport:
        # Everything past the last complete append was written by a writer that died
        # before acknowledging it (we hold the lock, so no live writer is mid-append).
        # Re-check with a strict scan so damage followed by valid records raises.
        for _ in self._scan(self._tail, size, strict=False):
            pass
        cut = os.pread(self._fd, size - keep, keep)
        stamp = self.clock.now().strftime("%Y%m%dT%H%M%S%fZ")
        aside = self.path.with_name(f"{self.path.name}.torn-{stamp}-after-{self._tail.seq}")
        with open(aside, "wb") as fh:
            fh.write(cut)
            fh.flush()
            os.fsync(fh.fileno())
        os.ftruncate(self._fd, keep)
        os.fsync(self._fd)
        self._synced_offset = min(self._synced_offset, keep)
        report = RecoveryReport(cut_bytes=len(cut), saved_to=str(aside), kept_head=self._tail.seq)
        log.warning(
            "journal.torn_tail_cut", journal=str(self.path), cut_bytes=len(cut),
            saved_to=str(aside), head=self._tail.seq,
        )
        self.recovery = report
        return report

    def _open_check(self) -> None:
        """On open: if the file does not end with a complete append, recover under the lock.

        Only the tail is examined here; `verify` reads the whole chain.
        """
        size = self._size()
        if size == 0:
            return
        last = os.pread(self._fd, 1, size - 1)
        if last == b"\n":
            tail_line = self._last_line(size)
            try:
                if self._decoder.decode(tail_line).more == 0:
                    return
            except (msgspec.DecodeError, msgspec.ValidationError):
                pass
        with self.locked():
            pass

    def _last_line(self, size: int) -> bytes:
        look = min(size, 1 << 16)
        while True:
            blob = os.pread(self._fd, look, size - look)
            body = blob[:-1]
            cut = body.rfind(b"\n")
            if cut >= 0 or look == size:
                return body[cut + 1 :]
            look = min(size, look * 4)

    def _find_existing(self, ids: Sequence[str]) -> dict[str, int]:
        """Seqs of records whose ids are in ``ids`` (for idempotent retries)."""
        found = {i: self._recent_ids[i] for i in ids if i in self._recent_ids}
        missing = [i for i in ids if i not in found]
        if not missing:
            return found
        times = [id_time_ms(i) for i in missing]
        if any(t is None for t in times):
            floor = ""  # foreign ids carry no time: look through the whole journal
        else:
            oldest = min(t for t in times if t is not None) - _RETRY_SKEW_MS
            floor = format_ts(dt.datetime.fromtimestamp(max(oldest, 0) / 1000, dt.UTC))
        wanted = set(missing)
        for event in self._read_backwards():
            if event.id in wanted:
                found[event.id] = event.seq
                wanted.discard(event.id)
                if not wanted:
                    break
            if floor and event.ts < floor:
                break
        return found

    def _read_backwards(self) -> Iterator[Event]:
        end = self._tail.offset
        carry = b""
        pos = end
        while pos > 0:
            size = min(1 << 16, pos)
            pos -= size
            blob = os.pread(self._fd, size, pos) + carry
            parts = blob.split(b"\n")
            carry = parts[0] if pos > 0 else b""
            for line in reversed(parts[1:] if pos > 0 else parts):
                if line:
                    yield self._decoder.decode(line)

    def _write(self, drafts: Sequence[Draft], expect: Expectation | None) -> list[Event]:
        if not drafts:
            return []
        given = [d.id for d in drafts if d.id]
        if given:
            if len(set(given)) != len(given):
                raise ValidationError("an append lists the same event id twice")
            existing = self._find_existing(given)
            if existing:
                return self._replay_retry(drafts, existing)
        check_expectation(self, self._tail.seq, expect)
        prev = self._tail.hash
        seq = self._tail.seq
        lines: list[bytes] = []
        events: list[Event] = []
        count = len(drafts)
        for i, draft in enumerate(drafts):
            event_id, ts = _mint(draft, self.clock)
            seq += 1
            line, prev = encode_record(
                seq=seq, id=event_id, ts=ts, actor=draft.actor, session=draft.session,
                run=draft.run, causation=draft.causation, more=count - 1 - i,
                data=draft.data, prev=prev,
            )
            lines.append(line)
            events.append(
                Event(
                    seq=seq, id=event_id, ts=ts, type=draft.data.TYPE, v=draft.data.VERSION,
                    actor=draft.actor, session=draft.session, run=draft.run,
                    causation=draft.causation, more=count - 1 - i, data=draft.data,
                    hash=prev.decode(),
                )
            )
        blob = b"\n".join(lines) + b"\n"
        start = self._tail.offset
        try:
            view = memoryview(blob)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            self._sync()
        except BaseException:
            # Leave no partial append behind for this process; a crash is handled on open.
            os.ftruncate(self._fd, start)
            raise
        offset = start
        for event, line in zip(events, lines, strict=True):
            offset += len(line) + 1
            self._note(event, line, offset)
        return events

    def _replay_retry(self, drafts: Sequence[Draft], existing: dict[str, int]) -> list[Event]:
        seqs = [existing.get(d.id) for d in drafts]
        if None in seqs or seqs != list(range(seqs[0] or 0, (seqs[0] or 0) + len(drafts))):
            raise ValidationError(
                "a retried append must repeat the original append exactly: some of its "
                f"event ids are already in the journal (seq {sorted(existing.values())}) "
                "and some are not"
            )
        first = seqs[0] or 0
        return list(self.read(after=first - 1, until=first + len(drafts) - 1))

    def _sync(self) -> None:
        if self.durability == "always":
            os.fsync(self._fd)
            self._synced_offset = self._size()
        elif self.durability == "batch":
            now = time.monotonic()
            if now - self._last_sync >= _BATCH_SYNC_SECONDS:
                os.fsync(self._fd)
                self._last_sync = now
                self._synced_offset = self._size()
                self._unsynced = False
            else:
                self._unsynced = True

    @property
    def synced_offset(self) -> int:
        """Bytes known to be on stable storage (what survives a power cut)."""
        return self._synced_offset

    def flush(self) -> None:
        """fsync now, whatever the durability policy."""
        with self._mutex:
            os.fsync(self._fd)
            self._synced_offset = self._size()
            self._unsynced = False

    # -- maintenance ---------------------------------------------------------------------------

    def verify(self) -> VerifyReport:
        """Check every committed record and the whole hash chain.

        Bytes past the last complete append (a writer mid-append, or a crash not yet
        recovered) are not judged here; the next writer recovers them.
        """
        with self._mutex:
            self._advance(under_lock=False)
            count = 0
            types: dict[str, int] = {}
            last = b""
            size = self._tail.offset
            for event, line, _after in self._scan(_Tail(), size, strict=True):
                count += 1
                last = hash_of_line(line)
                types[event.type] = types.get(event.type, 0) + 1
            return VerifyReport(records=count, head_hash=last.decode(), bytes=size, types=types)

    def repair(self) -> RecoveryReport | None:
        """Cut the first damaged record and everything after it, keeping the cut bytes
        beside the journal, then re-append every valid record found after the damage
        (same ids, payloads and metadata; new seqs and hashes).  Returns None if the
        journal was sound."""
        with self._mutex:
            self._flock.acquire(timeout=self.lock_timeout)
            try:
                size = self._size()
                good = _Tail()
                try:
                    for event, line, after in self._scan(_Tail(), size, strict=True):
                        good = _Tail(event.seq, after, hash_of_line(line))
                except JournalCorrupted:
                    pass
                # Roll back to the last complete append within the sound prefix.
                committed = _Tail()
                for event, line, after in self._committed(_Tail(), good.offset):
                    committed = _Tail(event.seq, after, hash_of_line(line))
                if committed.offset == size:
                    return None
                cut = os.pread(self._fd, size - committed.offset, committed.offset)
                salvage: list[Event] = []
                for raw in cut.split(b"\n"):
                    try:
                        salvage.append(self._decoder.decode(raw))
                    except (msgspec.DecodeError, msgspec.ValidationError, UnknownEventType):
                        continue
                stamp = self.clock.now().strftime("%Y%m%dT%H%M%S%fZ")
                aside = self.path.with_name(f"{self.path.name}.cut-{stamp}")
                with open(aside, "wb") as fh:
                    fh.write(cut)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.ftruncate(self._fd, committed.offset)
                os.fsync(self._fd)
                self._tail = committed
                self._index = {s: v for s, v in self._index.items() if s <= committed.seq + 1}
                self._index.setdefault(1, (0, GENESIS))
                self._recent_ids.clear()
                seen = set()
                drafts = []
                for event in salvage:
                    if event.id in seen or event.seq <= committed.seq:
                        continue
                    seen.add(event.id)
                    drafts.append(
                        Draft(data=event.data, actor=event.actor, session=event.session,
                              run=event.run, causation=event.causation, id=event.id,
                              ts=event.ts)
                    )
                written = self._write(drafts, None) if drafts else []
                report = RecoveryReport(
                    cut_bytes=len(cut), saved_to=str(aside), kept_head=committed.seq,
                    reappended=tuple(e.seq for e in written),
                )
                log.warning("journal.repaired", journal=str(self.path), cut_bytes=len(cut),
                            saved_to=str(aside), reappended=len(written))
                return report
            finally:
                self._flock.release()

    def close(self) -> None:
        with self._mutex:
            if self._fd < 0:
                return
            if self._unsynced:
                os.fsync(self._fd)
            os.close(self._fd)
            self._fd = -1


class _FileWriter(JournalWriter):
    def __init__(self, journal: FileJournal) -> None:
        self._journal = journal

    @property
    def head(self) -> int:
        return self._journal._tail.seq

    def append(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        return self._journal._write(drafts, expect)


def iter_types(events: Iterable[Event]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for event in events:
        counts[event.type] = counts.get(event.type, 0) + 1
    return counts
