"""Reading files a person or a tree points memoir at: regular files only, bounded.

A path given on the command line may be anything: ``/dev/zero`` never ends, a FIFO
blocks, a link in a skills tree being imported may point at a credentials file.  What
memoir reads from outside its home goes through :func:`read_regular`: it refuses
anything but a regular file, reads at most ``limit`` bytes (a longer file is an error,
not a truncation), and, where asked, refuses to follow a link.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from memoir.errors import ValidationError

__all__ = ["read_regular", "read_text"]


def read_regular(path: str | os.PathLike[str], *, limit: int, follow_links: bool = True,
                 what: str = "file") -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them.

    Raises :class:`ValidationError` naming the path for a missing file, a link (when
    ``follow_links`` is False), something that is not a regular file (a folder, a
    device, a FIFO) or a file longer than ``limit`` bytes.
    """
    name = str(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(name, flags)
    except FileNotFoundError:
        raise ValidationError(f"{name}: no such {what}") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ValidationError(f"{name}: is a symbolic link; memoir does not follow "
                                  "links here") from None
        raise ValidationError(f"{name}: cannot be read ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValidationError(f"{name}: is not a regular file (a folder, a device or a "
                                  "pipe); give the path of a file")
        if st.st_size > limit:
            raise ValidationError(f"{name}: holds {st.st_size:,} bytes, over the "
                                  f"{limit:,} memoir reads for a {what}")
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, min(1 << 20, limit + 1 - size) or 1):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise ValidationError(f"{name}: grew over the {limit:,} bytes memoir reads "
                                      f"for a {what}")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike[str] | Path, *, limit: int, follow_links: bool = True,
              what: str = "file", encoding: str = "utf-8") -> str:
    """:func:`read_regular`, decoded; ValidationError for text that is not ``encoding``."""
    data = read_regular(path, limit=limit, follow_links=follow_links, what=what)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise ValidationError(f"{path}: is not {encoding.upper()} text ({exc.reason} at "
                              f"byte {exc.start})") from None
