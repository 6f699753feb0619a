"""When the curator runs by itself (spec §4.2), with an idle gate that takes effect.

When a pass is due is :func:`memoir.curator.due.should_run`.  The very first check
finds no last pass: :func:`maybe_run` starts the clock (a ``curator.first_run_deferred``
event) and runs nothing, so the first pass comes one interval later.  On top of that,
it waits
until the agent has been idle ``min_idle_hours``, measured from the journal (the time
since the last event by a foreground actor) unless the caller says how idle it is.
"""

from __future__ import annotations

import datetime as dt
import math

from memoir.clock import parse_ts
from memoir.curator.config import curator_config
from memoir.curator.due import DEFERRED, DEFERRED_SUMMARY, should_run
from memoir.curator.passes import PassResult, run_pass
from memoir.curator.rules import BACKGROUND_ACTORS
from memoir.engine.commit import Decision
from memoir.engine.port import Home
from memoir.errors import MemoirError
from memoir.events.curator import CuratorFirstRunDeferred
from memoir.logs import get_logger
from memoir.projections.state import State

__all__ = ["DEFERRED", "DEFERRED_SUMMARY", "idle_seconds", "maybe_run", "should_run"]

log = get_logger("memoir.curator")

#: Actors whose events do not mean someone is using the agent.
_QUIET_ACTORS = BACKGROUND_ACTORS | {"system"}
_SCAN_CHUNK = 512


def idle_seconds(engine: Home, now: dt.datetime) -> float:
    """Seconds since the last event by a foreground actor (agent, user, import …);
    infinite when there is none.  Reads the journal backwards in chunks."""
    until = engine.head
    while until > 0:
        after = max(0, until - _SCAN_CHUNK)
        last = None
        for event in engine.events(after=after, until=until):
            if event.actor not in _QUIET_ACTORS:
                last = event
        if last is not None:
            return max(0.0, (now - parse_ts(last.ts)).total_seconds())
        until = after
    return math.inf


def maybe_run(
    engine: Home,
    *,
    now: dt.datetime | None = None,
    idle_for: float | None = None,
) -> PassResult | None:
    """Run a pass if one is due and the agent is idle; never raises.

    ``idle_for`` (seconds) overrides the idleness measured from the journal.
    Returns the pass, or None when nothing ran.
    """
    try:
        cfg = curator_config(engine.config)
        when = now or engine.clock.now()
        due, why = should_run(engine.state.curator, when, cfg)
        if why == DEFERRED:
            _defer_first_run(engine, when)
            return None
        if not due:
            return None
        idle = idle_for if idle_for is not None else idle_seconds(engine, when)
        if idle < cfg.min_idle_hours * 3600.0:
            log.debug("curator.not_idle", idle_seconds=idle, min_idle_hours=cfg.min_idle_hours)
            return None
        return run_pass(engine, now=when, config=cfg, only_if_due=True)
    except (MemoirError, OSError) as exc:
        log.warning("curator.maybe_run_failed", error=str(exc))
        return None


def _defer_first_run(engine: Home, now: dt.datetime) -> None:
    def decide(state: State) -> Decision[None]:
        if state.curator.last_run_at is not None:  # another process got there first
            return Decision()
        return Decision(events=[CuratorFirstRunDeferred(at=now.isoformat(),
                                                        summary=DEFERRED_SUMMARY)])

    engine.commit(decide, by="curator")
