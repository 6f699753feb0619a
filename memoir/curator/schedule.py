"""When the curator runs by itself (spec §4.2), with an idle gate that takes effect.

A pass is due when the curator is enabled, not paused, and at least
``interval_hours`` have passed since the last pass.  The very first check finds no
last pass: it starts the clock (a ``curator.first_run_deferred`` event) and says no,
so the first pass comes one interval later.  On top of that, :func:`maybe_run` waits
until the agent has been idle ``min_idle_hours``, measured from the journal (the time
since the last event by a foreground actor) unless the caller says how idle it is.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import TYPE_CHECKING

import structlog

from memoir.clock import parse_ts
from memoir.curator.config import CuratorConfig, curator_config
from memoir.curator.rules import BACKGROUND_ACTORS
from memoir.errors import MemoirError
from memoir.events.curator import CuratorFirstRunDeferred
from memoir.home import Decision
from memoir.projections.curator import CuratorState
from memoir.projections.state import State

if TYPE_CHECKING:
    from memoir.curator.passes import PassResult
    from memoir.home import Memoir

__all__ = ["DEFERRED", "DEFERRED_SUMMARY", "idle_seconds", "maybe_run", "should_run"]

log = structlog.get_logger("memoir.curator")

DEFERRED = "first check: deferred"
DEFERRED_SUMMARY = ("deferred first run — the curator's clock starts now and its first pass "
                    "comes one interval later; `memoir curator run --dry-run` previews it")
#: Actors whose events do not mean someone is using the agent.
_QUIET_ACTORS = BACKGROUND_ACTORS | {"system"}
_SCAN_CHUNK = 512


def should_run(cur: CuratorState, now: dt.datetime, config: CuratorConfig) -> tuple[bool, str]:
    """Whether a pass is due at ``now`` by the static gates, and why (pure).

    The reason is :data:`DEFERRED` when no pass ever ran nor was deferred: the caller
    journals the deferral (see :func:`maybe_run`).
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


def idle_seconds(memoir: Memoir, now: dt.datetime) -> float:
    """Seconds since the last event by a foreground actor (agent, user, import …);
    infinite when there is none.  Reads the journal backwards in chunks."""
    until = memoir.head
    while until > 0:
        after = max(0, until - _SCAN_CHUNK)
        last = None
        for event in memoir.events(after=after, until=until):
            if event.actor not in _QUIET_ACTORS:
                last = event
        if last is not None:
            return max(0.0, (now - parse_ts(last.ts)).total_seconds())
        until = after
    return math.inf


def maybe_run(
    memoir: Memoir,
    *,
    now: dt.datetime | None = None,
    idle_for: float | None = None,
) -> PassResult | None:
    """Run a pass if one is due and the agent is idle; never raises.

    ``idle_for`` (seconds) overrides the idleness measured from the journal.
    Returns the pass, or None when nothing ran.
    """
    from memoir.curator.passes import run_pass

    try:
        cfg = curator_config(memoir.config)
        when = now or memoir.clock.now()
        due, why = should_run(memoir.state.curator, when, cfg)
        if why == DEFERRED:
            _defer_first_run(memoir, when)
            return None
        if not due:
            return None
        idle = idle_for if idle_for is not None else idle_seconds(memoir, when)
        if idle < cfg.min_idle_hours * 3600.0:
            log.debug("curator.not_idle", idle_seconds=idle, min_idle_hours=cfg.min_idle_hours)
            return None
        return run_pass(memoir, now=when, config=cfg, only_if_due=True)
    except (MemoirError, OSError) as exc:
        log.warning("curator.maybe_run_failed", error=str(exc))
        return None


def _defer_first_run(memoir: Memoir, now: dt.datetime) -> None:
    def decide(state: State) -> Decision[None]:
        if state.curator.last_run_at is not None:  # another process got there first
            return Decision()
        return Decision(events=[CuratorFirstRunDeferred(at=now.isoformat(),
                                                        summary=DEFERRED_SUMMARY)])

    memoir.commit(decide, actor="curator")
