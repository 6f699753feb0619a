"""Pausing and resuming the curator: journaled, each as a small run of its own so it
shows in ``memoir runs`` and can be reverted like any other change."""

from __future__ import annotations

from memoir.engine.commit import Decision
from memoir.engine.engine import Engine
from memoir.events.curator import CuratorPaused, CuratorResumed
from memoir.events.runs import RunStarted
from memoir.ids import short_id
from memoir.projections.state import State

__all__ = ["pause", "resume"]


def _set_paused(engine: Engine, paused: bool, actor: str) -> str | None:
    run_id = short_id("cli-")

    def decide(state: State) -> Decision[str]:
        if state.curator.paused == paused:
            return Decision[str](events=[])
        word = "pause" if paused else "resume"
        return Decision(events=[
            RunStarted(run_id=run_id, kind="cli", summary=f"curator {word}"),
            CuratorPaused() if paused else CuratorResumed(),
        ], result=run_id)

    _events, result = engine.commit(decide, actor=actor, run=run_id)
    return result


def pause(engine: Engine, *, actor: str = "user") -> str | None:
    """Pause the scheduled passes; returns the run id, or None if already paused."""
    return _set_paused(engine, True, actor)


def resume(engine: Engine, *, actor: str = "user") -> str | None:
    """Resume the scheduled passes; returns the run id, or None if not paused."""
    return _set_paused(engine, False, actor)
