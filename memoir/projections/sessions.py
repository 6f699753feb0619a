"""The sessions and runs projection: every session with its pinned seq, every run with
the span of the journal it covers.

Sessions and runs are what a long history is mostly made of, so a checkpoint keeps them
apart and decodes them only on first use (:mod:`memoir.projections.lazy`).
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from memoir.events.runs import RunStarted
from memoir.events.sessions import SessionEnded, SessionStarted
from memoir.events.types import Event, Payload

__all__ = ["RUN_FOLDS", "SESSION_FOLDS", "RunInfo", "SessionInfo", "note_run"]


class SessionInfo(msgspec.Struct):
    id: str
    pinned_seq: int
    started_at: str
    actor: str
    platform: str = "cli"
    parent: str | None = None
    ended_at: str | None = None


class RunInfo(msgspec.Struct):
    id: str
    first_seq: int
    last_seq: int
    started_at: str
    actor: str
    kind: str = ""
    summary: str = ""
    events: int = 0
    session: str | None = None


Sessions = dict[str, SessionInfo]
Runs = dict[str, RunInfo]


def _session_started(sessions: Sessions, event: Event) -> None:
    data = event.data
    assert isinstance(data, SessionStarted)
    sessions[data.session_id] = SessionInfo(
        id=data.session_id, pinned_seq=event.seq, started_at=event.ts, actor=event.actor,
        platform=data.platform, parent=data.parent,
    )


def _session_ended(sessions: Sessions, event: Event) -> None:
    data = event.data
    assert isinstance(data, SessionEnded)
    info = sessions.get(data.session_id)
    if info is not None:
        info.ended_at = event.ts


def _run_of(runs: Runs, run_id: str, event: Event) -> RunInfo:
    info = runs.get(run_id)
    if info is None:
        info = runs[run_id] = RunInfo(
            id=run_id, first_seq=event.seq, last_seq=event.seq, started_at=event.ts,
            actor=event.actor, session=event.session,
        )
    return info


def _run_started(runs: Runs, event: Event) -> None:
    data = event.data
    assert isinstance(data, RunStarted)
    info = _run_of(runs, data.run_id, event)
    info.kind = data.kind
    info.summary = data.summary


def note_run(runs: Runs, event: Event) -> None:
    """Count an event that carries a run id (every event of a run, whatever its type)."""
    assert event.run is not None
    info = _run_of(runs, event.run, event)
    info.last_seq = event.seq
    info.events += 1


#: payload type → fold step on the sessions table.
SESSION_FOLDS: dict[type[Payload], Callable[[Sessions, Event], None]] = {
    SessionStarted: _session_started,
    SessionEnded: _session_ended,
}
#: payload type → fold step on the runs table (besides :func:`note_run`).
RUN_FOLDS: dict[type[Payload], Callable[[Runs, Event], None]] = {
    RunStarted: _run_started,
}
