"""File operations inside a home that never follow a link and never clobber a file
someone else just wrote.

Every path is walked from the home's own folder one component at a time with
``O_NOFOLLOW``: a symbolic link anywhere below the home (``skills/base`` pointing at
``/etc``, a dangling ``scripts/run.sh``, ``.memoir/prompts``) is never followed, so
memoir neither reads nor writes nor deletes outside the home.  A component that is
empty, ``.`` or ``..``, or an absolute path, is refused (:class:`UnsafePath`) whatever
the caller passed: this layer holds on its own.  The home folder itself may be a link
(where the home lives is the user's choice), and so may its top-level ``memories/``
and ``skills/`` folders (:data:`OWNER_LINKS`: a dotfiles checkout, say): those are
followed once, as Hermes follows them, and nothing below them is.

A new version of a file is written to a short temp name beside it (its length does not
depend on the file's, so any name the file system holds can be written) and put in
place with an atomic *exchange* (Linux ``renameat2(RENAME_EXCHANGE)``): the bytes that
were there come back under the temp name, so a hand edit saved a microsecond before
the rename is seen, not lost (see :func:`install`).  Where the exchange is not
available the file is replaced after one more check, leaving a window of a few
microseconds that docs/guarantees.md states.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import itertools
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from memoir.errors import MemoirError
from memoir.names import path_problem

__all__ = [
    "OWNER_LINKS",
    "TEMP_PREFIX",
    "LinkRefused",
    "UnsafePath",
    "append_file",
    "entry",
    "exchange_supported",
    "file_lock",
    "install",
    "is_temp",
    "kind",
    "listdir",
    "open_dir",
    "open_file",
    "open_own",
    "parts",
    "pid_alive",
    "prune_empty",
    "read",
    "remove",
    "stat_key",
    "sweep_temps",
    "unlink",
    "write_file",
    "write_temp",
]

#: Temp files are ``.memoir-<pid>-<n>.tmp`` (old versions used ``.<name>.memoir-tmp-…``).
TEMP_PREFIX = ".memoir-"
_OLD_TEMP = ".memoir-tmp-"
_counter = itertools.count()
_counter_lock = threading.Lock()

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_DIR_FD = os.open in os.supports_dir_fd
_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2
# memoir never writes a projected file this large; a bigger one is never its own.
_LARGEST_OWN = 64 << 20


#: The top-level folders of a home that may be links its owner placed (followed once).
OWNER_LINKS = frozenset({"memories", "skills"})


class LinkRefused(MemoirError, OSError):
    """A path below the home goes through a link (or a non-folder) memoir will not follow."""


class UnsafePath(LinkRefused):
    """A path with an empty, ``.`` or ``..`` component, a NUL, or absolute: refused
    before anything is opened."""


def parts(rel: str) -> list[str]:
    """The components of the home-relative path ``rel`` (none for the home itself);
    :class:`UnsafePath` when one of them could leave or confuse the walk."""
    problem = path_problem(rel)
    if problem is not None:
        raise UnsafePath(errno.EINVAL, f"{problem}; memoir walks only plain paths below "
                                       "its home")
    return rel.split("/") if rel else []


def _renameat2() -> Callable[..., int] | None:
    if not _DIR_FD:
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                   ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


_RENAMEAT2 = _renameat2()
# Cleared the first time the file system says it cannot exchange (EINVAL/ENOSYS).
_exchange_ok = _RENAMEAT2 is not None


def exchange_supported() -> bool:
    """Whether installs are atomic exchanges here (no window for a lost hand edit)."""
    return _exchange_ok


def is_temp(name: str) -> bool:
    """Whether ``name`` is a temp file of memoir's (this version's or an older one's)."""
    return (name.startswith(TEMP_PREFIX) and name.endswith(".tmp")) or _OLD_TEMP in name


@contextmanager
def open_dir(home: Path, rel_dir: str, *, create: bool = False) -> Iterator[int]:
    """A descriptor of ``home/rel_dir``, every component opened without following links;
    ``create`` makes missing folders.  Raises FileNotFoundError for a missing folder and
    :class:`LinkRefused` where a component is a link or not a folder."""
    walk = parts(rel_dir)
    fd = os.open(home, os.O_RDONLY | _DIRECTORY)
    try:
        for depth, part in enumerate(walk):
            # The owner may have placed memories/ or skills/ elsewhere: followed once.
            follow = 0 if depth == 0 and part in OWNER_LINKS else _NOFOLLOW
            try:
                inner = os.open(part, os.O_RDONLY | _DIRECTORY | follow, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with suppress(FileExistsError):
                    os.mkdir(part, 0o755, dir_fd=fd)
                inner = os.open(part, os.O_RDONLY | _DIRECTORY | follow, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    link = stat.S_ISLNK(os.lstat(part, dir_fd=fd).st_mode)
                    raise LinkRefused(
                        errno.ELOOP if link else errno.ENOTDIR,
                        f"{rel_dir}: '{part}' is "
                        f"{'a symbolic link' if link else 'not a folder'}; memoir does not "
                        "follow links below its home") from None
                raise
            os.close(fd)
            fd = inner
        yield fd
    finally:
        os.close(fd)


def _split(rel: str) -> tuple[str, str]:
    if not parts(rel):
        raise UnsafePath(errno.EINVAL, "the home itself is not a file")
    folder, _, name = rel.rpartition("/")
    return folder, name


def kind(home: Path, rel: str) -> str:
    """``file``, ``missing``, ``link`` (a link at or above ``rel``) or ``other`` (a folder,
    a device, a socket where memoir keeps a file)."""
    folder, name = _split(rel)
    try:
        with open_dir(home, folder) as dfd:
            st = os.lstat(name, dir_fd=dfd)
    except LinkRefused as exc:
        return "link" if exc.errno == errno.ELOOP else "other"
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    if stat.S_ISREG(st.st_mode):
        return "file"
    return "link" if stat.S_ISLNK(st.st_mode) else "other"


def stat_key(home: Path, rel: str) -> tuple[int, int, int, int] | None:
    """(inode, size, mtime, ctime) of a regular file at ``rel`` (None: anything else).

    A plain ``lstat`` of the path: cheap, for telling that a file has not changed since
    it was last read through :func:`read`."""
    parts(rel)
    try:
        st = os.lstat(os.path.join(home, rel))
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def read(home: Path, rel: str, *, limit: int | None = None) -> bytes | None:
    """The bytes of the regular file at ``rel``; None when it is missing, a link, or not a
    regular file.  ``limit``: refuse (OSError EFBIG) a file longer than that."""
    folder, name = _split(rel)
    try:
        with open_dir(home, folder) as dfd:
            fd = os.open(name, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0),
                         dir_fd=dfd)
    except (FileNotFoundError, NotADirectoryError, LinkRefused):
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO):
            return None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        if limit is not None and st.st_size > limit:
            raise OSError(errno.EFBIG, f"{rel} holds {st.st_size:,} bytes, over the "
                                       f"{limit:,} memoir reads")
        chunks = []
        while True:
            chunk = os.read(fd, max(st.st_size, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            if limit is not None and sum(map(len, chunks)) > limit:
                raise OSError(errno.EFBIG, f"{rel} grew over the {limit:,} bytes memoir reads")
        return b"".join(chunks)
    finally:
        os.close(fd)


def open_file(home: Path, rel: str, flags: int, mode: int = 0o644, *,
              create_dirs: bool = False) -> int:
    """A descriptor of the file at ``rel`` opened with ``flags``, no component of the path
    followed if it is a link (:class:`LinkRefused`).  ``create_dirs`` makes missing
    folders (with ``os.O_CREAT`` in ``flags``, the file too)."""
    folder, name = _split(rel)
    with open_dir(home, folder, create=create_dirs) as dfd:
        try:
            return os.open(name, flags | _NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dfd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise LinkRefused(errno.ELOOP, f"{rel} is a symbolic link; memoir does not "
                                               "follow links below its home") from None
            raise


def open_own(home: Path, rel: str, flags: int, mode: int = 0o644) -> int:
    """:func:`open_file` for a file only memoir keeps (a lock, its manifest, its seals,
    under ``.memoir/``): a link standing at its name is removed (the link, never what it
    points at) and the file opened again, so a planted link neither redirects memoir's
    writes nor stops them.  Missing folders are made."""
    try:
        return open_file(home, rel, flags, mode, create_dirs=True)
    except LinkRefused as exc:
        if exc.errno != errno.ELOOP or kind(home, rel) != "link":
            raise
    unlink(home, rel)
    return open_file(home, rel, flags, mode, create_dirs=True)


def write_file(home: Path, rel: str, data: bytes, *, fsync: bool = False) -> None:
    """Replace the file at ``rel`` with ``data`` atomically (a temp file beside it, then a
    rename, which replaces a link standing there, never its target); missing folders
    are made."""
    folder, name = _split(rel)
    with open_dir(home, folder, create=True) as dfd:
        temp = write_temp(dfd, data, fsync=fsync)
        try:
            os.replace(temp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            with suppress(FileNotFoundError):
                os.unlink(temp, dir_fd=dfd)
            raise


def append_file(home: Path, rel: str, data: bytes, *, fsync: bool = False) -> int:
    """Append ``data`` to the file at ``rel`` (created, with its folders, if missing)
    with one ``write``; returns the offset it was written at."""
    fd = open_file(home, rel, os.O_WRONLY | os.O_CREAT | os.O_APPEND, create_dirs=True)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise LinkRefused(errno.EINVAL, f"{rel} is not a regular file")
        offset = os.lseek(fd, 0, os.SEEK_END)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if fsync:
            os.fsync(fd)
        return offset
    finally:
        os.close(fd)


def listdir(home: Path, rel: str) -> list[str]:
    """The names in the folder at ``rel`` (empty when it is missing or not a folder)."""
    try:
        with open_dir(home, rel) as dfd:
            return os.listdir(dfd)
    except (FileNotFoundError, NotADirectoryError):
        return []


def unlink(home: Path, rel: str) -> bool:
    """Remove the file (or link) at ``rel``, never what a link points at; True if
    something was removed."""
    folder, name = _split(rel)
    try:
        with open_dir(home, folder) as dfd:
            os.unlink(name, dir_fd=dfd)
    except (FileNotFoundError, NotADirectoryError):
        return False
    return True


def write_temp(dfd: int, data: bytes, *, fsync: bool) -> str:
    """Write ``data`` to a new temp file in the folder ``dfd``; returns its name."""
    with _counter_lock:
        n = next(_counter)
    name = f"{TEMP_PREFIX}{os.getpid()}-{threading.get_ident() % 100000}-{n}.tmp"
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644, dir_fd=dfd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if fsync:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(name, dir_fd=dfd)
        raise
    os.close(fd)
    return name


def _rename2(dfd: int, old: str, new: str, flags: int) -> bool:
    """renameat2 in one folder; False when this system or file system cannot."""
    global _exchange_ok
    assert _RENAMEAT2 is not None
    if _RENAMEAT2(dfd, os.fsencode(old), dfd, os.fsencode(new), flags) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        _exchange_ok = False
        return False
    raise OSError(err, os.strerror(err), new)


def install(dfd: int, temp: str, name: str, data: bytes,
            is_ours: Callable[[bytes | None], bool]) -> bool:
    """Put the temp file ``temp`` (holding ``data``) in place of ``name`` unless what is
    there now is not memoir's: True if installed, False if ``name`` was left as it was.
    The temp file is gone afterwards.

    ``is_ours(bytes)`` says whether the bytes at ``name`` are memoir's own (None: no
    regular file there).  With an atomic exchange, the previous bytes are judged after
    the swap; a hand edit that arrived after the caller's last check is swapped back, so
    it is never lost.
    """
    done: bool | None = None
    try:
        if _exchange_ok:
            done = _install_exchange(dfd, temp, name, data, is_ours)
        if done is None:
            done = _install_replace(dfd, temp, name, is_ours)
        return done
    finally:
        with suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=dfd)


def entry(dfd: int, name: str) -> tuple[bool, bytes | None]:
    """(exists, bytes of it when it is a regular file memoir could have written) for
    ``name`` in the folder ``dfd``, never following a link."""
    try:
        st = os.lstat(name, dir_fd=dfd)
    except FileNotFoundError:
        return False, None
    if not stat.S_ISREG(st.st_mode) or st.st_size > _LARGEST_OWN:
        return True, None
    fd = os.open(name, os.O_RDONLY | _NOFOLLOW, dir_fd=dfd)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return True, b"".join(chunks)
    finally:
        os.close(fd)


def _install_exchange(dfd: int, temp: str, name: str, data: bytes,
                      is_ours: Callable[[bytes | None], bool]) -> bool | None:
    """Install by atomic exchange; None when the file system cannot exchange."""
    exists, _ = entry(dfd, name)
    if not exists:
        # A file created meanwhile makes this fail (EEXIST) instead of being replaced.
        return True if _rename2(dfd, temp, name, _RENAME_NOREPLACE) else None
    if not _rename2(dfd, temp, name, _RENAME_EXCHANGE):
        return None
    # `temp` now holds what was at `name` the instant before.
    if is_ours(entry(dfd, temp)[1]):
        return True
    # Not memoir's (a hand edit saved just now, a link, a folder): put it back.
    _rename2(dfd, temp, name, _RENAME_EXCHANGE)
    held = entry(dfd, temp)[1]
    if held != data:
        # Yet another edit was saved between the two exchanges: keep it too.
        os.replace(temp, f"{name}.bak.{time.time_ns()}", src_dir_fd=dfd, dst_dir_fd=dfd)
    return False


def _install_replace(dfd: int, temp: str, name: str,
                     is_ours: Callable[[bytes | None], bool]) -> bool:
    exists, previous = entry(dfd, name)
    if exists and (previous is None or not is_ours(previous)):
        return False
    os.replace(temp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    return True


@contextmanager
def file_lock(dfd: int, name: str, *, timeout: float) -> Iterator[None]:
    """Hold ``flock(LOCK_EX)`` on the file ``name`` in the folder ``dfd`` (created if
    missing, never through a link) — the lock another program takes around its own
    writes, such as Hermes's ``MEMORY.md.lock``.  OSError (EAGAIN) if it is still held
    after ``timeout`` seconds."""
    import fcntl

    fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644,
                 dir_fd=dfd)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise OSError(errno.EAGAIN, f"{name} is held by another program for "
                                                f"more than {timeout:g} s") from None
                time.sleep(0.005)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def remove(home: Path, rel: str, is_ours: Callable[[bytes | None], bool],
           lock: str | None = None, lock_timeout: float = 10.0) -> bool:
    """Remove the file at ``rel`` if it is memoir's; True if something was removed.
    Folders left empty are removed up to (not including) the home's top-level folders.
    ``lock``: a file in the same folder to hold :func:`file_lock` on meanwhile."""
    folder, name = _split(rel)
    try:
        with open_dir(home, folder) as dfd, file_lock(dfd, lock, timeout=lock_timeout) \
                if lock else _nothing():
            exists, previous = entry(dfd, name)
            if not exists or not is_ours(previous):
                return False
            os.unlink(name, dir_fd=dfd)
    except (FileNotFoundError, LinkRefused):
        return False
    prune_empty(home, folder)
    return True


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def prune_empty(home: Path, folder: str) -> None:
    """Remove empty folders from ``folder`` upwards, keeping the home's top level."""
    parts = [p for p in folder.split("/") if p]
    while len(parts) > 1:
        parent = "/".join(parts[:-1])
        try:
            with open_dir(home, parent) as dfd:
                os.rmdir(parts[-1], dir_fd=dfd)
        except OSError:
            return  # not empty, gone, or a link: stop here
        parts.pop()


def sweep_temps(home: Path, folder: str, *, older_than: float) -> list[str]:
    """Remove memoir temp files in ``folder`` left by processes that are gone (or older
    than ``older_than`` seconds since the epoch); returns their home-relative paths."""
    removed = []
    try:
        with open_dir(home, folder) as dfd:
            for entry in os.scandir(dfd):
                if not is_temp(entry.name) or not entry.is_file(follow_symlinks=False):
                    continue
                if _owner_alive(entry.name) and entry.stat(follow_symlinks=False).st_mtime \
                        >= older_than:
                    continue
                try:
                    os.unlink(entry.name, dir_fd=dfd)
                except FileNotFoundError:
                    continue
                removed.append(f"{folder}/{entry.name}" if folder else entry.name)
    except (FileNotFoundError, LinkRefused, NotADirectoryError):
        return removed
    return removed


def _owner_alive(name: str) -> bool:
    digits = name[len(TEMP_PREFIX):].split("-", 1)[0] if name.startswith(TEMP_PREFIX) \
        else name.rsplit(_OLD_TEMP, 1)[-1].split("-", 1)[0]
    try:
        pid = int(digits)
    except ValueError:
        return False
    return pid_alive(pid)


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (this one included)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
