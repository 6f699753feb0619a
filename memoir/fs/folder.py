"""memoir's own folders below a home (``.memoir/transcripts``, ``.memoir/prompts``,
``.memoir/checkpoints`` …): a :class:`Folder` reads, writes, appends, lists and removes
its files through :mod:`memoir.fs.safefs`'s walk, so no link planted there is
followed, and every name is one plain component."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from memoir.fs.safefs import (
    LinkRefused,
    UnsafePath,
    append_file,
    kind,
    listdir,
    open_dir,
    open_file,
    parts,
    read,
    unlink,
    write_file,
)

__all__ = ["Folder"]


@dataclass(frozen=True)
class Folder:
    """A folder of memoir's own below a home (``.memoir/transcripts``, say): every read,
    write, append, listing and removal in it walks from ``home`` without following a
    link, and every name is one plain component."""

    home: Path
    rel: str

    @classmethod
    def of(cls, where: Path | Folder) -> Folder:
        """``where`` as a folder; a plain path is walked from its parent (for tests and
        tools that hold one folder)."""
        return where if isinstance(where, Folder) else cls(where.parent, where.name)

    @property
    def path(self) -> Path:
        """Where it is, for messages."""
        return self.home / self.rel

    def beside(self, name: str) -> Folder:
        """The folder ``name`` next to this one."""
        parent = self.rel.rpartition("/")[0]
        return Folder(self.home, f"{parent}/{name}" if parent else name)

    def _rel(self, name: str) -> str:
        if "/" in name:
            raise UnsafePath(errno.EINVAL, f"{name!r} is not one file name")
        rel = f"{self.rel}/{name}" if self.rel else name
        parts(rel)
        return rel

    def read(self, name: str, *, limit: int | None = None) -> bytes | None:
        """The file's bytes; None when it is missing, a link or not a regular file."""
        return read(self.home, self._rel(name), limit=limit)

    def write(self, name: str, data: bytes, *, fsync: bool = False) -> None:
        write_file(self.home, self._rel(name), data, fsync=fsync)

    def append(self, name: str, data: bytes, *, fsync: bool = False) -> int:
        return append_file(self.home, self._rel(name), data, fsync=fsync)

    def open(self, name: str, flags: int, *, create_dirs: bool = False) -> int:
        return open_file(self.home, self._rel(name), flags, create_dirs=create_dirs)

    def names(self) -> list[str]:
        return listdir(self.home, self.rel)

    def unlink(self, name: str) -> bool:
        return unlink(self.home, self._rel(name))

    def exists(self, name: str) -> bool:
        return kind(self.home, self._rel(name)) == "file"

    def size(self, name: str) -> int | None:
        """The file's size in bytes (None: not a regular file here)."""
        self._rel(name)  # checks the name
        try:
            with open_dir(self.home, self.rel) as dfd:
                st = os.lstat(name, dir_fd=dfd)
        except (FileNotFoundError, NotADirectoryError, LinkRefused):
            return None
        return st.st_size if stat.S_ISREG(st.st_mode) else None
