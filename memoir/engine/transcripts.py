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
A reference names its pack, so readers need no index.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memoir.errors import JournalCorrupted, NotFoundError
from memoir.journal.locking import ProcessLock

__all__ = ["TranscriptStore"]

_PACK_LIMIT = 64 << 20


def _hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class TranscriptStore:
    """The message bodies of a home (see the module docstring)."""

    def __init__(self, folder: Path, *, fsync: bool = True, readonly: bool = False) -> None:
        self.folder = folder
        self.fsync = fsync
        self.readonly = readonly
        self._mutex = threading.Lock()
        self._lock: ProcessLock | None = None

    def _pack_path(self, name: str) -> Path:
        if not name.startswith("pack-") or "/" in name or ".." in name:
            raise JournalCorrupted(f"transcript reference names no pack: {name!r}")
        return self.folder / f"{name}.jsonl"

    def put(self, messages: Sequence[dict[str, Any]]) -> list[str]:
        """Store ``messages`` (JSON-able dicts); their references, in order."""
        if not messages:
            return []
        lines = [json.dumps(m, ensure_ascii=False, separators=(",", ":"),
                            sort_keys=True).encode("utf-8") + b"\n" for m in messages]
        self.folder.mkdir(parents=True, exist_ok=True)
        with self._mutex:
            if self._lock is None:
                self._lock = ProcessLock(str(self.folder / "transcripts.lock"))
            self._lock.acquire(timeout=60.0)
            try:
                name = self._current_pack(sum(len(line) for line in lines))
                path = self.folder / f"{name}.jsonl"
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
                try:
                    offset = os.fstat(fd).st_size
                    data = b"".join(lines)
                    written = 0
                    while written < len(data):
                        written += os.write(fd, data[written:])
                    if self.fsync:
                        os.fsync(fd)
                finally:
                    os.close(fd)
            finally:
                self._lock.release()
        refs = []
        for line in lines:
            refs.append(f"{name}:{offset}:{len(line) - 1}:{_hash(line[:-1])}")
            offset += len(line)
        return refs

    def _current_pack(self, adding: int) -> str:
        packs = sorted(p.stem for p in self.folder.glob("pack-*.jsonl"))
        if packs:
            last = packs[-1]
            size = (self.folder / f"{last}.jsonl").stat().st_size
            if size + adding <= _PACK_LIMIT or size == 0:
                return last
            number = int(last.removeprefix("pack-")) + 1
        else:
            number = 1
        return f"pack-{number:06d}"

    def get(self, ref: str) -> dict[str, Any]:
        """The message a reference points at; its bytes are checked against the hash."""
        try:
            name, offset, length, digest = ref.split(":")
            start, size = int(offset), int(length)
        except ValueError:
            raise JournalCorrupted(f"not a transcript reference: {ref!r}") from None
        path = self._pack_path(name)
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            raise NotFoundError(f"the transcript store has no {path.name} (message {ref}); "
                                "the journal is intact, the message body is lost") from None
        try:
            data = os.pread(fd, size, start)
        finally:
            os.close(fd)
        if len(data) != size or _hash(data) != digest:
            raise JournalCorrupted(f"{path}: the message at byte {start} does not match its "
                                   f"hash (reference {ref}): the transcript was altered")
        value = json.loads(data)
        if not isinstance(value, dict):
            raise JournalCorrupted(f"{path}: the message at byte {start} is not an object")
        return value

    def get_many(self, refs: Sequence[str]) -> list[dict[str, Any]]:
        return [self.get(ref) for ref in refs]
