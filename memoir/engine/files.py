"""A read-only view of the projected files, handed to decisions that must know whether
a file was edited by hand.

Decisions are pure functions of what they are given.  A few need to know about the
files as they are on disk (a write to MEMORY.md is refused while it holds a hand
edit; adoption turns hand edits into events); they get this view as an argument,
and it is consulted under the same locks as the decision runs under (the journal
lock and the state mutex).  It cannot write.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from memoir import lazyre
from memoir.engine.materializer import Drift, Materializer

__all__ = ["FilesView", "RecordingFiles"]

_BACKUP = lazyre.compile(r"\.bak\.\d+$")


class FilesView:
    """What a decision may ask of the projected files (see the module docstring)."""

    def __init__(self, materializer: Materializer) -> None:
        self._m = materializer

    def drifted(self, rel: str, current: bytes | Callable[[], bytes | None] | None
                ) -> Drift | None:
        """Whether ``rel`` holds bytes memoir did not write, given what it renders now
        (a function is called only when the file's ``stat`` does not vouch for it)."""
        return self._m.is_drifted(rel, current)

    def drift(self, desired: Mapping[str, bytes | None]) -> list[Drift]:
        """The files of ``desired`` that were edited by hand."""
        return self._m.drift(desired)

    def read(self, rel: str) -> bytes | None:
        return self._m.read(rel)

    def kind(self, rel: str) -> str:
        """What stands at ``rel``: ``file``, ``missing``, ``link`` (a link at ``rel`` or
        in a folder above it) or ``other`` (a folder, a device…)."""
        return self._m.places.kind(rel)

    def absolute(self, rel: str) -> str:
        """The path of ``rel`` as a result shows it to the agent (a file of an external
        skills folder: its path in that folder)."""
        return self._m.places.path(rel)

    def escape(self, rel: str, within: str) -> str | None:
        """Why ``rel``, with every link on its way followed, is not inside the folder
        ``within`` (both home-relative), in the words of Python's ``relative_to``;
        None when it stays inside."""
        path = self._m.places.path
        try:
            Path(path(rel)).resolve().relative_to(Path(path(within)).resolve())
        except (ValueError, OSError) as exc:
            return str(exc)
        return None

    def wrote(self, rel: str) -> bool:
        """Whether memoir wrote ``rel`` (so its absence is a removal)."""
        return self._m.wrote(rel)

    def written_at(self, rel: str) -> int | None:
        """The seq memoir's last write of ``rel`` was rendered at: the version a hand edit
        of it started from (None: unknown)."""
        return self._m.written_at(rel)

    def files_under(self, folder: str, *, hidden: Collection[str] = ()) -> list[str]:
        """Home-relative paths of the regular files under ``folder``, sorted; hidden
        files, ``*.bak.<n>`` copies, links and hidden folders are left out, except the
        hidden folders named in ``hidden`` (home-relative)."""
        where = self._m.places.locate(folder)
        if where is None:
            return []
        top = os.path.join(*where)
        if not os.path.isdir(top):
            return []
        keep = {self._m.places.path(h) for h in hidden}
        found = []
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(
                d for d in dirnames
                if not d.startswith(".") or os.path.join(dirpath, d) in keep
            )
            for name in sorted(filenames):
                full = os.path.join(dirpath, name)
                if name.startswith(".") or _BACKUP.search(name) or os.path.islink(full):
                    continue
                inner = os.path.relpath(full, top).replace(os.sep, "/")
                found.append(f"{folder}/{inner}" if folder else inner)
        return found

    @contextmanager
    def settled(self) -> Iterator[None]:
        """Hold the projection lock with the manifest re-read: no file write is half
        done meanwhile (a file being moved must not look removed or added by hand)."""
        with self._m.locked():
            self._m.reload()
            yield

    def reload(self) -> None:
        """Re-read memoir's record of what it wrote (another process may have written)."""
        self._m.reload()


class RecordingFiles(FilesView):
    """A :class:`FilesView` that remembers the bytes it first read for each file.

    Adoption decides from what it read; the rewrite that follows must put memoir's
    rendering only over those very bytes (a newer save is another edit, left alone):
    ``seen`` tells it what they were."""

    def __init__(self, view: FilesView) -> None:
        super().__init__(view._m)
        self.seen: dict[str, bytes | None] = {}

    def _note(self, rel: str, data: bytes | None) -> None:
        self.seen.setdefault(rel, data)

    def read(self, rel: str) -> bytes | None:
        data = super().read(rel)
        self._note(rel, data)
        return data

    def drifted(self, rel: str, current: bytes | Callable[[], bytes | None] | None
                ) -> Drift | None:
        drift = super().drifted(rel, current)
        if drift is not None:
            self._note(rel, drift.actual)
        return drift

    def unchanged(self, drifted: Drift) -> bool:
        """Whether a drifted file still holds the bytes first read for it."""
        return drifted.path in self.seen and self.seen[drifted.path] == drifted.actual
