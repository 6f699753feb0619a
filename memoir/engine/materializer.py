"""The materializer: the only code that writes projected files into the home.

Files are written atomically (temp file in the same folder, fsync, then rename), so
a reader — a Hermes agent pointed at the home — sees the old or the new bytes, never
a mix, and a crash never leaves an empty file that would later look like a hand edit.

The materializer remembers the hash of what it last wrote to each file in
``.memoir/manifest.json``; a file whose bytes are neither that last write nor what
the journal renders now was edited by hand (drift) and is never overwritten:
``memoir adopt`` turns the edit into events, ``memoir rebuild --force`` discards it
(keeping a ``.bak`` copy).

The manifest is rewritten in place without fsync: it is a cache of facts the
journal can re-derive, and a lost or torn manifest only means comparing against
the current rendering instead.

Every write happens under the projection lock (a thread lock plus ``flock`` on
``.memoir/projections.lock``), so writers in several threads and processes take
turns and each re-reads the manifest first.  Drift checks run without the lock and
are exact anyway: a file that looks edited is checked again under the lock, where
no write can be half done.  A file memoir found to be its own is remembered by its
``stat`` (inode, size, mtime, ctime), so checking it again costs one ``stat`` until
anything changes it.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import msgspec

from memoir.errors import ProjectionError
from memoir.journal.locking import LockTimeout, ProcessLock

__all__ = ["Drift", "Materializer", "atomic_write"]

_RECENT = 1  # only the last write of a file is memoir's own


@dataclass(frozen=True)
class Drift:
    """A projected file that was changed outside memoir."""

    path: str
    expected: bytes | None
    actual: bytes | None

    @property
    def deleted(self) -> bool:
        return self.actual is None


class _Manifest(msgspec.Struct):
    files: dict[str, list[str]] = msgspec.field(default_factory=dict)
    seq: int = 0


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def atomic_write(path: Path, data: bytes, *, fsync: bool = False) -> None:
    """Write ``data`` to ``path`` through a temp file and a rename; symlinks survive."""
    target = Path(os.path.realpath(path))
    # Unique per process and thread, so two writers never share a temp file.
    tmp = target.with_name(f".{target.name}.memoir-tmp-{os.getpid()}-{threading.get_ident()}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    try:
        try:
            fd = os.open(tmp, flags, 0o644)
        except FileNotFoundError:
            # Creating the folder only when missing saves a system call per write.
            target.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, flags, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        # A full disk or a failed rename must not leave the temp file behind.
        tmp.unlink(missing_ok=True)
        raise


class Materializer:
    """Writes projected files under ``home`` and detects hand edits."""

    def __init__(self, home: Path, *, fsync: bool = True, lock_timeout: float = 60.0) -> None:
        self.home = home
        self.fsync = fsync
        self.lock_timeout = lock_timeout
        self._manifest_path = home / ".memoir" / "manifest.json"
        self._manifest = self._load()
        self._mutex = threading.RLock()
        self._flock = ProcessLock(str(home / ".memoir" / "projections.lock"))
        # rel -> stat key of a file last seen to be memoir's own.
        self._own: dict[str, tuple[int, int, int, int]] = {}
        self._paths: dict[str, str] = {}
        # True while this object holds the projection lock and has read the manifest.
        self._fresh = False

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the projection lock (re-entrant): no file write is under way meanwhile."""
        with self._mutex:
            if not self._flock.is_locked:
                self._manifest_path.parent.mkdir(parents=True, exist_ok=True)
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

    def _stat_key(self, rel: str) -> tuple[int, int, int, int] | None:
        path = self._paths.get(rel)
        if path is None:
            path = self._paths[rel] = os.path.join(self.home, rel)
        try:
            st = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    def _load(self) -> _Manifest:
        try:
            return msgspec.json.decode(self._manifest_path.read_bytes(), type=_Manifest)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return _Manifest()

    def _save(self) -> None:
        # Rewritten in place, not synced and not renamed: the manifest is a cache of
        # facts the journal can re-derive, a temp file and a rename cost more than the
        # write itself, and a reader that catches it half-written fails to decode it
        # and compares against the current rendering instead.
        self._manifest_path.parent.mkdir(parents=True, exist_ok=True)
        data = msgspec.json.encode(self._manifest)
        fd = os.open(self._manifest_path, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
            os.ftruncate(fd, len(data))
        finally:
            os.close(fd)

    def reload(self) -> None:
        """Re-read the manifest (another process may have written files since).

        Under the projection lock one read is enough: nobody else can change the
        manifest until the lock is released.
        """
        if self._fresh:
            return
        self._manifest = self._load()
        self._fresh = self._flock.is_locked

    def read(self, rel: str) -> bytes | None:
        try:
            return (self.home / rel).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def is_drifted(self, rel: str, current: bytes | Callable[[], bytes | None] | None
                   ) -> Drift | None:
        """Whether the file at ``rel`` was edited by hand, given what memoir renders now.

        ``current`` may be a function that renders it, called only when the file's
        ``stat`` does not vouch for it.

        The file is memoir's own when it holds the current rendering or the bytes of
        memoir's last write of it (a writer that died between appending to the journal
        and writing the file leaves those, and so does a file the background writer
        has not brought up to date yet).  Anything else is a hand edit, including an
        older rendering put back by hand.  A missing file is not drift: it is
        rewritten (Hermes reads a missing file as empty, so deleting it never hides
        entries from the journal).
        """
        key = self._stat_key(rel)
        if key is None or self._own.get(rel) == key:
            return None
        if callable(current):
            current = current()
        drift = self._check(rel, current)
        if drift is None:
            return None
        # It looks edited; make sure it is not a write of another thread or process
        # caught half way (the manifest names the new bytes only once it is done).
        with self.locked():
            self.reload()
            return self._check(rel, current)

    def _check(self, rel: str, current: bytes | None) -> Drift | None:
        key = self._stat_key(rel)
        actual = self.read(rel)
        if actual is None:
            return None
        if current is not None and actual == current:
            self._remember_own(rel, key, actual)
            return None
        known = self._manifest.files.get(rel)
        if known and _digest(actual) == known[0]:
            self._remember_own(rel, key, actual)
            return None
        return Drift(rel, current, actual)

    def _remember_own(self, rel: str, key: tuple[int, int, int, int] | None,
                      actual: bytes) -> None:
        # Only if the file did not change between the stat and the read.
        if key is not None and key[1] == len(actual) and self._stat_key(rel) == key:
            self._own[rel] = key

    def drift(self, desired: Mapping[str, bytes | None]) -> list[Drift]:
        self.reload()
        found = []
        for rel, data in desired.items():
            d = self.is_drifted(rel, data)
            if d is not None:
                found.append(d)
        return found

    def wrote(self, rel: str) -> bool:
        """Whether the materializer has written ``rel`` (and not removed it since)."""
        return rel in self._manifest.files

    @property
    def seq(self) -> int:
        """The journal seq the files were last brought up to (from the manifest)."""
        self.reload()
        return self._manifest.seq

    def write(self, desired: Mapping[str, bytes | None], *, seq: int,
              skip: Iterable[str] = ()) -> list[str]:
        """Bring files up to ``desired`` (None removes a file); returns the paths written.

        Paths in ``skip`` (drifted files) are left alone.
        """
        with self.locked():
            return self._write(desired, seq, set(skip))

    def _write(self, desired: Mapping[str, bytes | None], seq: int,
               skipped: set[str]) -> list[str]:
        written = []
        self.reload()
        for rel, data in desired.items():
            if rel in skipped:
                continue
            path = self.home / rel
            if data is None:
                if path.exists():
                    path.unlink()
                    written.append(rel)
                    self._prune_empty_parents(path.parent)
                self._manifest.files.pop(rel, None)
                self._own.pop(rel, None)
                continue
            if self.read(rel) != data:
                atomic_write(path, data, fsync=self.fsync)
                written.append(rel)
            key = self._stat_key(rel)
            if key is not None and key[1] == len(data):
                self._own[rel] = key
            recent = self._manifest.files.setdefault(rel, [])
            digest = _digest(data)
            if digest in recent:
                recent.remove(digest)
            recent.insert(0, digest)
            del recent[_RECENT:]
        if written or seq != self._manifest.seq:
            self._manifest.seq = seq
            self._save()
        return written

    def _prune_empty_parents(self, folder: Path) -> None:
        """Remove folders left empty by a removed file (an archived or deleted skill),
        up to but not including the top-level folders of the home."""
        home = self.home.resolve()
        folder = folder.resolve()
        while folder != home and folder.parent != home and home in folder.parents:
            try:
                folder.rmdir()
            except OSError:
                return  # not empty (or not ours to remove): stop here
            folder = folder.parent

    def backup(self, rel: str, stamp: int) -> Path | None:
        """Copy a drifted file to ``<file>.bak.<unix seconds>`` (Hermes's naming)."""
        data = self.read(rel)
        if data is None:
            return None
        bak = (self.home / rel).with_name(f"{Path(rel).name}.bak.{stamp}")
        atomic_write(bak, data, fsync=True)
        return bak
