"""The curator projection: Hermes's ``.curator_state`` fields folded from ``curator.*``
events.  (Fold handlers and renderers: to be filled by the curator work.)"""

from __future__ import annotations

import msgspec

__all__ = ["CuratorState"]


class CuratorState(msgspec.Struct, kw_only=True):
    last_run_at: str | None = None
    last_run_duration_seconds: float | None = None
    last_run_summary: str | None = None
    last_run_summary_shown_at: str | None = None
    last_report_path: str | None = None
    paused: bool = False
    run_count: int = 0
