"""Tombstoning in a journal file (how :class:`~memoir.journal.file.FileJournal` has the
:class:`~memoir.journal.interface.Tombstoning` capability).

A payload is overwritten in place by its tombstone padded with spaces to the same
length, so every offset, checkpoint position and hash stays valid.  A record hashed
over its whole payload (written before the payload digest) is first listed in
``<journal>.forgotten`` (``seq stored-hash digest`` a line, synced before any payload
is overwritten): the scan then still accepts it once its payload is gone.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memoir.events.codec import HASH_HEX, payload_digest, payload_span, tombstone
from memoir.layout import FORGOTTEN_SUFFIX

if TYPE_CHECKING:
    from memoir.journal.file.reader import FileReader

__all__ = ["FileTombstones", "read_forgotten"]

_HASH_FIELD = len(b',"hash":"')


def read_forgotten(path: Path) -> dict[int, tuple[bytes, bytes]]:
    """What ``<journal>.forgotten`` beside ``path`` lists (seq -> (stored hash, payload
    digest)); a link there is not followed."""
    found: dict[int, tuple[bytes, bytes]] = {}
    try:
        fd = os.open(str(path) + FORGOTTEN_SUFFIX, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return found
    with os.fdopen(fd, "rb") as stream:
        for line in stream.read(1 << 26).splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[0].isdigit():
                found[int(parts[0])] = (parts[1], parts[2])
    return found


class FileTombstones:
    """Tombstones and the ``<journal>.forgotten`` list of one journal file."""

    def __init__(self, file: FileReader) -> None:
        self.file = file
        self.path = file.path

    def reload_forgotten(self) -> None:
        """Read ``<journal>.forgotten`` again (the scan accepts what it lists)."""
        self.file.scanner.forgotten = read_forgotten(self.path)

    def set_aside(self) -> dict[int, tuple[bytes, bytes]]:
        """What ``<journal>.forgotten`` lists (seq -> (stored hash, payload digest))."""
        return dict(self.file.scanner.forgotten)

    def tombstone(self, digests: Mapping[int, str], *,
                  places: Mapping[int, tuple[int, int]] | None = None,
                  bodies: Sequence[str] = ()) -> None:
        if not digests:
            return
        if places is None or set(places) != set(digests) or \
                any(offset < 0 for offset, _size in places.values()):
            places = self._places(digests)
        fd = os.open(self.path, os.O_RDWR | os.O_NOFOLLOW)
        try:
            todo = []
            for seq, (offset, size) in sorted(places.items()):
                digest = digests[seq]
                stone = tombstone(digest.encode())
                current = os.pread(fd, size, offset)
                if len(stone) > size or current.rstrip(b" ") == stone or \
                        payload_digest(current).decode() != digest:
                    continue  # another payload than the one planned, or done already
                # The hash field follows the payload: ,"hash":"<32 hex>"
                stored = os.pread(fd, HASH_HEX, offset + size + _HASH_FIELD)
                todo.append((seq, offset, size, stone, stored, digest))
            self._list_aside([(seq, stored, digest)
                              for seq, _o, _s, _t, stored, digest in todo])
            for _seq, offset, size, stone, _stored, _digest in todo:
                os.pwrite(fd, stone + b" " * (size - len(stone)), offset)
            os.fsync(fd)
        finally:
            os.close(fd)

    def _places(self, digests: Mapping[int, str]) -> dict[int, tuple[int, int]]:
        places = {}
        for seq, offset, line in self.file.read_lines(min(digests) - 1, max(digests)):
            span = payload_span(line) if seq in digests else None
            if span is not None:
                places[seq] = (offset + span[0], span[1] - span[0])
        return places

    def _list_aside(self, entries: Sequence[tuple[int, bytes, str]]) -> None:
        """Add (seq, stored hash, payload digest) of records about to be tombstoned to
        ``<journal>.forgotten``, synced before any payload is overwritten, so a record
        hashed over its whole body is still accepted once its payload is gone."""
        if not entries:
            return
        listed = self.set_aside()
        fresh = b"".join(f"{seq} {stored.decode()} {digest}\n".encode()
                         for seq, stored, digest in entries if seq not in listed)
        if fresh:
            fd = os.open(str(self.path) + FORGOTTEN_SUFFIX,
                         os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o644)
            try:
                os.write(fd, fresh)
                os.fsync(fd)
            finally:
                os.close(fd)
        self.reload_forgotten()
