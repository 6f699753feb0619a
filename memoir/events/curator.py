"""Curator events.

A curator pass is one run: ``run.started`` (kind ``curator``), ``curator.run_started``
with the inputs it saw, the lifecycle transitions and the consolidation plan's changes
as ordinary skill events carrying the run id, ``curator.plan_accepted`` when a plan was
given, and ``curator.run_finished`` with the summary and the full report, from which
``logs/curator/<stamp>/run.json`` and ``REPORT.md`` are rendered.

(A revert's ``run.reverted`` is a run event: :mod:`memoir.events.runs`.)
"""

from __future__ import annotations

from typing import Any

from memoir.events.types import Payload, event_type, require
from memoir.names import check_report_path, check_shown_path, check_skill_key

__all__ = [
    "PAYLOADS",
    "CuratorFirstRunDeferred",
    "CuratorPaused",
    "CuratorResumed",
    "CuratorRunFinished",
    "CuratorRunStarted",
    "CuratorStateImported",
    "PlanAccepted",
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
    """A consolidation plan, in Hermes's structured form, as far as it passed validation.

    ``umbrellas`` (a memoir extension) names the new umbrella skills the plan creates;
    ``refused`` counts the items refused (each has its own ``skill.write_rejected``).
    """

    run_id: str
    source: str
    consolidations: list[dict[str, str]] = []
    prunings: list[dict[str, str]] = []
    umbrellas: list[dict[str, str]] = []
    refused: int = 0


@event_type("curator.run_finished")
class CuratorRunFinished(Payload, frozen=True, kw_only=True):
    """A pass ended.  ``report`` is the whole ``run.json`` payload, ``report_path`` the
    report folder relative to the home, ``started_at`` the pass's ``now`` (ISO-8601),
    ``seeded`` the bundled skills whose inactivity clock starts with this pass."""

    run_id: str
    summary: str
    duration_seconds: float = 0.0
    counts: dict[str, Any] = {}
    report_path: str | None = None
    started_at: str | None = None
    report: dict[str, Any] = {}
    seeded: list[str] = []

    def __post_init__(self) -> None:
        # The report folder is written to: logs/curator/<stamp>/{run.json,REPORT.md}.
        if self.report_path is not None:
            require("report_path", check_report_path(self.report_path))
        for name in self.seeded:
            require("seeded", check_skill_key(name))

    def entities(self) -> tuple[str, ...]:
        return ("curator",)


@event_type("curator.first_run_deferred")
class CuratorFirstRunDeferred(Payload, frozen=True, kw_only=True):
    """The schedule saw no previous run: the clock starts at ``at`` and the first real
    pass waits one interval (Hermes's deferred first run)."""

    at: str
    summary: str

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


@event_type("curator.state_imported")
class CuratorStateImported(Payload, frozen=True, kw_only=True):
    """A Hermes ``.curator_state`` taken over as it was (spec §4.1): its fields replace
    the curator's record (memoir's own report list is kept)."""

    last_run_at: str | None = None
    last_run_duration_seconds: float | None = None
    last_run_summary: str | None = None
    last_run_summary_shown_at: str | None = None
    last_report_path: str | None = None
    paused: bool = False
    run_count: int = 0

    def __post_init__(self) -> None:
        if self.last_report_path is not None:
            require("last_report_path", check_shown_path(self.last_report_path))

    def entities(self) -> tuple[str, ...]:
        return ("curator",)


#: Every payload type of this module, for the catalog (:mod:`memoir.events.catalog`).
PAYLOADS: tuple[type[Payload], ...] = (
    CuratorRunStarted,
    PlanAccepted,
    CuratorRunFinished,
    CuratorFirstRunDeferred,
    CuratorPaused,
    CuratorResumed,
    CuratorStateImported,
)
