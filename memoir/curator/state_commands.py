"""Pausing and resuming the curator: journaled, each as a small run of its own so it
shows in ``memoir runs`` and can be reverted like any other change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memoir.events.curator import CuratorPaused, CuratorResumed
from memoir.events.runs import RunStarted
from memoir.home import Decision
from memoir.ids import short_id
from memoir.projections.state import State

if TYPE_CHECKING:
    from memoir.home import Memoir

__all__ = ["pause", "resume"]


def _set_paused(memoir: Memoir, paused: bool, actor: str) -> str | None:
    run_id = short_id("cli-")

    def decide(state: State) -> Decision[str]:
        if state.curator.paused == paused:
            return Decision[str](events=[])
        word = "pause" if paused else "resume"
        return Decision(events=[
            RunStarted(run_id=run_id, kind="cli", summary=f"curator {word}"),
            CuratorPaused() if paused else CuratorResumed(),
        ], result=run_id)

    _events, result = memoir.commit(decide, actor=actor, run=run_id)
    return result


def pause(memoir: Memoir, *, actor: str = "user") -> str | None:
    """Pause the scheduled passes; returns the run id, or None if already paused."""
    return _set_paused(memoir, True, actor)


def resume(memoir: Memoir, *, actor: str = "user") -> str | None:
    """Resume the scheduled passes; returns the run id, or None if not paused."""
    return _set_paused(memoir, False, actor)
