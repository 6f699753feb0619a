"""What memoir puts into an agent's prompt: the MEMORY and USER blocks, frozen at a
session's pinned seq (Hermes's format, spec §1.8)."""

from __future__ import annotations

from memoir.engine.engine import Engine
from memoir.projections.memory import TARGETS, render_block
from memoir.projections.state import State

__all__ = ["Blocks", "blocks_at", "render_blocks"]

#: ``{"memory": block | None, "user": block | None}``
Blocks = dict[str, str | None]


def render_blocks(state: State) -> Blocks:
    """The prompt blocks of ``state`` (None for a target with no entries)."""
    return {
        t: render_block(t, state.memory.target(t).texts(), state.memory.limits[t])
        for t in TARGETS
    }


def blocks_at(engine: Engine, seq: int | None = None) -> Blocks:
    """The prompt blocks as of ``seq`` (default: the head).

    At the head they are rendered from the live state under its mutex, without
    copying it (a home with a long history opens a session in milliseconds).
    """
    live = engine.live
    with live.mutex:
        live.catch_up()
        if seq is None or seq == live.state.seq:
            return render_blocks(live.state)
    return render_blocks(engine.view(seq))
