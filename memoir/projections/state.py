"""The state folded from the journal: memory, sessions and runs.

``State.apply`` is a pure fold step: it reads only the state and the event, never a
clock, a file or config, and it never fails — commands were validated before their
events were appended.  So ``state(seq)`` is a function of the journal prefix alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import msgspec

from memoir.events.memory import EntryAdded, EntryRemoved, EntryReplaced, LimitsSet
from memoir.events.runs import RunStarted
from memoir.events.sessions import SessionEnded, SessionStarted
from memoir.events.types import Event, Payload
from memoir.projections.curator import CuratorState
from memoir.projections.lazy import loaded
from memoir.projections.memory import Entry, MemoryState
from memoir.projections.skills import SkillsState

__all__ = ["RunInfo", "SessionInfo", "State", "applies"]


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


class State(msgspec.Struct):
    """Everything memoir knows at journal position ``seq``."""

    seq: int = 0
    hash: str = ""
    memory: MemoryState = msgspec.field(default_factory=MemoryState)
    sessions: dict[str, SessionInfo] = msgspec.field(default_factory=dict)
    runs: dict[str, RunInfo] = msgspec.field(default_factory=dict)
    skills: SkillsState = msgspec.field(default_factory=SkillsState)
    curator: CuratorState = msgspec.field(default_factory=CuratorState)

    def apply(self, event: Event) -> None:
        """Fold one event into the state."""
        handlers = _HANDLERS.get(type(event.data))
        if handlers:
            for handler in handlers:
                handler(self, event)
        if event.run is not None:
            _note_run(self, event)
        self.seq = event.seq
        self.hash = event.hash

    def apply_all(self, events: Iterable[Event]) -> State:
        for event in events:
            self.apply(event)
        return self

    def copy(self) -> State:
        """An independent copy (for a read-only view at this seq)."""
        self.load_history()
        return _CODEC_DECODER.decode(_CODEC_ENCODER.encode(self))

    def load_history(self) -> None:
        """Decode sessions and runs a checkpoint left lazy (before encoding the state)."""
        loaded(self.sessions)
        loaded(self.runs)


_CODEC_ENCODER = msgspec.msgpack.Encoder()
_CODEC_DECODER = msgspec.msgpack.Decoder(State)

Handler = Callable[[State, Event], None]
_HANDLERS: dict[type[Payload], list[Handler]] = {}


def applies(*types: type[Payload]) -> Callable[[Handler], Handler]:
    """Register a fold step for the given payload types."""

    def register(fn: Handler) -> Handler:
        for cls in types:
            _HANDLERS.setdefault(cls, []).append(fn)
        return fn

    return register


def _note_run(state: State, event: Event) -> None:
    run_id = event.run
    assert run_id is not None
    info = state.runs.get(run_id)
    if info is None:
        info = state.runs[run_id] = RunInfo(
            id=run_id, first_seq=event.seq, last_seq=event.seq, started_at=event.ts,
            actor=event.actor, session=event.session,
        )
    info.last_seq = event.seq
    info.events += 1


@applies(EntryAdded)
def _entry_added(state: State, event: Event) -> None:
    data = event.data
    assert isinstance(data, EntryAdded)
    target = state.memory.target(data.target)
    entry = Entry(data.entry_id, data.text)
    if data.position is None:
        target.entries.append(entry)
    else:
        target.entries.insert(data.position, entry)
    target.written = True


@applies(EntryReplaced)
def _entry_replaced(state: State, event: Event) -> None:
    data = event.data
    assert isinstance(data, EntryReplaced)
    target = state.memory.target(data.target)
    i = target.index_of(data.entry_id)
    if i >= 0:
        target.entries[i] = Entry(data.entry_id, data.text)
    target.written = True


@applies(EntryRemoved)
def _entry_removed(state: State, event: Event) -> None:
    data = event.data
    assert isinstance(data, EntryRemoved)
    target = state.memory.target(data.target)
    i = target.index_of(data.entry_id)
    if i >= 0:
        del target.entries[i]
    target.written = True


@applies(LimitsSet)
def _limits_set(state: State, event: Event) -> None:
    data = event.data
    assert isinstance(data, LimitsSet)
    state.memory.limits = {"memory": data.memory, "user": data.user}


@applies(SessionStarted)
def _session_started(state: State, event: Event) -> None:
    data = event.data
    assert isinstance(data, SessionStarted)
    state.sessions[data.session_id] = SessionInfo(
        id=data.session_id, pinned_seq=event.seq, started_at=event.ts, actor=event.actor,
        platform=data.platform, parent=data.parent,
    )


@applies(SessionEnded)
def _session_ended(state: State, event: Event) -> None:
    data = event.data
    assert isinstance(data, SessionEnded)
    info = state.sessions.get(data.session_id)
    if info is not None:
        info.ended_at = event.ts


@applies(RunStarted)
def _run_started(state: State, event: Event) -> None:
    data = event.data
    assert isinstance(data, RunStarted)
    info = state.runs.get(data.run_id)
    if info is None:
        info = state.runs[data.run_id] = RunInfo(
            id=data.run_id, first_seq=event.seq, last_seq=event.seq, started_at=event.ts,
            actor=event.actor, session=event.session,
        )
    info.kind = data.kind
    info.summary = data.summary
