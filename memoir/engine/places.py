"""Where a projected path is on disk: below the home, or in a folder of
``skills.external_dirs``.

A path under ``@external/<key>/`` (see :data:`memoir.projections.skills.EXTERNAL_DIR`)
is a file of an external skills folder: the key is a digest of the configured entry,
and :class:`Places` maps it to the folder this home's configuration names.  Such a path
is walked from the folder's parent, its first component the folder's own name, so that,
as below the home, no link is followed and the folder itself is never removed when it
empties.  A key no configured folder has (another machine's folder, a forged record)
is never written: it reads as missing, and a write of it fails with
:class:`NotConfigured` (the materializer leaves such files out before writing).

An entry of ``skills.external_dirs`` is expanded as Hermes expands it (``~`` and
``${VAR}``) and resolved once, links included: the person named the folder, so a link
to it is theirs to make.  A folder that is missing, is the root of the file system, or
overlaps the home's own files (the home itself, a folder above it, its skills tree or
``.memoir/``) is left out: memoir would otherwise write a skill over its own files.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from memoir.errors import MemoirError
from memoir.fs import safefs
from memoir.projections.skills import external_key, split_external

__all__ = ["NotConfigured", "Places", "expand_dir", "external_folders", "external_roots"]


def expand_dir(entry: str) -> Path:
    """A configured folder with ``~`` and ``${VAR}`` expanded, as Hermes expands them."""
    return Path(os.path.expandvars(os.path.expanduser(entry)))


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def external_roots(dirs: Iterable[str], home: Path) -> dict[str, Path]:
    """entry -> the folder it names, links resolved, for the entries that name a usable
    folder (the first entry wins when two name the same folder)."""
    found: dict[str, Path] = {}
    real_home = Path(os.path.realpath(home))
    own = [real_home / "skills", real_home / ".memoir"]
    with contextlib.suppress(OSError):
        own.append(Path(os.path.realpath(real_home / "skills")))
    for entry in dirs:
        if not isinstance(entry, str) or not entry.strip() or "\0" in entry:
            continue
        try:
            root = Path(os.path.realpath(expand_dir(entry)))
            if not root.is_dir():
                continue
        except (OSError, ValueError):
            continue
        if root.parent == root or _inside(real_home, root) \
                or any(_inside(root, o) for o in own) or root in found.values():
            continue
        found[entry] = root
    return found


class NotConfigured(MemoirError, OSError):
    """A projected file of an external skills folder this home does not configure."""


def external_folders(dirs: Iterable[str], home: Path) -> dict[str, Path]:
    """The usable folders of ``skills.external_dirs`` by key."""
    return {external_key(entry): root for entry, root in external_roots(dirs, home).items()}


class Places:
    """Maps projected paths to (folder, path below it) — see the module docstring."""

    def __init__(self, home: Path, external_dirs: Iterable[str] = ()) -> None:
        self.home = home
        dirs = list(external_dirs)
        #: Finds the external folders again (one created after the home was opened);
        #: asked when a path names a key not known yet.
        self.find: Callable[[], dict[str, Path]] | None = \
            (lambda: external_folders(dirs, home)) if dirs else None
        #: key -> folder (links resolved).
        self.external: dict[str, Path] = self.find() if self.find is not None else {}
        # Keys looked for again and not found since the last forget_misses().
        self._missed: set[str] = set()

    def forget_misses(self) -> None:
        """Look for folders not found before again (called once per write pass)."""
        self._missed.clear()

    def locate(self, rel: str) -> tuple[Path, str] | None:
        """The folder to walk ``rel`` from and the path below it (None: a file of an
        external folder this home does not configure)."""
        split = split_external(rel)
        if split is None:
            return self.home, rel
        key, rest = split
        root = self.external.get(key)
        if root is None and self.find is not None and key not in self._missed:
            self.external = self.find()
            root = self.external.get(key)
            if root is None:
                self._missed.add(key)
        if root is None:
            return None
        return root.parent, f"{root.name}/{rest}" if rest else root.name

    def shared(self, rel: str) -> bool:
        """Whether ``rel`` is in an external folder this home configures (a folder
        other people change too: a file missing there was removed, not lost)."""
        return split_external(rel) is not None and self.locate(rel) is not None

    def at(self, rel: str) -> tuple[Path, str]:
        """:meth:`locate`, raising :class:`NotConfigured` for a folder not configured."""
        found = self.locate(rel)
        if found is None:
            raise NotConfigured(
                "skills.external_dirs of this home names no folder for it (or names a "
                "folder that is missing); the file is not written")
        return found

    def path(self, rel: str) -> str:
        """The absolute path of ``rel`` (an external file's in its folder)."""
        found = self.locate(rel)
        return os.path.join(*found) if found is not None else os.path.join(self.home, rel)

    def read(self, rel: str) -> bytes | None:
        """The bytes of the regular file at ``rel`` (None: missing, a link, not a file,
        or in a folder not configured)."""
        found = self.locate(rel)
        return safefs.read(*found) if found is not None else None

    def kind(self, rel: str) -> str:
        """What stands at ``rel`` (see :func:`memoir.fs.safefs.kind`)."""
        found = self.locate(rel)
        return safefs.kind(*found) if found is not None else "missing"

    def stat_key(self, rel: str) -> tuple[int, int, int, int] | None:
        found = self.locate(rel)
        return safefs.stat_key(*found) if found is not None else None

    def sweep_temps(self, folder: str, *, older_than: float) -> list[str]:
        """:func:`memoir.fs.safefs.sweep_temps` of ``folder``; the paths removed, as
        projected paths."""
        found = self.locate(folder)
        if found is None:
            return []
        return [f"{folder}/{r.rpartition('/')[2]}"
                for r in safefs.sweep_temps(*found, older_than=older_than)]

    def prune_empty(self, folder: str) -> None:
        """Remove ``folder`` and the folders above it that are empty, never the home's
        top-level folders nor an external folder itself."""
        found = self.locate(folder)
        if found is not None:
            safefs.prune_empty(*found)

    def backup(self, rel: str, data: bytes, stamp: int) -> Path:
        """Write ``data`` (a drifted file's bytes) beside ``rel`` as
        ``<file>.bak.<stamp>``, Hermes's naming; returns its path."""
        base, inner = self.at(rel)
        folder, _, name = inner.rpartition("/")
        bak = f"{name}.bak.{stamp}"
        with safefs.open_dir(base, folder) as dfd:
            temp = safefs.write_temp(dfd, data, fsync=True)
            os.replace(temp, bak, src_dir_fd=dfd, dst_dir_fd=dfd)
        return base / folder / bak if folder else base / bak
