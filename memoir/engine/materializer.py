"""The materializer: the only code that writes projected files into the home.

Files are written atomically (temp file in the same folder, fsync, then an atomic
exchange or rename, see :mod:`memoir.fs.safefs`), so a reader — a Hermes agent
pointed at the home — sees the old or the new bytes, never a mix, and a crash never
leaves an empty file that would later look like a hand edit.  No link below the home is
ever followed, for reading, writing or removing.

What memoir wrote is recorded in ``.memoir/manifest.json`` (see
:mod:`memoir.engine.manifest`).  A file whose bytes are neither memoir's last write, a
write in progress, nor what the journal renders now was edited by hand (drift) and is
never overwritten: ``memoir adopt`` turns the edit into events, ``memoir rebuild
--force`` discards it (keeping a ``.bak`` copy).

Every write happens under the projection lock, so writers in several threads and
processes take turns and each re-reads the manifest first.  Drift checks run without the
lock and are exact anyway: a file that looks edited is checked again under the lock,
where no write can be half done.  A file memoir found to be its own is remembered by its
``stat`` (inode, size, mtime, ctime), so checking it again costs one ``lstat`` until
anything changes it.

A file that cannot be written (a folder where the file goes, a name the file system
cannot hold, a full disk) does not stop the others: it is recorded in ``failed`` and
reported by ``memoir status``, and the next write tries it again.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from memoir.engine.manifest import Manifest
from memoir.engine.manifest import digest as _digest
from memoir.engine.places import NotConfigured, Places
from memoir.errors import ProjectionError
from memoir.fs import safefs

__all__ = ["Drift", "Materializer", "NotConfigured", "atomic_write", "unwritable"]

#: Files Hermes writes under a lock of its own (``<file>.lock`` beside it, spec §1.7):
#: memoir holds that lock too while it writes them, so the two never write at once.
HERMES_LOCKED = frozenset({"memories/MEMORY.md", "memories/USER.md"})
#: How long memoir waits for Hermes to release such a lock (seconds).
HERMES_LOCK_WAIT = 10.0

#: Which drifts: bytes someone else wrote, a link where memoir keeps a file (never
#: followed), or something else that is not a regular file (a folder, a device).
DriftKind = Literal["edited", "link", "other"]


@dataclass(frozen=True)
class Drift:
    """A projected file that was changed outside memoir."""

    path: str
    expected: bytes | None
    actual: bytes | None
    kind: DriftKind = "edited"

    @property
    def deleted(self) -> bool:
        return self.actual is None and self.kind == "edited"


def atomic_write(path: Path, data: bytes, *, fsync: bool = False) -> None:
    """Write ``data`` to ``path`` through a temp file and a rename (for memoir's own
    files under ``.memoir/``; projected files go through :class:`Materializer`)."""
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
    """Writes projected files under ``home`` (and external skills folders: see
    :mod:`memoir.engine.places`) and detects hand edits."""

    def __init__(self, home: Path, *, fsync: bool = True, lock_timeout: float = 60.0,
                 readonly: bool = False, external_dirs: Iterable[str] = ()) -> None:
        self.home = home
        self.fsync = fsync
        self.lock_timeout = lock_timeout
        #: Never write (a home opened to read): drift checks still work.
        self.readonly = readonly
        self.manifest = Manifest(home, readonly=readonly, lock_timeout=lock_timeout)
        # rel -> stat key of a file last seen to be memoir's own.
        self._own: dict[str, tuple[int, int, int, int]] = {}
        # rel -> hash of bytes found equal to what the journal rendered then: memoir's
        # own too (an adopted hand edit, say), though memoir did not write them.
        self._rendered: dict[str, str] = {}
        #: The files the last :meth:`write` could not write, and why.
        self.last_failed: dict[str, str] = {}
        #: Files the last :meth:`write` left alone because a hand edit arrived while it
        #: was writing them (the edit was kept).
        self.last_kept: list[str] = []
        #: Says whether bytes of a file are a rendering of the journal at some seq (for
        #: when the manifest lost track of a write: a crash, a lost manifest).  Set by
        #: the projector; called only for bytes that otherwise look like a hand edit.
        self.recognise: Callable[[str, bytes], bool] | None = None
        # rel -> hash of bytes `recognise` said were not memoir's (asked once).
        self._foreign: dict[str, str] = {}
        #: Where each projected path is on disk (the home, an external folder).
        self.places = Places(home, external_dirs)

    def locked(self) -> contextlib.AbstractContextManager[None]:
        """Hold the projection lock (re-entrant): no file write is under way meanwhile."""
        return self.manifest.locked()

    def close(self) -> None:
        self.manifest.close()

    def reload(self) -> None:
        """Re-read the manifest (another process may have written files since)."""
        self.manifest.reload()

    # -- the manifest -----------------------------------------------------------------------

    @property
    def seq(self) -> int:
        """The journal seq the files were last brought up to (from the manifest)."""
        return self.manifest.reload().seq

    @property
    def failed(self) -> dict[str, str]:
        """Projected files whose last write failed, and why (from the manifest)."""
        self.reload()
        return dict(self.manifest.record.failed)

    @property
    def interrupted(self) -> bool:
        """Whether a writer died while writing files (its intent is still recorded)."""
        self.reload()
        return bool(self.manifest.record.pending)

    def wrote(self, rel: str) -> bool:
        """Whether the materializer has written ``rel`` (and not removed it since)."""
        return rel in self.manifest.record.files

    def written_at(self, rel: str) -> int | None:
        """The seq memoir's last write of ``rel`` was rendered at (None: unknown)."""
        return self.manifest.reload().at.get(rel)

    def missing(self) -> list[str]:
        """Files memoir wrote that are gone from the disk (deleted by hand)."""
        self.reload()
        return sorted(rel for rel in self.manifest.record.files
                      if self.places.locate(rel) is not None
                      and not os.path.lexists(self.places.path(rel)))

    # -- reading and drift ------------------------------------------------------------------

    def read(self, rel: str) -> bytes | None:
        """The bytes of the regular file at ``rel`` (None: missing, a link or not a file)."""
        return self.places.read(rel)

    def _own_bytes(self, rel: str, actual: bytes) -> bool:
        found = _digest(actual)
        return self.manifest.record.knows(rel, found) or self._rendered.get(rel) == found

    def is_drifted(self, rel: str, current: bytes | Callable[[], bytes | None] | None,
                   *, recognise: bool = True) -> Drift | None:
        """Whether the file at ``rel`` was edited by hand, given what memoir renders now.

        ``current`` may be a function that renders it, called only when the file's
        ``stat`` does not vouch for it.

        The file is memoir's own when it holds the current rendering, the bytes of
        memoir's last write of it, or of a write of it in progress (a writer that died
        between the journal and the file leaves those, and so does a file the
        background writer has not brought up to date yet).  Anything else is a hand
        edit, including an older rendering put back by hand.  A missing file is not
        drift: it is rewritten (Hermes reads a missing file as empty, so deleting it
        never hides entries from the journal).  A link or a folder where memoir keeps a
        file is drift of its own kind: memoir never follows or replaces it.

        ``recognise``: also ask :attr:`recognise` (it reads the journal); a caller that
        holds the projection lock without the state mutex (the background writer) must
        not, so that locks are never taken the other way round.
        """
        key = self.places.stat_key(rel)
        if key is not None and self._own.get(rel) == key:
            return None
        if callable(current):
            current = current()
        drift = self._check(rel, current, recognise)
        if drift is None:
            return None
        # It looks edited; make sure it is not a write of another thread or process
        # caught half way (the manifest names the new bytes only once it is done).
        with self.locked():
            self.reload()
            return self._check(rel, current, False)

    def _check(self, rel: str, current: bytes | None, recognise: bool) -> Drift | None:
        key = self.places.stat_key(rel)
        actual = self.read(rel)
        if actual is None:
            found = self.places.kind(rel)
            if found == "missing" and current is not None and self.places.shared(rel) \
                    and rel in self.manifest.record.files:
                # Removed from a folder others change too (a teammate's pull): theirs
                # to decide, adopted or refused like an edit, never put back unasked.
                return Drift(rel, current, None)
            if found in ("missing", "file"):  # "file": it went away while we looked
                return None
            return Drift(rel, current, None, "link" if found == "link" else "other")
        if current is not None and actual == current:
            self._rendered[rel] = _digest(actual)
            self._remember_own(rel, key, actual)
            return None
        if self._own_bytes(rel, actual) or (recognise and self._recognised(rel, actual)):
            self._remember_own(rel, key, actual)
            return None
        return Drift(rel, current, actual)

    def _recognised(self, rel: str, actual: bytes) -> bool:
        if self.recognise is None:
            return False
        digest = _digest(actual)
        if self._foreign.get(rel) == digest:
            return False
        if self.recognise(rel, actual):
            self._rendered[rel] = digest
            return True
        self._foreign[rel] = digest
        return False

    def _remember_own(self, rel: str, key: tuple[int, int, int, int] | None,
                      actual: bytes) -> None:
        # Only if the file did not change between the stat and the read.
        if key is not None and key[1] == len(actual) and self.places.stat_key(rel) == key:
            self._own[rel] = key

    def drift(self, desired: Mapping[str, bytes | None], *,
              recognise: bool = True) -> list[Drift]:
        self.reload()
        self.places.forget_misses()
        found = []
        for rel, data in desired.items():
            d = self.is_drifted(rel, data, recognise=recognise)
            if d is not None:
                found.append(d)
        return found

    # -- writing ----------------------------------------------------------------------------

    def write(self, desired: Mapping[str, bytes | None], *, seq: int,
              skip: Iterable[str] = (), replace: Mapping[str, bytes] | None = None,
              blocked: Mapping[str, str] | None = None) -> list[str]:
        """Bring files up to ``desired`` (None removes a file); returns the paths written.

        Paths in ``skip`` (files edited by hand) are left alone; ``replace`` names
        drifted files that may be overwritten all the same, with the bytes the caller
        saw there (and backed up, or adopted): other bytes found there are kept;
        ``blocked`` names paths that cannot be written (see :func:`unwritable`), with
        why.  A file that cannot be written is recorded in :attr:`last_failed` (and in
        the manifest) while the others are written; one that a hand edit reached during
        the write is left with the edit (:attr:`last_kept`).
        """
        if self.readonly:
            raise ProjectionError(f"{self.home} is open read-only; no file is written")
        blocked = dict(blocked or {})
        with self.locked():
            return self._write(desired, seq, set(skip) | set(blocked), replace or {},
                               blocked)

    def _write(self, desired: Mapping[str, bytes | None], seq: int, skipped: set[str],
               replace: Mapping[str, bytes], blocked: dict[str, str]) -> list[str]:
        self.reload()
        self.places.forget_misses()
        manifest = self.manifest.record
        # A file of an external folder not configured here is no failure: not written.
        todo = {rel: data for rel, data in desired.items()
                if rel not in skipped and self.places.locate(rel) is not None}
        intents = {rel: _digest(data) for rel, data in todo.items() if data is not None}
        for rel, digest in intents.items():
            known = manifest.pending.setdefault(rel, [])
            if digest not in known:
                known.append(digest)
        if intents:
            self.manifest.save()  # before any rename: a crash after one leaves known bytes
        written: list[str] = []
        self.last_failed, self.last_kept = {}, []
        self.last_failed.update(blocked)
        for rel, data in todo.items():
            try:
                if data is None:
                    changed = self._remove(rel, replace.get(rel))
                else:
                    changed = self._put(rel, data, seq, replace.get(rel))
            except OSError as exc:
                self.last_failed[rel] = _why(exc)
                continue
            manifest.failed.pop(rel, None)
            if changed:
                written.append(rel)
        manifest.failed.update(self.last_failed)
        for rel in todo:
            if rel not in self.last_failed:
                manifest.pending.pop(rel, None)
        for rel in desired:
            if rel not in self.last_failed and rel not in skipped:
                manifest.failed.pop(rel, None)
        if written or seq != manifest.seq or intents or self.last_failed:
            manifest.seq = seq
            self.manifest.save()
        return written

    def _put(self, rel: str, data: bytes, seq: int, accepted: bytes | None) -> bool:
        """Write one file; True if its bytes changed on disk."""
        manifest = self.manifest.record
        digest = _digest(data)
        base, inner = self.places.at(rel)
        folder, _, name = inner.rpartition("/")
        changed = False
        with safefs.open_dir(base, folder, create=True) as dfd, \
                safefs.file_lock(dfd, f"{name}.lock", timeout=HERMES_LOCK_WAIT) \
                if rel in HERMES_LOCKED else contextlib.nullcontext():
            if safefs.entry(dfd, name)[1] != data:
                temp = safefs.write_temp(dfd, data, fsync=self.fsync)

                def ours(previous: bytes | None, rel: str = rel) -> bool:
                    return previous is not None and (
                        previous in (data, accepted) or self._own_bytes(rel, previous))

                if not safefs.install(dfd, temp, name, data, ours):
                    self.last_kept.append(rel)
                    return False
                changed = True
        key = self.places.stat_key(rel)
        if key is not None and key[1] == len(data):
            self._own[rel] = key
        manifest.files[rel] = [digest]
        manifest.at[rel] = seq
        return changed

    def _remove(self, rel: str, accepted: bytes | None) -> bool:
        manifest = self.manifest.record
        found = self.places.locate(rel)
        removed = found is not None and safefs.remove(
            *found,
            lambda previous: previous is not None and (
                previous == accepted or self._own_bytes(rel, previous)),
            lock=f"{rel.rpartition('/')[2]}.lock" if rel in HERMES_LOCKED else None,
            lock_timeout=HERMES_LOCK_WAIT)
        manifest.files.pop(rel, None)
        manifest.at.pop(rel, None)
        self._own.pop(rel, None)
        return removed

    def sweep(self) -> list[str]:
        """Remove temp files that writers killed mid-write left in the folders of the
        files memoir writes; returns what was removed."""
        if self.readonly:
            return []
        self.reload()
        folders = {rel.rpartition("/")[0] for rel in
                   (*self.manifest.record.files, *self.manifest.record.pending)}
        cutoff = time.time() - 3600
        removed: list[str] = []
        for folder in sorted(folders):
            removed += self.places.sweep_temps(folder, older_than=cutoff)
        for folder in sorted(folders, key=len, reverse=True):
            self.places.prune_empty(folder)
        return removed

    def backup(self, rel: str, stamp: int) -> Path | None:
        """Copy a drifted file to ``<file>.bak.<unix seconds>`` (Hermes's naming)."""
        data = self.read(rel)
        return None if data is None else self.places.backup(rel, data, stamp)


def unwritable(drifted: Iterable[Drift]) -> tuple[list[str], dict[str, str]]:
    """Split drifts into paths to leave alone (hand edits; a link or folder where a file
    memoir no longer wants was) and paths memoir cannot write at all (a link or a
    non-file where a file goes), with the reason for the latter."""
    edits, blocked = [], {}
    for d in drifted:
        if d.kind == "edited" or d.expected is None:
            edits.append(d.path)
        elif d.kind == "link":
            blocked[d.path] = ("a symbolic link stands where the file goes; memoir "
                               "never writes through a link below its home")
        else:
            blocked[d.path] = "something that is not a regular file stands where it goes"
    return edits, blocked


def _why(exc: OSError) -> str:
    """One line for an OSError, without the absolute path the exception carries."""
    if isinstance(exc, safefs.LinkRefused) or not exc.strerror:
        return str(exc)
    return f"{exc.strerror} (errno {exc.errno})"
