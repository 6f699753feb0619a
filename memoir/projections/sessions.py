"""The sessions and runs projection: every session with its pinned seq, every run with
the span of the journal it covers.

Sessions and runs are what a long history is mostly made of, so a checkpoint keeps them
apart and decodes them only on first use (:mod:`memoir.projections.lazy`).
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from memoir.events.insights import InsightResolved
from memoir.events.reviews import ReviewCompleted, ReviewFailed, ReviewSkipped
from memoir.events.runs import RunReverted, RunStarted
from memoir.events.sessions import ContextRecalled, SessionEnded, SessionStarted, TurnRecorded
from memoir.events.types import Event, Payload

__all__ = ["IDLE", "OPEN_FOLDS", "RUN_FOLDS", "SESSION_FOLDS", "RunInfo", "SessionInfo",
           "count_turn", "note_errors", "note_run"]


class SessionInfo(msgspec.Struct):
    id: str
    pinned_seq: int
    started_at: str
    actor: str
    platform: str = "cli"
    parent: str | None = None
    ended_at: str | None = None
    #: Why it ended (``closed``, ``idle``, ...); a session ended for being idle opens
    #: again with its next recorded turn.
    end_reason: str | None = None
    #: Turns recorded, and Hermes's nudge counters after the last one (spec §2.1).
    turns: int = 0
    turns_since_memory: int = 0
    iters_since_skill: int = 0
    #: The last turn a review (completed, failed or skipped) covered.
    reviewed_through: int = 0
    last_turn_at: str | None = None
    #: message hash → seq of the session.context_recalled record of that prompt.
    recalled: dict[str, int] = msgspec.field(default_factory=dict)
    #: The hash of the session's start record (its pin), to check kept prompt blocks
    #: without reading the journal.
    start_hash: str = ""
    #: Tool errors of its last turns that no turn resolved yet: signature → (tool, the
    #: fix the assistant proposed or "", the turn) (:mod:`memoir.insights.resolution`).
    unresolved: dict[str, tuple[str, str, int]] = msgspec.field(default_factory=dict)


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
    #: The run that undid this one (None: it stands).
    reverted_by: str | None = None
    #: For a revert: the run it undid.
    reverts: str | None = None


Sessions = dict[str, SessionInfo]
Runs = dict[str, RunInfo]
#: Sessions with recorded turns and no end: id → when the journal recorded the last turn.
Live = dict[str, str]
#: The reason of an end that a later turn undoes (:meth:`Learning.end_idle`).
IDLE = "idle"


def _session_started(sessions: Sessions, event: Event) -> None:
    data = event.data
    assert isinstance(data, SessionStarted)
    sessions[data.session_id] = SessionInfo(
        id=data.session_id, pinned_seq=event.seq, started_at=data.started_at or event.ts,
        actor=event.actor, platform=data.platform, parent=data.parent, start_hash=event.hash,
    )


def _session_ended(sessions: Sessions, event: Event) -> None:
    data = event.data
    assert isinstance(data, SessionEnded)
    info = sessions.get(data.session_id)
    if info is not None:
        info.ended_at = data.ended_at or event.ts
        info.end_reason = data.reason


def count_turn(info: SessionInfo, turn: TurnRecorded) -> tuple[str, ...]:
    """Advance a session's nudge counters by one recorded turn, as Hermes counts (spec
    §2.1); returns the reviews the turn made due (``memory``, ``skills``).

    The memory counter moves once per user turn, at its start, and is checked then; the
    skill counter moves once per model iteration (each assistant message) and is checked
    at the turn's end.  A structurally valid ``memory`` / ``skill_manage`` call resets
    its counter.  An interval of 0 turns a counter off.
    """
    due: list[str] = []
    info.turns = turn.turn
    if turn.memory_interval > 0:
        info.turns_since_memory += 1
        if info.turns_since_memory >= turn.memory_interval:
            due.append("memory")
            info.turns_since_memory = 0
    for message in turn.messages:
        if message.role != "assistant":
            continue
        if turn.skill_interval > 0:
            info.iters_since_skill += 1
        for name, valid in zip(message.calls, message.valid, strict=False):
            if valid and name == "memory":
                info.turns_since_memory = 0
            elif valid and name == "skill_manage":
                info.iters_since_skill = 0
    if turn.skill_interval > 0 and info.iters_since_skill >= turn.skill_interval:
        due.append("skills")
        info.iters_since_skill = 0
    info.last_turn_at = next((m.at for m in turn.messages if m.at), None) or info.last_turn_at
    return tuple(due)


#: How many turns after an error a later turn may still show its fix.
RESOLVE_WITHIN = 2


def note_errors(info: SessionInfo, turn: TurnRecorded) -> None:
    """Remember the turn's errors it left unresolved, forget those it resolved and
    those older than :data:`RESOLVE_WITHIN` turns."""
    for sig in [s for s, (_t, _p, n) in info.unresolved.items()
                if turn.turn - n >= RESOLVE_WITHIN]:
        del info.unresolved[sig]
    for error in turn.errors:
        if error.resolution is None:
            info.unresolved[error.signature] = (error.tool, error.suggested or "", turn.turn)
        else:
            info.unresolved.pop(error.signature, None)


def _turn_recorded(sessions: Sessions, event: Event) -> None:
    data = event.data
    assert isinstance(data, TurnRecorded)
    info = sessions.get(data.session_id)
    if info is not None:
        if info.ended_at is not None and info.end_reason == IDLE:
            info.ended_at = info.end_reason = None  # a pause, not an end
        count_turn(info, data)
        note_errors(info, data)
        if info.last_turn_at is None:
            info.last_turn_at = event.ts


def _resolved(sessions: Sessions, event: Event) -> None:
    data = event.data
    assert isinstance(data, InsightResolved)
    info = sessions.get(data.session_id)
    if info is not None:
        info.unresolved.pop(data.signature, None)


def _recalled(sessions: Sessions, event: Event) -> None:
    data = event.data
    assert isinstance(data, ContextRecalled)
    info = sessions.get(data.session_id)
    if info is not None:
        info.recalled[data.message_hash] = event.seq


def _reviewed(sessions: Sessions, event: Event) -> None:
    data = event.data
    assert isinstance(data, ReviewCompleted | ReviewFailed | ReviewSkipped)
    info = sessions.get(data.session_id)
    if info is not None:
        info.reviewed_through = max(info.reviewed_through, data.through_turn)


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


def _run_reverted(runs: Runs, event: Event) -> None:
    data = event.data
    assert isinstance(data, RunReverted)
    _run_of(runs, data.run_id, event).reverts = data.reverted_run
    # Undoing a run brings back what it had undone, and so on down a chain of reverts
    # of reverts: each link stands exactly when the one that undid it does not.
    run_id: str | None = data.reverted_run
    by: str | None = data.run_id
    while run_id is not None and (info := runs.get(run_id)) is not None:
        info.reverted_by = by
        run_id, by = info.reverts, (info.id if by is None else None)


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
    TurnRecorded: _turn_recorded,
    ContextRecalled: _recalled,
    InsightResolved: _resolved,
    ReviewCompleted: _reviewed,
    ReviewFailed: _reviewed,
    ReviewSkipped: _reviewed,
}
def _opened(live: Live, event: Event) -> None:
    data = event.data
    assert isinstance(data, TurnRecorded)
    live[data.session_id] = event.ts


def _closed(live: Live, event: Event) -> None:
    data = event.data
    assert isinstance(data, SessionEnded)
    live.pop(data.session_id, None)


#: payload type → fold step on :attr:`State.open_sessions`.
OPEN_FOLDS: dict[type[Payload], Callable[[Live, Event], None]] = {
    TurnRecorded: _opened,
    SessionEnded: _closed,
}


#: payload type → fold step on the runs table (besides :func:`note_run`).
RUN_FOLDS: dict[type[Payload], Callable[[Runs, Event], None]] = {
    RunStarted: _run_started,
    RunReverted: _run_reverted,
}
