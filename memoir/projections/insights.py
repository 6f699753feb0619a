"""The insights projection: tool-error signatures, counted from recorded turns, and
where each stands in seed 003's pipeline (seen → insight → candidate → accepted or
rejected; expired, demoted).  Every step past counting is an ``insight.*`` event, so
this fold reads no config and no clock."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from memoir.events.insights import (
    InsightAccepted,
    InsightCandidate,
    InsightDemoted,
    InsightExpired,
    InsightPromoted,
    InsightReferenced,
    InsightRejected,
    InsightResolved,
)
from memoir.events.sessions import TurnRecorded
from memoir.events.types import Event, Payload

__all__ = ["FOLDS", "Insight", "InsightsState"]


class Insight(msgspec.Struct):
    signature: str
    tool: str
    #: seen, insight, candidate, accepted, rejected, expired
    state: str = "seen"
    count: int = 0
    first_seen: str = ""
    last_seen: str = ""
    example: str = ""
    resolution: str | None = None
    references: int = 0
    last_used: str | None = None
    skill: str | None = None


class InsightsState(msgspec.Struct):
    signatures: dict[str, Insight] = msgspec.field(default_factory=dict)


def _seen(part: InsightsState, event: Event) -> None:
    data = event.data
    assert isinstance(data, TurnRecorded)
    # Seen when the turn happened: an imported conversation's errors are as old as it.
    when = data.at or event.ts
    for error in data.errors:
        found = part.signatures.get(error.signature)
        if found is None or found.state == "expired":
            found = part.signatures[error.signature] = Insight(
                signature=error.signature, tool=error.tool, first_seen=when)
        found.count += 1
        found.first_seen = min(found.first_seen, when)
        found.last_seen = max(found.last_seen, when)
        found.example = error.error
        if error.resolution and not found.resolution:
            found.resolution = error.resolution


def _get(part: InsightsState, signature: str) -> Insight | None:
    return part.signatures.get(signature)


def _promoted(part: InsightsState, event: Event) -> None:
    data = event.data
    assert isinstance(data, InsightPromoted)
    found = _get(part, data.signature)
    if found is not None:
        found.state = "insight"
        found.resolution = data.resolution or found.resolution
        found.last_used = event.ts


def _resolved(part: InsightsState, event: Event) -> None:
    data = event.data
    assert isinstance(data, InsightResolved)
    found = _get(part, data.signature)
    if found is not None:
        found.resolution = data.resolution  # the latest fix seen to work


def _referenced(part: InsightsState, event: Event) -> None:
    data = event.data
    assert isinstance(data, InsightReferenced)
    found = _get(part, data.signature)
    if found is not None:
        found.references += 1
        found.last_used = event.ts


def _state(value: str) -> Callable[[InsightsState, Event], None]:
    def step(part: InsightsState, event: Event) -> None:
        found = _get(part, getattr(event.data, "signature", ""))
        if found is not None:
            found.state = value
            if isinstance(event.data, InsightAccepted):
                found.skill = event.data.skill
            if isinstance(event.data, InsightDemoted):
                found.references = 0
    return step


#: payload type → fold step on the insights part of the state.
FOLDS: dict[type[Payload], Callable[[InsightsState, Event], None]] = {
    TurnRecorded: _seen,
    InsightPromoted: _promoted,
    InsightReferenced: _referenced,
    InsightResolved: _resolved,
    InsightCandidate: _state("candidate"),
    InsightAccepted: _state("accepted"),
    InsightRejected: _state("rejected"),
    InsightExpired: _state("expired"),
    InsightDemoted: _state("seen"),
}
