"""What a curator pass reports: the ``run.json`` payload, the rename map in its summary,
and the folder its report goes to.

Each pass gets ``logs/curator/<YYYYMMDD-HHMMSS>[-N]/`` (UTC start time, ``-N`` from 2 for
passes that start in the same second).  The payload is journaled with the pass; the
files are rendered from it by :mod:`memoir.projections.render.curator`, so
``memoir rebuild`` writes them again byte for byte.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from memoir.projections.render.curator import REPORTS_DIR

__all__ = ["build_report", "rename_map", "report_dir"]

_SHOW_RENAMES = 10


def report_dir(started: dt.datetime, taken: Iterable[str]) -> str:
    """The report folder of a pass starting at ``started``, unique among ``taken``."""
    stamp = started.astimezone(dt.UTC).strftime("%Y%m%d-%H%M%S")
    used = set(taken)
    path = f"{REPORTS_DIR}/{stamp}"
    n = 1
    while path in used:
        n += 1
        path = f"{REPORTS_DIR}/{stamp}-{n}"
    return path


def build_report(
    *,
    started_at: str,
    duration_seconds: float,
    model: str | None,
    provider: str | None,
    auto_transitions: Mapping[str, int],
    before: Iterable[str],
    after: Iterable[str],
    consolidated: Sequence[Mapping[str, str]],
    pruned: Sequence[Mapping[str, str]],
    transitions: Sequence[Mapping[str, str]] = (),
    llm_final: str = "",
    llm_summary: str = "",
    llm_error: str | None = None,
) -> dict[str, Any]:
    """The ``run.json`` payload, with Hermes's fields in Hermes's order.

    ``before``/``after`` are the curated skills before and after the consolidation
    step (after the lifecycle, as Hermes counts them).  memoir makes no tool calls and
    keeps no cron jobs, so those fields are always empty.
    """
    before_set, after_set = set(before), set(after)
    removed = sorted(before_set - after_set)
    added = sorted(after_set - before_set)
    consolidated_rows = sorted((dict(c) for c in consolidated), key=lambda c: c["name"])
    pruned_rows = sorted((dict(p) for p in pruned), key=lambda p: p["name"])
    return {
        "started_at": started_at,
        "duration_seconds": round(duration_seconds, 2),
        "model": model,
        "provider": provider,
        "auto_transitions": dict(auto_transitions),
        "counts": {
            "before": len(before_set),
            "after": len(after_set),
            "delta": len(after_set) - len(before_set),
            "archived_this_run": len(removed),
            "added_this_run": len(added),
            "consolidated_this_run": len(consolidated_rows),
            "pruned_this_run": len(pruned_rows),
            "state_transitions": len(transitions),
            "cron_jobs_rewritten": 0,
            "tool_calls_total": 0,
        },
        "tool_call_counts": {},
        "archived": removed,
        "consolidated": consolidated_rows,
        "pruned": pruned_rows,
        "pruned_names": [p["name"] for p in pruned_rows],
        "added": added,
        "state_transitions": [dict(t) for t in transitions],
        "cron_rewrites": {"rewrites": [], "jobs_updated": 0, "jobs_scanned": 0},
        "llm_final": llm_final,
        "llm_summary": llm_summary,
        "llm_error": llm_error,
        "tool_calls": [],
    }


def rename_map(consolidated: Sequence[Mapping[str, str]],
               pruned: Sequence[Mapping[str, str]]) -> str:
    """The lines appended to the pass summary saying where archived skills went
    (empty when nothing was archived by the consolidation step)."""
    total = len(consolidated) + len(pruned)
    if not total:
        return ""
    lines = [f"archived {total} skill(s):"]
    rows = [f"  • {c['name']} → {c['into']}" for c in consolidated]
    rows += [f"  • {p['name']} — pruned (stale)" for p in pruned]
    lines += rows[:_SHOW_RENAMES]
    if total > _SHOW_RENAMES:
        lines.append(f"  … and {total - _SHOW_RENAMES} more")
    lines.append("full report: memoir curator status")
    umbrellas = sorted({c["into"] for c in consolidated if c.get("into")})
    if umbrellas:
        lines.append(f"keep an umbrella stable: memoir skills pin {umbrellas[0]}")
    return "\n".join(lines)
