"""When a file journal's appends reach stable storage: the durability policy.

``always`` fsyncs every append before it is acknowledged (or, for group commit, once
per batch through :meth:`Syncer.sync_to`); ``batch`` fsyncs at most 50 ms after an
append, from a timer; ``never`` leaves it to the OS.  A failed fsync breaks the
journal for good (the kernel may have dropped the unsynced pages, so nothing after the
last good sync can be vouched for): every later append raises until the home is
opened again.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from memoir.errors import JournalError
from memoir.journal.interface import Durability

__all__ = ["Syncer"]

_BATCH_SECONDS = 0.05


class Syncer:
    """The sync state of one journal file (descriptor ``fd``, set by the journal).

    ``mutex`` is the journal's: the batch timer takes it before syncing.
    """

    def __init__(self, path: Path, durability: Durability, mutex: threading.RLock) -> None:
        self.path = path
        self.durability: Durability = durability
        self.fd = -1
        #: Bytes known to be on stable storage (what survives a power cut).
        self.synced_offset = 0
        self.broken: JournalError | None = None
        self._mutex = mutex
        self._last = time.monotonic()
        self._unsynced = False
        self._timer: threading.Timer | None = None
        # Deferred syncs share fsyncs under this lock (see sync_to).
        self._deferred = threading.Lock()

    def after_write(self, written_to: int) -> None:
        """The sync the policy asks for after an append ending at ``written_to``."""
        if self.durability == "always":
            os.fsync(self.fd)
            self.synced_offset = written_to
        elif self.durability == "batch":
            now = time.monotonic()
            if now - self._last >= _BATCH_SECONDS:
                os.fsync(self.fd)
                self._last = now
                self.synced_offset = written_to
                self._unsynced = False
            else:
                self._unsynced = True
                self._schedule(_BATCH_SECONDS - (now - self._last))

    def _schedule(self, delay: float) -> None:
        if self._timer is None:
            timer = threading.Timer(delay, self._timed)
            timer.daemon = True
            self._timer = timer
            timer.start()

    def _timed(self) -> None:
        with self._mutex:
            self._timer = None
            if self.fd >= 0 and self._unsynced:
                self.now()

    def now(self) -> None:
        """fsync everything written so far, whatever the policy."""
        size = os.fstat(self.fd).st_size
        os.fsync(self.fd)
        self.synced_offset = size
        self._last = time.monotonic()
        self._unsynced = False

    def sync_to(self, offset: int, written_to: Callable[[], int]) -> None:
        """Make the file durable up to ``offset``; ``written_to()`` says how far it has
        been written (a sync covers that much).  Concurrent calls share fsyncs: one
        that finds its bytes covered by another's returns at once."""
        with self._deferred:
            if self.broken is not None:
                raise self.broken
            if self.synced_offset >= offset:
                return
            end = written_to()
            try:
                os.fsync(self.fd)
            except OSError as exc:
                self.broken = JournalError(
                    f"{self.path}: fsync failed ({exc}); appends since the last good sync "
                    "are not durable; open the home again to recover"
                )
                raise self.broken from exc
            self.synced_offset = max(self.synced_offset, end)
            self._last = time.monotonic()

    def cut(self, keep: int) -> None:
        """The file was truncated to ``keep`` bytes (and synced)."""
        self.synced_offset = min(self.synced_offset, keep)

    def opened(self, size: int) -> None:
        """Whatever an earlier process left unsynced is on disk from here on."""
        if self.durability != "never":
            os.fsync(self.fd)
            self.synced_offset = size

    def close(self) -> None:
        """Stop the timer; sync what the batch policy left unsynced."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.fd >= 0 and self._unsynced:
            self.now()
