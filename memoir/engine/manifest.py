"""memoir's record of the projected files it wrote, and the lock its writers take.

``.memoir/manifest.json`` holds, per projected file, the hash of memoir's last write and
the seq it was rendered at; the seq the files were last brought up to; the hashes of
writes in progress (saved *before* any rename, so a writer killed half way leaves bytes
memoir still knows as its own); and the files whose last write failed, with why.

The manifest is a cache of facts the journal can re-derive.  It is rewritten in place,
not synced and not renamed: a process crash keeps it (the page cache survives), and a
reader that catches it half written, or finds it lost, compares against the current
rendering instead.

Writers take turns under the projection lock (a thread lock plus ``flock`` on
``.memoir/projections.lock``); under it one read of the manifest is enough, since
nobody else can change it until the lock is released.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import msgspec

from memoir.errors import ProjectionError
from memoir.fs import safefs
from memoir.fs.locking import LockTimeout, ProcessLock

__all__ = ["LOCK", "MANIFEST", "Manifest", "Record", "digest"]

MANIFEST = ".memoir/manifest.json"
LOCK = ".memoir/projections.lock"
# The manifest holds a digest per projected file: far below this for any home.
_LIMIT = 256 << 20


class Record(msgspec.Struct):
    """What the manifest file holds."""

    #: rel -> hashes of memoir's last write of that file.
    files: dict[str, list[str]] = msgspec.field(default_factory=dict)
    #: The seq the files were last brought up to.
    seq: int = 0
    #: rel -> the seq the last write of that file was rendered at (the base a hand
    #: edit of it started from).
    at: dict[str, int] = msgspec.field(default_factory=dict)
    #: rel -> hashes of writes started and not yet recorded.
    pending: dict[str, list[str]] = msgspec.field(default_factory=dict)
    #: rel -> why its last write failed.
    failed: dict[str, str] = msgspec.field(default_factory=dict)

    def knows(self, rel: str, digest: str) -> bool:
        """Whether ``digest`` is the hash of memoir's last or an unfinished write of ``rel``."""
        return digest in self.files.get(rel, ()) or digest in self.pending.get(rel, ())


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Manifest:
    """The manifest of one home, kept in memory, and the projection lock."""

    def __init__(self, home: Path, *, readonly: bool, lock_timeout: float) -> None:
        self.home = home
        self.lock_timeout = lock_timeout
        self.record = self._load()
        self._mutex = threading.RLock()
        self._flock = ProcessLock(
            str(home / LOCK), readonly=readonly,
            opener=lambda flags: safefs.open_own(home, LOCK, flags) if flags & os.O_CREAT
            else safefs.open_file(home, LOCK, flags))
        # True while this object holds the projection lock and has read the manifest.
        self._fresh = False
        self._pid = os.getpid()

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the projection lock (re-entrant): no file write is under way meanwhile."""
        if os.getpid() != self._pid:
            raise ProjectionError(
                f"this handle of {self.home} was opened by process {self._pid}; a forked "
                "child must open the home again (memoir.open)")
        with self._mutex:
            try:
                self._flock.acquire(timeout=self.lock_timeout)
            except LockTimeout:
                raise ProjectionError(
                    f"could not lock {self._flock.path} within {self.lock_timeout:g}s; "
                    "another process is writing projected files (a stuck writer?)"
                ) from None
            try:
                yield
            finally:
                self._flock.release()
                if not self._flock.is_locked:
                    self._fresh = False

    def close(self) -> None:
        with self._mutex:
            self._flock.close()

    def reload(self) -> Record:
        """Re-read the manifest (another process may have written files since).

        A thread that reloads waits for a write of another thread of this object to
        finish (it must not swap the record out from under it).
        """
        with self._mutex:
            if not self._fresh:
                self.record = self._load()
                self._fresh = self._flock.is_locked
            return self.record

    def save(self) -> None:
        # In place, unsynced: see the module docstring.
        data = msgspec.json.encode(self.record)
        fd = safefs.open_own(self.home, MANIFEST, os.O_WRONLY | os.O_CREAT)
        try:
            os.write(fd, data)
            os.ftruncate(fd, len(data))
        finally:
            os.close(fd)

    def _load(self) -> Record:
        try:
            data = safefs.read(self.home, MANIFEST, limit=_LIMIT)
            return msgspec.json.decode(data, type=Record) if data else Record()
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return Record()
