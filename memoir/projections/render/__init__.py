"""Renderers: the projected files as pure functions of the state.

:data:`RENDERERS` lists every renderer in a fixed order; the engine writes what they
render (see :mod:`memoir.engine.projector`).  A renderer has a ``name`` (the key its
owed files are tracked under), the payload types it ``watches`` (a commit with none
of them skips it), ``touched(events)`` (the files some events may change: relative
paths, or tokens the renderer itself expands) and ``files(state, paths)`` (the bytes of
those files, every file it owns when ``paths`` is None; None for a file that must not
exist).  A new projected file is a new renderer added to :data:`RENDERERS`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

from memoir.events.types import Event, Payload
from memoir.projections.render.curator import CuratorRenderer
from memoir.projections.render.memory import MemoryRenderer, memory_file, render_memory_file
from memoir.projections.render.skills import SkillsRenderer
from memoir.projections.state import State

__all__ = [
    "RENDERERS",
    "CuratorRenderer",
    "MemoryRenderer",
    "Renderer",
    "SkillsRenderer",
    "memory_file",
    "render_all",
    "render_memory_file",
    "renderers_for",
]


class Renderer(Protocol):
    """Turns state into projected files (see the module docstring)."""

    name: str
    watches: tuple[type[Payload], ...]

    def touched(self, events: Sequence[Event]) -> set[str]: ...

    def files(self, state: State, paths: set[str] | None) -> dict[str, bytes | None]: ...


#: Every renderer, in the order their files are written (paths in files relative).
RENDERERS: tuple[Renderer, ...] = (MemoryRenderer(), SkillsRenderer(), CuratorRenderer())


def renderers_for(home: Path) -> tuple[Renderer, ...]:
    """The renderers of the home at ``home`` (an absolute path): as :data:`RENDERERS`,
    with the paths files name absolute under it (``.curator_state``'s report path)."""
    return (MemoryRenderer(), SkillsRenderer(), CuratorRenderer(home))


def render_all(state: State, renderers: Iterable[Renderer] = RENDERERS) -> dict[str, bytes | None]:
    """Every projected file and the bytes it should hold (None: no file)."""
    files: dict[str, bytes | None] = {}
    for renderer in renderers:
        files.update(renderer.files(state, None))
    return files
