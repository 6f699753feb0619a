"""The journal's cross-process append lock.

On POSIX it is ``fcntl.flock`` on ``journal.jsonl.lock``, held open for the life of
the journal object: acquiring then costs one system call.  ``filelock.FileLock``
reopens and re-stats the lock file on every acquire, which measured 180-450 µs here —
more than a third of a durable append — so it is used only where ``fcntl`` is missing
(Windows).  Both take the same kind of lock on the same file, so memoir processes
using either exclude each other.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import filelock

from memoir.errors import MemoirError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["LockTimeout", "ProcessLock"]


class LockTimeout(MemoirError, TimeoutError):
    """The lock was not acquired within the timeout."""


class ProcessLock:
    """A re-entrant (per object), cross-process exclusive lock on a file.

    ``readonly``: never create or write the lock file (a home opened to read, perhaps on
    a read-only file system); when the file is missing, no writer has ever locked it and
    acquiring is a no-op.  ``opener(flags)`` opens the lock file (default: ``path``,
    never through a link at its last component); memoir passes one that walks its
    home without following links.
    """

    def __init__(self, path: str, *, readonly: bool = False,
                 opener: Callable[[int], int] | None = None) -> None:
        self.path = path
        self.readonly = readonly
        self._opener = opener or self._open_path
        self._count = 0
        self._fd = -1
        self._fallback = filelock.FileLock(path, thread_local=False) if fcntl is None else None
        # flock belongs to the open file, which a forked child shares with its parent:
        # a child must never unlock what the parent holds.
        self._pid = os.getpid()

    @property
    def is_locked(self) -> bool:
        return self._count > 0

    @property
    def lock_count(self) -> int:
        """How many times this object holds the lock (0: not held)."""
        return self._count

    def acquire(self, timeout: float) -> None:
        if self._count:
            self._count += 1
            return
        if self._fallback is not None:  # pragma: no cover - Windows
            try:
                self._fallback.acquire(timeout=timeout)
            except filelock.Timeout:
                raise LockTimeout(self.path) from None
            self._count = 1
            return
        if self._fd < 0:
            if self.readonly:
                try:
                    self._fd = self._opener(os.O_RDONLY)
                except FileNotFoundError:
                    self._count = 1  # nobody ever wrote here: nothing to exclude
                    return
            else:
                self._fd = self._opener(os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._wait(timeout)
        self._count = 1

    def _open_path(self, flags: int) -> int:
        return os.open(self.path, flags | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC, 0o644)

    def _wait(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        pause = 0.0002
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeout(self.path) from None
                time.sleep(pause)
                pause = min(pause * 2, 0.01)

    def release(self) -> None:
        if self._count == 0:
            return
        self._count -= 1
        if self._count:
            return
        if self._fallback is not None:  # pragma: no cover - Windows
            self._fallback.release()
        elif self._fd >= 0 and os.getpid() == self._pid:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        if self._fd >= 0:
            if self._count and os.getpid() == self._pid:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            self._count = 0
            os.close(self._fd)
            self._fd = -1
