"""``memoir forget`` in the tools layer: the engine's forgetting
(:mod:`memoir.engine.forget.carry`) plus the caches of the layers above it (the search
index), so a forget leaves none of them holding what it removed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memoir.engine.forget.carry import ForgetPlan, plan_forget
from memoir.engine.forget.carry import finish_forgets as _finish
from memoir.engine.forget.carry import forget as _forget
from memoir.events.forget import ContentForgotten
from memoir.recall.index import delete_index

__all__ = ["ForgetPlan", "finish_forgets", "follow_forgets", "forget", "plan_forget"]

#: Caches above the engine that hold text: dropped by every forget, rebuilt on use.
CACHES = (delete_index,)


def forget(engine: Any, plan: ForgetPlan, *, by: str = "user", reason: str = ""
           ) -> tuple[str, ContentForgotten]:
    """Journal ``plan`` and carry it out; the run and the record."""
    return _forget(engine, plan, by=by, reason=reason, caches=CACHES)


def finish_forgets(engine: Any) -> int:
    """Finish the forgets that were interrupted; how many."""
    return _finish(engine, CACHES)


def follow_forgets(engine: Any) -> Callable[[int, int], None]:
    """An ``on_change`` for :class:`~memoir.engine.following.Following`: when the records
    another home appended hold a forget, this home does its part at once (its packs,
    its caches, its files)."""

    def seen(before: int, _head: int) -> None:
        if next(iter(engine.events(types=["journal.forgotten"], after=before)), None):
            # A forget this home is carrying out in another process is left to it.
            _finish(engine, CACHES, leave_waiting=True)

    return seen
