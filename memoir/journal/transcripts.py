"""The transcript store: the bodies of recorded messages, beside the journal.

The journal's ``session.turn_recorded`` events carry a reference to each message, never
its text, so folding the state (a rebuild, opening a home without a checkpoint) reads no
conversation.  Bodies go into append-only pack files under ``.memoir/transcripts/``:
one JSON line per message, its reference ``<pack>:<offset>:<length>:<hash>`` (the hash
is BLAKE2b-128 of the line, checked on every read).

Writing takes the store's own lock, appends every message of a turn (or of a whole
imported conversation) with one ``write``, and fsyncs before the turn's event is
appended, so an event never points at bytes that are not there.  A crash between the two
leaves unreferenced bytes in a pack, which nothing reads.  Packs roll over at 64 MiB.
A home whose journal is shared (PostgreSQL) also keeps each body in the database, keyed
by its reference, before the turn's event is appended: another machine reads a body its
own packs do not hold from there, checked against the same hash.
A reference names its pack, so readers need no index.  Packs are read and appended
through :class:`~memoir.fs.safefs.Folder`: a link planted in the folder (a pack
pointing at a shell's rc file, say) is never written or read through.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

import msgspec

from memoir import lazyre
from memoir.errors import JournalCorrupted, NotFoundError
from memoir.fs.folder import Folder
from memoir.fs.locking import ProcessLock
from memoir.fs.safefs import LinkRefused
from memoir.journal.interface import SharedBodies
from memoir.names import TRANSCRIPT_REF

__all__ = ["FOLDER", "FORGOTTEN", "MARK", "TranscriptStore", "blanked", "line_hash"]


class OpenHome(Protocol):
    """What the store needs of an open home: its folder, and where its shared journal
    keeps bodies (None: the home keeps them alone)."""

    home: Path

    @property
    def bodies(self) -> SharedBodies | None: ...


#: Where a home keeps its packs.
FOLDER = ".memoir/transcripts"

_PACK_LIMIT = 64 << 20
_PACK_NAME = lazyre.compile(r"pack-[0-9]{6,9}\.jsonl")


def line_hash(data: bytes) -> str:
    """The hash a transcript reference names: BLAKE2b-128 of the body's line."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()



#: How a body ``memoir forget`` blanked starts (the rest: its role, ``[forgotten]``,
#: spaces up to the body's old length; see :mod:`memoir.oversight.forget`).
FORGOTTEN = b'{"forgotten":'


#: What replaces forgotten text in a blanked body (and in files memoir does not rebuild).
MARK = "[forgotten]"


def blanked(old: bytes) -> bytes | None:
    """A body's blanked form, as long as it: its role and :data:`MARK` (None: blanked
    already, or too short to say even that)."""
    if old.startswith(FORGOTTEN):
        return None
    try:
        role = str(json.loads(old).get("role", "user"))[:20]
    except (ValueError, AttributeError):
        role = "user"
    blank = json.dumps({"forgotten": True, "role": role, "content": MARK},
                       separators=(",", ":")).encode()
    if len(blank) > len(old):
        blank = b'{"forgotten":true}'
    return blank + b" " * (len(old) - len(blank)) if len(blank) <= len(old) else None


def _forgotten(data: bytes) -> dict[str, Any]:
    """The message of a blanked body: its role and ``[forgotten]``, nothing else."""
    try:
        value = json.loads(data.rstrip(b" "))
    except ValueError:
        value = {}
    role = value.get("role") if isinstance(value, dict) else None
    return {"role": role if role in ("user", "assistant", "tool", "system") else "user",
            "content": "[forgotten]", "forgotten": True}


class TranscriptStore:
    """The message bodies of a home (see the module docstring)."""

    def __init__(self, folder: Path | Folder, *, fsync: bool = True,
                 readonly: bool = False, shared: SharedBodies | None = None) -> None:
        self.shared = shared
        self.place = Folder.of(folder)
        self.folder = self.place.path
        self.fsync = fsync
        self.readonly = readonly
        self._mutex = threading.Lock()
        self._lock: ProcessLock | None = None
        self._open = threading.local()  # a thread's packs kept open by reading()

    @classmethod
    def in_home(cls, home: Path, *, fsync: bool = True, readonly: bool = False,
                shared: SharedBodies | None = None) -> TranscriptStore:
        """The store of the home at ``home`` (``.memoir/transcripts/``)."""
        return cls(Folder(home, FOLDER), fsync=fsync, readonly=readonly, shared=shared)

    @classmethod
    def of(cls, engine: OpenHome, *, fsync: bool = True,
           readonly: bool = False) -> TranscriptStore:
        """The store of an open home: its packs, and its shared journal's bodies when
        the journal keeps them (a PostgreSQL journal)."""
        return cls.in_home(engine.home, fsync=fsync, readonly=readonly, shared=engine.bodies)

    def put(self, messages: Sequence[dict[str, Any]]) -> list[str]:
        """Store ``messages`` (JSON-able dicts); their references, in order."""
        if not messages:
            return []
        lines = [json.dumps(m, ensure_ascii=False, separators=(",", ":"),
                            sort_keys=True).encode("utf-8") + b"\n" for m in messages]
        with self._mutex:
            if self._lock is None:
                place = self.place
                self._lock = ProcessLock(str(self.folder / "transcripts.lock"), opener=lambda
                                         flags: place.open("transcripts.lock", flags,
                                                           create_dirs=True))
            self._lock.acquire(timeout=60.0)
            try:
                name = self._current_pack(sum(len(line) for line in lines))
                offset = self.place.append(f"{name}.jsonl", b"".join(lines),
                                           fsync=self.fsync)
            finally:
                self._lock.release()
        refs = []
        for line in lines:
            refs.append(f"{name}:{offset}:{len(line) - 1}:{line_hash(line[:-1])}")
            offset += len(line)
        if self.shared is not None:
            self.shared.put_bodies([(ref, line[:-1]) for ref, line in zip(refs, lines,
                                                                            strict=True)])
        return refs

    def _current_pack(self, adding: int) -> str:
        """The pack to append to: the newest, unless it is full (or something that is not
        a pack file, a link say, stands at or above it: a new pack is started past it)."""
        numbers = sorted(int(n[5:-6]) for n in self.place.names() if _PACK_NAME.fullmatch(n))
        if not numbers:
            return "pack-000001"
        last = f"pack-{numbers[-1]:06d}"
        size = self.place.size(f"{last}.jsonl")
        if size is not None and (size + adding <= _PACK_LIMIT or size == 0):
            return last
        return f"pack-{numbers[-1] + 1:06d}"

    def get(self, ref: str) -> dict[str, Any]:
        """The message a reference points at; its bytes are checked against the hash."""
        if not TRANSCRIPT_REF.fullmatch(ref):
            raise JournalCorrupted(f"not a transcript reference: {ref[:100]!r}")
        name, offset, length, digest = ref.split(":")
        start, size = int(offset), int(length)
        pack = f"{name}.jsonl"
        data: bytes | None = None
        kept: dict[str, int] | None = getattr(self._open, "fds", None)
        try:
            fd = kept[pack] if kept is not None and pack in kept else \
                self.place.open(pack, os.O_RDONLY)
        except (FileNotFoundError, NotADirectoryError, LinkRefused) as exc:
            data = self._shared(ref, digest)
            if data is None:
                raise NotFoundError(
                    f"the transcript store has no {pack} (message {ref}"
                    f"{': ' + str(exc) if isinstance(exc, LinkRefused) else ''}); the "
                    "journal is intact, the message body is lost") from None
            fd = -1
        if fd >= 0:
            if kept is not None:
                kept[pack] = fd
            try:
                data = os.pread(fd, size, start)
            finally:
                if kept is None:
                    os.close(fd)
            if len(data) != size or line_hash(data) != digest:
                # Another machine's pack of the same name: the shared copy is the body.
                data = self._shared(ref, digest) or data
            elif not data.startswith(FORGOTTEN):
                return _decoded(data, self.folder, pack, start)  # checked: the hash matched
        assert data is not None
        if len(data) == size and data.startswith(FORGOTTEN):
            return _forgotten(data)
        if len(data) != size or line_hash(data) != digest:
            raise JournalCorrupted(f"{self.folder / pack}: the message at byte {start} does not "
                                   f"match its hash (reference {ref}): the transcript was "
                                   "altered")
        return _decoded(data, self.folder, pack, start)

    def _shared(self, ref: str, digest: str) -> bytes | None:
        """The body kept in the shared journal for ``ref``, when it matches its hash."""
        if self.shared is None:
            return None
        data = self.shared.body(ref)
        return data if data is not None and (line_hash(data) == digest or
                                             data.startswith(FORGOTTEN)) else None

    def get_many(self, refs: Sequence[str]) -> list[dict[str, Any]]:
        with self.reading():
            return [self.get(ref) for ref in refs]

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Within it, this thread opens each pack once: a rebuild of the search index
        reads a million messages from a few packs, and opening the pack (safely, a
        folder at a time) for each message was half its time.  A pack is only appended
        to and blanked in place (:meth:`blank`), so a descriptor kept open sees both."""
        if getattr(self._open, "fds", None) is not None:
            yield  # an outer reading() keeps them
            return
        self._open.fds = {}
        try:
            yield
        finally:
            fds, self._open.fds = self._open.fds, None
            for fd in fds.values():
                os.close(fd)

    # -- forgetting (memoir forget) --------------------------------------------------------

    def _pack_body(self, ref: str, flags: int) -> tuple[int, bytes, str] | None:
        """(descriptor, the bytes at ``ref``, its digest) in this home's pack, or None
        when the pack is not here (or a link stands there: it is not followed)."""
        if not TRANSCRIPT_REF.fullmatch(ref):
            return None
        name, offset, length, digest = ref.split(":")
        try:
            fd = self.place.open(f"{name}.jsonl", flags)
        except (OSError, LinkRefused):
            return None
        return fd, os.pread(fd, int(length), int(offset)), digest

    def forgotten(self, ref: str) -> bool:
        """Whether this home holds nothing of the body ``ref`` names any more (blanked,
        or never here: another machine's pack of the same name holds other bytes)."""
        found = self._pack_body(ref, os.O_RDONLY)
        if found is None:
            return True  # nothing left to blank
        fd, data, digest = found
        os.close(fd)
        return data.startswith(FORGOTTEN) or line_hash(data) != digest

    def blank(self, ref: str) -> None:
        """Overwrite the body ``ref`` names in place by a ``forgotten`` message of the
        same length, synced; only that body (another machine's pack of the same name
        holds other bytes, left alone)."""
        found = self._pack_body(ref, os.O_RDWR)
        if found is None:
            return
        fd, old, digest = found
        try:
            blank = blanked(old) if line_hash(old) == digest else None
            if blank is not None:
                os.pwrite(fd, blank, int(ref.split(":")[1]))
                os.fsync(fd)
        finally:
            os.close(fd)


def _decoded(data: bytes, folder: Path, pack: str, start: int) -> dict[str, Any]:
    """A stored message's object (msgspec reads JSON ~4x faster than the standard
    library; what only the latter accepts, a NaN say, is read by it)."""
    try:
        value = msgspec.json.decode(data)
    except msgspec.DecodeError:
        value = json.loads(data)
    if not isinstance(value, dict):
        raise JournalCorrupted(f"{folder / pack}: the message at byte {start} is not an "
                               "object")
    return value
