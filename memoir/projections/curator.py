"""The curator projection: Hermes's ``.curator_state`` fields, the reports of past
passes, and which runs were reverted, folded from ``curator.*`` and ``run.reverted``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from memoir.events.curator import (
    CuratorFirstRunDeferred,
    CuratorPaused,
    CuratorResumed,
    CuratorRunFinished,
    CuratorStateImported,
)
from memoir.events.runs import RunReverted
from memoir.events.types import Event, Payload

__all__ = ["FOLDS", "CuratorReport", "CuratorState"]


class CuratorReport(msgspec.Struct, kw_only=True):
    """One finished pass: its run, its report folder and its ``run.json`` payload."""

    run_id: str
    path: str
    payload: dict[str, Any] = msgspec.field(default_factory=dict)
    reverted_by: str | None = None


class CuratorState(msgspec.Struct, kw_only=True):
    """``.curator_state`` (spec §4.1) plus what memoir keeps to render reports.

    ``written`` is False until the first curator event, because Hermes has no state
    file before the scheduler or a pass first saves one.  ``seeded`` maps bundled
    skills to the time a pass first saw them (their inactivity clock's start).  Which
    runs are reverted is run history (:class:`~memoir.projections.sessions.RunInfo`);
    a report only notes the revert that undid its pass, for ``REPORT.md``.
    """

    last_run_at: str | None = None
    last_run_duration_seconds: float | None = None
    last_run_summary: str | None = None
    last_run_summary_shown_at: str | None = None
    last_report_path: str | None = None
    paused: bool = False
    run_count: int = 0
    written: bool = False
    reports: dict[str, CuratorReport] = msgspec.field(default_factory=dict)
    seeded: dict[str, str] = msgspec.field(default_factory=dict)

    def report_for_run(self, run_id: str) -> CuratorReport | None:
        for report in self.reports.values():
            if report.run_id == run_id:
                return report
        return None


def _run_finished(cur: CuratorState, event: Event) -> None:
    data = event.data
    assert isinstance(data, CuratorRunFinished)
    # Recorded when the pass finished, not when it started: a pass is one append, so
    # a crash never leaves a half-done pass counted as a completed run.
    cur.last_run_at = data.started_at or event.ts
    cur.last_run_duration_seconds = data.duration_seconds
    cur.last_run_summary = data.summary
    cur.run_count += 1
    for name in data.seeded:
        cur.seeded.setdefault(name, cur.last_run_at)
    if data.report_path is not None:
        cur.last_report_path = data.report_path
        cur.reports[data.report_path] = CuratorReport(
            run_id=data.run_id, path=data.report_path, payload=dict(data.report)
        )
    cur.written = True


def _first_run_deferred(cur: CuratorState, event: Event) -> None:
    data = event.data
    assert isinstance(data, CuratorFirstRunDeferred)
    cur.last_run_at = data.at
    cur.last_run_summary = data.summary
    cur.written = True


def _paused(cur: CuratorState, event: Event) -> None:
    cur.paused = isinstance(event.data, CuratorPaused)
    cur.written = True


def _state_imported(cur: CuratorState, event: Event) -> None:
    data = event.data
    assert isinstance(data, CuratorStateImported)
    cur.last_run_at = data.last_run_at
    cur.last_run_duration_seconds = data.last_run_duration_seconds
    cur.last_run_summary = data.last_run_summary
    cur.last_run_summary_shown_at = data.last_run_summary_shown_at
    cur.last_report_path = data.last_report_path
    cur.paused = data.paused
    cur.run_count = data.run_count
    cur.written = True


def _run_reverted(cur: CuratorState, event: Event) -> None:
    data = event.data
    assert isinstance(data, RunReverted)
    report = cur.report_for_run(data.reverted_run)
    if report is not None:
        report.reverted_by = data.run_id
    for report in cur.reports.values():
        if report.reverted_by == data.reverted_run:
            report.reverted_by = None


#: payload type → fold step on :class:`CuratorState`.
FOLDS: dict[type[Payload], Callable[[CuratorState, Event], None]] = {
    CuratorRunFinished: _run_finished,
    CuratorFirstRunDeferred: _first_run_deferred,
    CuratorPaused: _paused,
    CuratorResumed: _paused,
    RunReverted: _run_reverted,
    CuratorStateImported: _state_imported,
}
