"""What memoir puts into an agent's prompt: the MEMORY and USER blocks, frozen at a
session's pinned seq (Hermes's format, spec §1.8)."""

from __future__ import annotations

from collections.abc import Collection

from memoir.config import Config
from memoir.engine.engine import Engine
from memoir.projections.memory import TARGETS, render_block
from memoir.projections.state import State

__all__ = ["Blocks", "blocks_at", "enabled_targets", "render_blocks"]

#: ``{"memory": block | None, "user": block | None}``
Blocks = dict[str, str | None]


def enabled_targets(config: Config) -> tuple[str, ...]:
    """The targets whose block goes into prompts (Hermes's ``memory.memory_enabled`` and
    ``memory.user_profile_enabled``)."""
    on = {"memory": config.memory.memory_enabled, "user": config.memory.user_profile_enabled}
    return tuple(t for t in TARGETS if on[t])


def render_blocks(state: State, enabled: Collection[str] = TARGETS) -> Blocks:
    """The prompt blocks of ``state`` (None for a target with no entries, or one that is
    not ``enabled``)."""
    return {
        t: render_block(t, state.memory.target(t).texts(), state.memory.limits[t])
        if t in enabled else None
        for t in TARGETS
    }


def blocks_at(engine: Engine, seq: int | None = None) -> Blocks:
    """The prompt blocks as of ``seq`` (default: the head).

    At the head they are rendered from the live state under its mutex, without
    copying it (a home with a long history opens a session in milliseconds).
    """
    live = engine.live
    enabled = enabled_targets(engine.config)
    with live.mutex:
        live.catch_up()
        if seq is None or seq == live.state.seq:
            return render_blocks(live.state, enabled)
    return render_blocks(engine.view(seq), enabled)
