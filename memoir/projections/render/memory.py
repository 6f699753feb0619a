"""MEMORY.md and USER.md as projected files (Hermes's format, see
:mod:`memoir.projections.memory`)."""

from __future__ import annotations

from collections.abc import Sequence

from memoir.events.memory import EntryAdded, EntryRemoved, EntryReplaced
from memoir.events.types import Event, Payload
from memoir.projections.memory import FILE_NAMES, TARGETS, file_text
from memoir.projections.state import State

__all__ = ["MemoryRenderer", "memory_file", "render_memory_file"]


def memory_file(target: str) -> str:
    """The home-relative path of a target's file: ``memories/MEMORY.md`` or ``USER.md``."""
    return f"memories/{FILE_NAMES[target]}"


def render_memory_file(state: State, target: str) -> bytes | None:
    """The bytes of a target's file; None before anything was written to the target."""
    t = state.memory.target(target)
    return file_text(t.texts()).encode("utf-8") if t.written else None


_FILES = {t: memory_file(t) for t in TARGETS}


class MemoryRenderer:
    """Renders ``memories/MEMORY.md`` and ``memories/USER.md``."""

    name = "memory"
    watches: tuple[type[Payload], ...] = (EntryAdded, EntryReplaced, EntryRemoved)

    def touched(self, events: Sequence[Event]) -> set[str]:
        kinds = self.watches
        return {
            _FILES[e.data.target]  # type: ignore[attr-defined]
            for e in events
            if type(e.data) in kinds
        }

    def files(self, state: State, paths: set[str] | None) -> dict[str, bytes | None]:
        return {
            rel: render_memory_file(state, t)
            for t, rel in _FILES.items()
            if paths is None or rel in paths
        }
