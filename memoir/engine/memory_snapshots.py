"""Memory snapshots: the memory part of the state every few thousand records, so a past
session's prompt renders from a nearby point however old its pin.

A full checkpoint carries every session and run ever recorded (tens of megabytes on a
long journal), so only a few are kept; MEMORY and USER are a few kilobytes.  A snapshot
holds them as of a seq, with the byte offset and hash of that record (the journal
vouches for both before a snapshot is used, as for a checkpoint) and a BLAKE2b digest
of the rest (keyed with the home's key when there is one).  They are a cache under
``.memoir/memory/``: deleting them only makes old prompts slower to render.

They are taken while folding — every :data:`EVERY` records of a long catch-up or a
rebuild, at the journal's own index points — and after commits, whenever the head has
moved :data:`EVERY` records past the last one.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import msgspec

from memoir.fs.folder import Folder
from memoir.projections.memory import MemoryState

__all__ = ["EVERY", "KeptMarks", "MemorySnapshot", "MemorySnapshots"]

#: Records between snapshots (the file journal indexes positions as often).
EVERY = 4096
_DIGEST = 32


class MemorySnapshot(msgspec.Struct, kw_only=True):
    seq: int
    offset: int
    hash: str
    memory: MemoryState


class KeptMarks(msgspec.Struct, kw_only=True):
    """The forgotten memory records as read up to ``seq`` (the record ending at byte
    ``offset``, of hash ``hash``): seq -> (target, entry id, kind).  Kept so that a new
    process reads only the records appended since, not the whole journal, before its
    first past view."""

    seq: int
    offset: int
    hash: str
    marks: dict[int, tuple[str, str, str]]


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(MemorySnapshot)
_MARKS_DECODER = msgspec.msgpack.Decoder(KeptMarks)
#: The file of :class:`KeptMarks` (not a snapshot: its name is not a seq).
MARKS_FILE = "forgotten.mpk"


class MemorySnapshots:
    """The snapshots of one home (see the module docstring)."""

    def __init__(self, folder: Path | Folder, *, key: bytes | None = None,
                 readonly: bool = False) -> None:
        self.place = Folder.of(folder)
        self.key = key
        self.readonly = readonly

    def _digest(self, body: bytes) -> bytes:
        return hashlib.blake2b(body, digest_size=_DIGEST, key=self.key or b"").digest()

    def save(self, snapshot: MemorySnapshot) -> None:
        """Keep ``snapshot`` (never raises: a cache that cannot be written is skipped)."""
        self._write(f"{snapshot.seq:012d}.mpk", _ENCODER.encode(snapshot))

    def _write(self, name: str, body: bytes) -> None:
        if self.readonly:
            return
        try:
            self.place.write(name, body + self._digest(body))
        except OSError:
            return

    def _read(self, name: str) -> bytes | None:
        """The body of file ``name`` when its digest holds (None: missing or unsound)."""
        try:
            data = self.place.read(name)
        except OSError:
            return None
        if data is None or len(data) <= _DIGEST:
            return None
        body, digest = data[:-_DIGEST], data[-_DIGEST:]
        return body if self._digest(body) == digest else None

    def save_marks(self, kept: KeptMarks) -> None:
        """Keep the forgotten marks read so far (never raises)."""
        self._write(MARKS_FILE, _ENCODER.encode(kept))

    def marks(self) -> KeptMarks | None:
        """The kept forgotten marks, if sound (the caller checks that the journal vouches
        for their position)."""
        body = self._read(MARKS_FILE)
        if body is None:
            return None
        try:
            return _MARKS_DECODER.decode(body)
        except msgspec.DecodeError:
            return None

    def has(self, seq: int) -> bool:
        return self.place.exists(f"{seq:012d}.mpk")

    def seqs(self) -> list[int]:
        try:
            names = self.place.names()
        except OSError:
            return []
        return sorted(int(n[:-4]) for n in names if n.endswith(".mpk") and n[:-4].isdigit())

    def best(self, at_most: int) -> MemorySnapshot | None:
        """The newest sound snapshot at or before ``at_most`` (the caller still checks
        that the journal vouches for its position)."""
        for seq in reversed(self.seqs()):
            if seq > at_most:
                continue
            body = self._read(f"{seq:012d}.mpk")
            if body is None:
                continue
            try:
                snapshot = _DECODER.decode(body)
            except msgspec.DecodeError:
                continue
            if snapshot.seq == seq:
                return snapshot
        return None
