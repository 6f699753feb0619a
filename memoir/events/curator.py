"""Curator and revert events.  A curator pass is one run: ``curator.run_started``, then
ordinary skill events carrying the run id, then ``curator.run_finished``."""

from __future__ import annotations

from typing import Any

from memoir.events.types import Payload, event_type

__all__ = [
    "CuratorPaused",
    "CuratorResumed",
    "CuratorRunFinished",
    "CuratorRunStarted",
    "PlanAccepted",
    "RunReverted",
]


@event_type("curator.run_started")
class CuratorRunStarted(Payload, frozen=True, kw_only=True):
    """A pass began; ``inputs`` is what it saw (candidates, thresholds, now)."""

    run_id: str
    dry_run: bool = False
    inputs: dict[str, Any] = {}

    def entities(self) -> tuple[str, ...]:
        return ("curator",)


@event_type("curator.plan_accepted")
class PlanAccepted(Payload, frozen=True, kw_only=True):
    """A consolidation plan that passed validation, in Hermes's structured form."""

    run_id: str
    source: str
    consolidations: list[dict[str, str]] = []
    prunings: list[dict[str, str]] = []


@event_type("curator.run_finished")
class CuratorRunFinished(Payload, frozen=True, kw_only=True):
    run_id: str
    summary: str
    duration_seconds: float = 0.0
    counts: dict[str, Any] = {}
    report_path: str | None = None

    def entities(self) -> tuple[str, ...]:
        return ("curator",)


@event_type("curator.paused")
class CuratorPaused(Payload, frozen=True, kw_only=True):
    def entities(self) -> tuple[str, ...]:
        return ("curator",)


@event_type("curator.resumed")
class CuratorResumed(Payload, frozen=True, kw_only=True):
    def entities(self) -> tuple[str, ...]:
        return ("curator",)


@event_type("run.reverted")
class RunReverted(Payload, frozen=True, kw_only=True):
    """Run ``reverted_run`` was undone; the compensating events follow with this event's
    run id (the revert's own run, which can itself be reverted)."""

    run_id: str
    reverted_run: str
    conflicts: list[str] = []
    resolution: str = "none"

    def entities(self) -> tuple[str, ...]:
        return (f"run:{self.reverted_run}",)
