"""Whether a curator pass is due (spec §4.2): the static gates, as a pure function.

A pass is due when the curator is enabled, not paused, and at least
``interval_hours`` have passed since the last pass.  Before any pass ran or was
deferred, the answer is :data:`DEFERRED`: the scheduler then starts the clock (see
:mod:`memoir.curator.schedule`).
"""

from __future__ import annotations

import datetime as dt

from memoir.clock import parse_ts
from memoir.curator.config import CuratorConfig
from memoir.projections.curator import CuratorState

__all__ = ["DEFERRED", "DEFERRED_SUMMARY", "should_run"]

DEFERRED = "first check: deferred"
DEFERRED_SUMMARY = ("deferred first run — the curator's clock starts now and its first pass "
                    "comes one interval later; `memoir curator run --dry-run` previews it")


def should_run(cur: CuratorState, now: dt.datetime, config: CuratorConfig) -> tuple[bool, str]:
    """Whether a pass is due at ``now`` by the static gates, and why (pure).

    The reason is :data:`DEFERRED` when no pass ever ran nor was deferred: the caller
    journals the deferral (see :func:`memoir.curator.schedule.maybe_run`).
    """
    if not config.enabled:
        return False, "disabled"
    if cur.paused:
        return False, "paused"
    if cur.last_run_at is None:
        return False, DEFERRED
    try:
        last = parse_ts(cur.last_run_at)
    except ValueError:
        return False, DEFERRED
    due = last + dt.timedelta(hours=config.interval_hours)
    if now >= due:
        return True, "due"
    return False, f"next pass due at {due.isoformat()}"
