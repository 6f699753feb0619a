"""The state folded from the journal: memory, sessions, runs, skills and the curator.

``State.apply`` is a pure fold step: it reads only the state and the event, never a
clock, a file or config, and it never fails — commands were validated before their
events were appended.  So ``state(seq)`` is a function of the journal prefix alone.

Each projection folds its own part of the state and exports its steps as a table
(``FOLDS``: payload type → step on that part); :data:`STEPS` below composes them, in a
fixed order.  A new projection adds a field to :class:`State` and a line to
:data:`STEPS`; nothing is registered by importing a module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import msgspec

from memoir.events.types import Event, Payload
from memoir.projections import approvals, curator, insights, keys, memory, sessions, skills
from memoir.projections.approvals import ApprovalsState
from memoir.projections.curator import CuratorState
from memoir.projections.insights import InsightsState
from memoir.projections.keys import KeysState
from memoir.projections.lazy import loaded
from memoir.projections.memory import MemoryState
from memoir.projections.screen import screened
from memoir.projections.sessions import RunInfo, SessionInfo, note_run
from memoir.projections.skills import SkillsState
from memoir.projections.vetting import MAX_REASONS, vet

__all__ = ["STEPS", "RunInfo", "SessionInfo", "State", "compose"]


class State(msgspec.Struct):
    """Everything memoir knows at journal position ``seq``."""

    seq: int = 0
    hash: str = ""
    memory: MemoryState = msgspec.field(default_factory=MemoryState)
    sessions: dict[str, SessionInfo] = msgspec.field(default_factory=dict)
    #: Sessions with recorded turns and no end: id → when the journal recorded the last
    #: turn (kept apart from :attr:`sessions`, which a checkpoint leaves undecoded).
    open_sessions: dict[str, str] = msgspec.field(default_factory=dict)
    runs: dict[str, RunInfo] = msgspec.field(default_factory=dict)
    skills: SkillsState = msgspec.field(default_factory=SkillsState)
    curator: CuratorState = msgspec.field(default_factory=CuratorState)
    approvals: ApprovalsState = msgspec.field(default_factory=ApprovalsState)
    insights: InsightsState = msgspec.field(default_factory=InsightsState)
    #: The key registry of a signed journal (:mod:`memoir.projections.screen`).
    keys: KeysState = msgspec.field(default_factory=KeysState)
    #: Records left out of the fold (:mod:`memoir.projections.vetting`): seq -> why,
    #: the first :data:`~memoir.projections.vetting.MAX_REASONS` of them.
    quarantined: dict[int, str] = msgspec.field(default_factory=dict)
    #: How many records were left out in all.
    quarantine_count: int = 0

    def apply(self, event: Event) -> None:
        """Fold one event into the state (one :func:`~memoir.projections.vetting.vet`
        refuses is only counted)."""
        reason = vet(self.memory, event)
        if reason is not None:
            self.quarantine_count += 1
            if len(self.quarantined) < MAX_REASONS:
                self.quarantined[event.seq] = reason
            self.seq = event.seq
            self.hash = event.hash
            return
        steps = STEPS.get(type(event.data))
        if steps:
            for part, step in steps:
                step(getattr(self, part), event)
        if event.run is not None:
            note_run(self.runs, event)
        self.seq = event.seq
        self.hash = event.hash

    def apply_all(self, events: Iterable[Event]) -> State:
        """Fold ``events`` as they are (records this process wrote, a test's events):
        a read of a journal goes through :meth:`fold`."""
        for event in events:
            self.apply(event)
        return self

    def fold(self, events: Iterable[Event], *, until: int | None = None,
             rest: Callable[[int], Iterable[Event]] | None = None) -> State:
        """Fold a read of the journal that starts after :attr:`seq`, each append
        screened first (:func:`~memoir.projections.screen.screened`: on a signed journal
        only appends a trusted key signed are folded; ``until``/``rest`` as there)."""
        for event in screened(events, self.keys, until, rest):
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

#: A fold step of one part of the state: the part (a field of State) and the event.
Step = Callable[[Any, Event], None]


def compose(
    parts: Iterable[tuple[str, Mapping[type[Payload], Step]]],
) -> dict[type[Payload], tuple[tuple[str, Step], ...]]:
    """payload type → ((field of State, step), …), in the order the parts are given."""
    table: dict[type[Payload], list[tuple[str, Step]]] = {}
    for part, folds in parts:
        for cls, step in folds.items():
            table.setdefault(cls, []).append((part, step))
    return {cls: tuple(steps) for cls, steps in table.items()}


#: Every fold step, by payload type: the one table :meth:`State.apply` reads.
STEPS = compose((
    ("memory", memory.FOLDS),
    ("sessions", sessions.SESSION_FOLDS),
    ("runs", sessions.RUN_FOLDS),
    ("open_sessions", sessions.OPEN_FOLDS),
    ("skills", skills.FOLDS),
    ("curator", curator.FOLDS),
    ("approvals", approvals.FOLDS),
    ("insights", insights.FOLDS),
    ("keys", keys.FOLDS),
))
