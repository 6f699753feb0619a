"""Run events: a run is the unit you audit and roll back (a review, a curator pass,
an import, an adoption of hand edits, a batch of CLI edits, a revert).

A revert is a run too: ``run.started`` (kind ``revert``), ``run.reverted``, then the
compensating events, all with the revert's own run id."""

from __future__ import annotations

from memoir.events.types import Payload, event_type

__all__ = ["PAYLOADS", "RunReverted", "RunStarted"]


@event_type("run.started")
class RunStarted(Payload, frozen=True, kw_only=True):
    """The first record of a run: what kind of run it is and what it set out to do."""

    run_id: str
    kind: str
    summary: str = ""

    def entities(self) -> tuple[str, ...]:
        return (f"run:{self.run_id}",)


@event_type("run.reverted")
class RunReverted(Payload, frozen=True, kw_only=True):
    """Run ``reverted_run`` was undone; the compensating events follow with this event's
    run id (the revert's own run, which can itself be reverted).

    ``conflicts`` lists the entities later events had touched too; ``resolution`` says
    what was done about them: ``none`` (there were none), ``force`` (reverted anyway,
    to the value before the run) or ``skip`` (left as they are).
    """

    run_id: str
    reverted_run: str
    conflicts: list[str] = []
    resolution: str = "none"

    def entities(self) -> tuple[str, ...]:
        return (f"run:{self.reverted_run}",)


#: Every payload type of this module, for the catalog (:mod:`memoir.events.catalog`).
PAYLOADS: tuple[type[Payload], ...] = (
    RunStarted,
    RunReverted,
)
