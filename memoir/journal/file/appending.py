"""Appending to a journal file: :class:`JournalFile`, the implementation behind
:class:`~memoir.journal.file.FileJournal` (append-only JSONL with a hash chain).

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
  :meth:`JournalFile.repair` cuts the damage (keeping the bytes) and re-appends the
  valid appends found after it.

Reading and checking records is :mod:`memoir.journal.file.scan`; what repair keeps of the
bytes it cuts is :mod:`memoir.journal.file.recovery`.  See ``docs/journal.md`` for the format.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager

from memoir.clock import Clock
from memoir.errors import JournalLost
from memoir.events.types import Draft, Event
from memoir.journal.file.reader import INDEX_EVERY, FileReader
from memoir.journal.file.recovery import cut_at, cut_torn_tail, repaired_drafts, salvage
from memoir.journal.file.scan import Tail
from memoir.journal.file.sync import Syncer
from memoir.journal.interface import (
    Durability,
    Expectation,
    Journal,
    JournalWriter,
    RecoveryReport,
    mint_records,
)
from memoir.journal.staging import Stager
from memoir.logs import get_logger

__all__ = ["JournalFile"]

log = get_logger("memoir.journal")


class JournalFile(FileReader):
    """A JSONL journal file open for reading and appending, safe for many threads and
    processes appending at once (the reading half is :class:`FileReader`).

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
        owner: Journal,
    ) -> None:
        super().__init__(path, clock=clock, lock_timeout=lock_timeout, readonly=readonly)
        self.durability: Durability = durability
        self._syncer = Syncer(self.path, durability, self._mutex)
        self._syncer.fd = self._fd
        # Records minted under the lock but not yet written (see JournalWriter.stage);
        # retries and expectations are checked against ``owner``, the journal's face.
        self._staged = Stager(owner)
        self.recovery: RecoveryReport | None = None
        if recover and scan:
            try:
                self._open()
            except BaseException:
                self._close_fd()
                raise

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
        self._staged.drop()
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
        return self._staged.stage(
            drafts, expect, tail=lambda: (self._tail.seq, self._tail.hash),
            known=lambda ids: self._ids.find(ids, self.clock,
                                             self._scanner.read_backwards(self._tail.offset)))

    def _write_staged(self, sync: bool) -> int | None:
        lines, events = self._staged.take()
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
        must be opened again, which recovers (see :mod:`memoir.journal.file.sync`).
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

    def _remember(self, events: Sequence[Event], lines: Sequence[bytes], start: int) -> None:
        """Move the tail past records just written (one update, not one per record)."""
        offset = start
        before = self._tail  # the position just before the next indexed record
        for event, line in zip(events, lines, strict=True):
            if event.seq % INDEX_EVERY == 1:
                self._index[event.seq] = before
            offset += len(line) + 1
            if event.seq % INDEX_EVERY == 0:
                before = Tail(event.seq, offset, event.hash.encode(), event.more)
        last = events[-1]
        self._tail = Tail(last.seq, offset, last.hash.encode(), last.more)
        self._ids.update((e.id, e.seq) for e in events)

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
        # We hold the lock, so no live writer is mid-append (see cut_torn_tail).
        self.recovery = cut_torn_tail(self._scanner, self._tail, size, _stamp(self.clock))
        self._syncer.cut(self._tail.offset)
        return self.recovery

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
        kept, known = self._scanner.sound_prefix(size)
        if kept.offset == size:
            return None
        cut = os.pread(self._fd, size - kept.offset, kept.offset)
        # An unknown event type stops the repair here, before anything is cut.
        appends, skipped = salvage(self._decoder, self.path, cut, kept, known)
        if not salvage_records:
            skipped = sorted(skipped + [e.seq for append in appends for e in append])
            appends = []
        aside = cut_at(self._fd, self.path, kept.offset, cut,
                       f"cut-{_stamp(self.clock)}-after-{kept.seq}")
        self._syncer.cut(kept.offset)
        self._forget()
        self._advance()
        drafts = repaired_drafts(len(cut), kept.seq, aside.name, appends, skipped)
        lines, minted = mint_records(drafts, (self._tail.seq, self._tail.hash), self.clock,
                                     self._staged.owner.signer)
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

def _stamp(clock: Clock) -> str:
    """The time in the names of the files a cut saves aside."""
    return clock.now().strftime("%Y%m%dT%H%M%S%fZ")


class _FileWriter(JournalWriter):
    def __init__(self, journal: JournalFile) -> None:
        self._journal = journal

    @property
    def head(self) -> int:
        tail = self._journal._staged.tail()
        return tail[0] if tail else self._journal._tail.seq

    def stage(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        return self._journal._stage(drafts, expect)

    def write(self, *, sync: bool = True) -> int | None:
        return self._journal._write_staged(sync)
