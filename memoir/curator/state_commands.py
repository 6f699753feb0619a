"""Pausing and resuming the curator: journaled, each as a small run of its own so it
shows in ``memoir runs`` and can be reverted like any other change."""

from __future__ import annotations

from memoir.engine.commit import Caller, Decision
from memoir.engine.port import Home
from memoir.events.curator import CuratorPaused, CuratorResumed
from memoir.ids import short_id
from memoir.projections.state import State

__all__ = ["pause", "resume"]


def _set_paused(engine: Home, paused: bool, actor: str) -> str | None:
    run_id = short_id("cli-")

    def decide(state: State) -> Decision[str]:
        if state.curator.paused == paused:
            return Decision[str](events=[])
        return Decision(events=[CuratorPaused() if paused else CuratorResumed()],
                        result=run_id)

    word = "pause" if paused else "resume"
    _events, result = engine.commit(decide, by=Caller(actor=actor, run=run_id, run_kind="cli",
                                                      run_summary=f"curator {word}"))
    return result


def pause(engine: Home, *, actor: str = "user") -> str | None:
    """Pause the scheduled passes; returns the run id, or None if already paused."""
    return _set_paused(engine, True, actor)


def resume(engine: Home, *, actor: str = "user") -> str | None:
    """Resume the scheduled passes; returns the run id, or None if not paused."""
    return _set_paused(engine, False, actor)
