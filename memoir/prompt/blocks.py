"""What memoir puts into an agent's prompt: the MEMORY and USER blocks, frozen at a
session's pinned seq (Hermes's format, spec §1.8)."""

from __future__ import annotations

from collections.abc import Collection

from memoir.config import Config
from memoir.engine.port import Home
from memoir.projections.memory import TARGETS, render_block
from memoir.projections.state import State

__all__ = ["Blocks", "blocks_at", "enabled_targets", "kept_session",
           "render_blocks", "session_blocks"]

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


def blocks_at(engine: Home, seq: int | None = None) -> Blocks:
    """The prompt blocks as of ``seq`` (default: the head).

    At the head they are rendered from the live state under its mutex, without
    copying it (a home with a long history opens a session in milliseconds).
    """
    enabled = enabled_targets(engine.config)
    return engine.at(seq, lambda state: render_blocks(state, enabled))


def _record_hash(engine: Home, seq: int) -> str | None:
    found = engine.record(seq)
    return found.hash if found is not None else None


def kept_session(engine: Home, session_id: str) -> tuple[int, str, Blocks] | None:
    """(pin, actor, blocks) of a session whose prompt was kept, without reading the
    journal or the session history (a pin at or below the head, a whole file)."""
    if not engine.persistent:
        return None
    found = engine.kept_prompts().lookup(session_id, enabled_targets(engine.config))
    if found is None or found[0] > engine.head:
        return None
    return found


def session_blocks(engine: Home, session_id: str, seq: int,
                   rendered: Blocks | None = None, record_hash: str | None = None,
                   actor: str = "agent") -> Blocks:
    """A session's frozen blocks: ``rendered`` (just rendered at its start) is kept in
    the prompt cache; otherwise the cache answers if it still holds for the pin, else
    the blocks are rendered again and kept."""
    enabled = enabled_targets(engine.config)
    cache = engine.kept_prompts()
    if not engine.persistent:
        return rendered if rendered is not None else blocks_at(engine, seq)
    if record_hash is None:
        info = engine.state.sessions.get(session_id)
        if info is not None and info.pinned_seq == seq and info.start_hash:
            record_hash = info.start_hash  # folded from the journal: no read needed
    record = record_hash or _record_hash(engine, seq)
    if rendered is not None:
        if record is not None:
            cache.put(session_id, seq, record, enabled, rendered, actor)
        return rendered
    if record is not None:
        found = cache.get(session_id, seq, record, enabled)
        if found is not None:
            return found
    blocks = blocks_at(engine, seq)
    if record is not None:
        cache.put(session_id, seq, record, enabled, blocks, actor)
    return blocks
