"""Wires the skills fold steps (:mod:`memoir.projections.skills`) into ``State``.

Kept apart because ``memoir.projections.state`` imports the skills projection for
its shape, so the projection cannot import ``state`` back to register itself.
"""

from __future__ import annotations

from memoir.events.types import Event
from memoir.projections.skills import FOLDS, fold_skill_event
from memoir.projections.state import State, applies

__all__: list[str] = []


def _fold(state: State, event: Event) -> None:
    fold_skill_event(state.skills, event)


applies(*FOLDS)(_fold)
