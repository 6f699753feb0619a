"""Run events: a run is the unit you audit and roll back (a review, a curator pass,
an import, an adoption of hand edits, a batch of CLI edits, a revert)."""

from __future__ import annotations

from memoir.events.types import Payload, event_type

__all__ = ["PAYLOADS", "RunStarted"]


@event_type("run.started")
class RunStarted(Payload, frozen=True, kw_only=True):
    """The first record of a run: what kind of run it is and what it set out to do."""

    run_id: str
    kind: str
    summary: str = ""

    def entities(self) -> tuple[str, ...]:
        return (f"run:{self.run_id}",)


#: Every payload type of this module, for the catalog (:mod:`memoir.events.catalog`).
PAYLOADS: tuple[type[Payload], ...] = (
    RunStarted,
)
