"""What memoir puts into an agent's prompt: the MEMORY and USER blocks, frozen at a
session's pinned seq (Hermes's format, spec §1.8)."""

from __future__ import annotations

from collections.abc import Collection

from memoir.config import Config
from memoir.engine.engine import Engine
from memoir.engine.prompts import PROMPTS, PromptCache
from memoir.engine.safefs import Folder
from memoir.projections.memory import TARGETS, render_block
from memoir.projections.state import State

__all__ = ["Blocks", "blocks_at", "clear_kept", "enabled_targets", "kept_session",
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
    # Only the memory part of the state at the pin is needed.
    return render_blocks(live.memory_view(seq), enabled)


def _cache(engine: Engine) -> PromptCache:
    return PromptCache(Folder(engine.home, PROMPTS), key=engine.checkpoints.key,
                       readonly=engine.readonly or not engine.journal.persistent)


def _record_hash(engine: Engine, seq: int) -> str | None:
    for event in engine.journal.read(after=seq - 1, until=seq):
        return event.hash
    return None


def kept_session(engine: Engine, session_id: str) -> tuple[int, str, Blocks] | None:
    """(pin, actor, blocks) of a session whose prompt was kept, without reading the
    journal or the session history (a pin at or below the head, a whole file)."""
    if not engine.journal.persistent:
        return None
    found = _cache(engine).lookup(session_id, enabled_targets(engine.config))
    if found is None or found[0] > engine.head:
        return None
    return found


def clear_kept(engine: Engine) -> None:
    """Forget every kept prompt (after a repair or an accepted loss)."""
    _cache(engine).clear()


def session_blocks(engine: Engine, session_id: str, seq: int,
                   rendered: Blocks | None = None, record_hash: str | None = None,
                   actor: str = "agent") -> Blocks:
    """A session's frozen blocks: ``rendered`` (just rendered at its start) is kept in
    the prompt cache; otherwise the cache answers if it still holds for the pin, else
    the blocks are rendered again and kept."""
    enabled = enabled_targets(engine.config)
    cache = _cache(engine)
    if not engine.journal.persistent:
        return rendered if rendered is not None else blocks_at(engine, seq)
    if record_hash is None:
        info = engine.live.state.sessions.get(session_id)
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
