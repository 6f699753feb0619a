"""The curator's files, rendered from the state: ``skills/.curator_state`` and each
pass's ``logs/curator/<stamp>/run.json`` and ``REPORT.md``.

Formats are Hermes's (spec §4.1, §4.7): ``.curator_state`` is JSON with ``indent=2``,
sorted keys and no trailing newline; ``run.json`` holds Hermes's fields in Hermes's
order (``indent=2``, newline-terminated); ``REPORT.md`` has Hermes's sections, in its
order.  The journal keeps ``last_report_path`` relative to the home, so a home can
move; the file shows it absolute, under the home the renderer was made for, because
Hermes tests it with ``Path(p).exists()`` from its own working directory.  Everything
here is a pure function of the state (and that home).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from memoir.events.curator import (
    CuratorFirstRunDeferred,
    CuratorPaused,
    CuratorResumed,
    CuratorRunFinished,
    CuratorStateImported,
)
from memoir.events.runs import RunReverted
from memoir.events.types import Event
from memoir.projections.curator import CuratorReport, CuratorState
from memoir.projections.state import State

__all__ = [
    "REPORTS_DIR",
    "STATE_FILE",
    "CuratorRenderer",
    "render_curator_state",
    "render_report_md",
    "render_run_json",
]

STATE_FILE = "skills/.curator_state"
REPORTS_DIR = "logs/curator"
_SHOW_LIST = 50


# Hermes's key orders.  The journal stores mappings with sorted keys, so the renderer
# puts them back in order rather than trusting the order a payload arrives in.
_TOP = ("started_at", "duration_seconds", "model", "provider", "auto_transitions", "counts",
        "tool_call_counts", "archived", "consolidated", "pruned", "pruned_names", "added",
        "state_transitions", "cron_rewrites", "llm_final", "llm_summary", "llm_error",
        "tool_calls")
_NESTED = {
    "auto_transitions": ("marked_stale", "archived", "reactivated", "checked", "seeded"),
    "counts": ("before", "after", "delta", "archived_this_run", "added_this_run",
               "consolidated_this_run", "pruned_this_run", "state_transitions",
               "cron_jobs_rewritten", "tool_calls_total"),
    "cron_rewrites": ("rewrites", "jobs_updated", "jobs_scanned", "error"),
}
_ROWS = {
    "consolidated": ("name", "into", "source", "reason", "evidence", "model_claimed_into"),
    "pruned": ("name", "source", "reason"),
    "state_transitions": ("name", "from", "to"),
}


def _in_order(value: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    out = {k: value[k] for k in keys if k in value}
    out.update((k, value[k]) for k in value if k not in out)
    return out


def _hermes_order(payload: Mapping[str, Any]) -> dict[str, Any]:
    out = _in_order(payload, _TOP)
    for key, keys in _NESTED.items():
        if isinstance(out.get(key), Mapping):
            out[key] = _in_order(out[key], keys)
    for key, keys in _ROWS.items():
        if isinstance(out.get(key), list):
            out[key] = [_in_order(row, keys) if isinstance(row, Mapping) else row
                        for row in out[key]]
    return out


def render_run_json(payload: Mapping[str, Any]) -> bytes:
    text = json.dumps(_hermes_order(payload), indent=2, ensure_ascii=False)
    return (text + "\n").encode("utf-8")


def render_curator_state(cur: CuratorState, home: Path | None = None) -> bytes | None:
    """``skills/.curator_state``, or None before anything wrote it.  ``home``: where
    the file goes, to make ``last_report_path`` absolute (kept as it is without one)."""
    if not cur.written:
        return None
    report = cur.last_report_path
    if report is not None and home is not None and not os.path.isabs(report):
        report = str(home / report)
    data = {
        "last_run_at": cur.last_run_at,
        "last_run_duration_seconds": cur.last_run_duration_seconds,
        "last_run_summary": cur.last_run_summary,
        "last_run_summary_shown_at": cur.last_run_summary_shown_at,
        "last_report_path": report,
        "paused": cur.paused,
        "run_count": cur.run_count,
    }
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False).encode("utf-8")


def _duration_label(seconds: float) -> str:
    mins, secs = divmod(int(seconds or 0), 60)
    return f"{mins}m {secs}s" if mins else f"{secs}s"


def render_report_md(report: CuratorReport) -> bytes:
    """``REPORT.md``: Hermes's sections in Hermes's order, in memoir's words."""
    p = report.payload
    counts = p.get("counts") or {}
    auto = p.get("auto_transitions") or {}
    out: list[str] = [f"# Curator run — {p.get('started_at', '')}\n"]
    out.append(
        f"Model: `{p.get('model') or '(none)'}` via `{p.get('provider') or '(none)'}`  ·  "
        f"Duration: {_duration_label(p.get('duration_seconds') or 0)}  ·  "
        f"Curated skills: {counts.get('before', 0)} → {counts.get('after', 0)} "
        f"({counts.get('delta', 0):+d})  ·  Run: `{report.run_id}`\n"
    )
    if report.reverted_by:
        out.append(f"> ↩ This pass was reverted by run `{report.reverted_by}`.\n")
    if p.get("llm_error"):
        out.append(f"> ⚠ Consolidation error: `{p['llm_error']}`\n")

    out.append("## Automatic transitions (rules, no model)\n")
    out.append(f"- skills checked: {auto.get('checked', 0)}")
    out.append(f"- marked stale: {auto.get('marked_stale', 0)}")
    out.append(f"- archived after long inactivity: {auto.get('archived', 0)}")
    out.append(f"- reactivated: {auto.get('reactivated', 0)}")
    if auto.get("seeded"):
        out.append(f"- bundled skills whose clock starts now: {auto['seeded']}")
    out.append("")

    out.append("## Consolidation pass\n")
    out.append(f"- tool calls: **{counts.get('tool_calls_total', 0)}** (memoir applies plans "
               "as events, without tool calls)")
    out.append(f"- absorbed into umbrellas: **{counts.get('consolidated_this_run', 0)}**")
    out.append(f"- pruned: **{counts.get('pruned_this_run', 0)}**")
    out.append(f"- new skills: **{counts.get('added_this_run', 0)}**")
    out.append(f"- state changes between the start and end of this step: "
               f"**{counts.get('state_transitions', 0)}**")
    out.append("")

    _entry_section(
        out, "Absorbed into umbrella skills", p.get("consolidated") or [],
        "_Each of these now lives on inside its umbrella, as a reference page; the "
        "original is archived, not deleted._\n",
        lambda e: f"- `{e.get('name')}` → merged into `{e.get('into')}`",
    )
    _entry_section(
        out, "Pruned", p.get("pruned") or [],
        "_Archived without an umbrella; each stays in the archive and can be restored._\n",
        lambda e: f"- `{e.get('name')}`",
    )

    added = p.get("added") or []
    if added:
        out.append(f"### New skills ({len(added)})\n")
        out.append("_Umbrellas this pass created._\n")
        out.extend(f"- `{name}`" for name in added)
        out.append("")

    transitions = p.get("state_transitions") or []
    if transitions:
        out.append(f"### State transitions ({len(transitions)})\n")
        out.extend(f"- `{t.get('name')}`: {t.get('from')} → {t.get('to')}"
                   for t in transitions)
        out.append("")

    final = (p.get("llm_final") or "").strip()
    if final:
        out.append("## Planner's final summary\n")
        out.append(final)
        out.append("")
    elif not p.get("llm_error") and p.get("llm_summary"):
        out.append("## Planner summary\n")
        out.append(str(p["llm_summary"]))
        out.append("")

    out.append("## Recovery\n")
    out.append(f"- Undo this whole pass: `memoir revert {report.run_id}` "
               "(`memoir curator rollback` while it is the latest pass)")
    out.append("- Bring back one archived skill: `memoir skills restore <name>`")
    out.append(f"- Every change of this pass is in the journal: `memoir log --run "
               f"{report.run_id}`; `run.json` here has the full record.")
    out.append("")
    return "\n".join(out).encode("utf-8")


def _entry_section(
    out: list[str], title: str, entries: list[dict[str, Any]], note: str,
    head: Callable[[dict[str, Any]], str],
) -> None:
    """A REPORT.md list of consolidated or pruned skills, at most _SHOW_LIST lines."""
    if not entries:
        return
    out.append(f"### {title} ({len(entries)})\n")
    out.append(note)
    for entry in entries[:_SHOW_LIST]:
        line = head(entry)
        if entry.get("reason"):
            line += f" — {entry['reason']}"
        out.append(line)
    if len(entries) > _SHOW_LIST:
        out.append(f"- … {len(entries) - _SHOW_LIST} more in `run.json`")
    out.append("")


class CuratorRenderer:
    """Projects ``.curator_state`` and the pass reports into the home (``home``: its
    absolute path, for ``last_report_path``; None keeps the path relative)."""

    name = "curator"

    def __init__(self, home: Path | None = None) -> None:
        self.home = home

    # Stands for "every report folder" in a touched set: a revert marks the report
    # of the run it undoes, and only the state knows which folder that is.
    ALL_REPORTS = f"{REPORTS_DIR}/"

    #: Payload types that can change these files.
    watches: tuple[type, ...] = (CuratorRunFinished, CuratorPaused, CuratorResumed,
                                 CuratorFirstRunDeferred, RunReverted, CuratorStateImported)

    def touched(self, events: Sequence[Event]) -> set[str]:
        paths: set[str] = set()
        for event in events:
            data = event.data
            if isinstance(data, CuratorRunFinished):
                paths.add(STATE_FILE)
                if data.report_path:
                    paths.add(f"{data.report_path}/run.json")
                    paths.add(f"{data.report_path}/REPORT.md")
            elif isinstance(data, CuratorPaused | CuratorResumed | CuratorFirstRunDeferred
                            | CuratorStateImported):
                paths.add(STATE_FILE)
            elif isinstance(data, RunReverted):
                paths.add(self.ALL_REPORTS)
        return paths

    def files(self, state: State, paths: set[str] | None) -> dict[str, bytes | None]:
        cur: CuratorState = state.curator
        out: dict[str, bytes | None] = {}
        if paths is None or STATE_FILE in paths:
            out[STATE_FILE] = render_curator_state(cur, self.home)
        every = paths is None or self.ALL_REPORTS in paths
        for path, report in cur.reports.items():
            for name, render in (("run.json", _run_json_of), ("REPORT.md", render_report_md)):
                rel = f"{path}/{name}"
                if every or (paths is not None and rel in paths):
                    out[rel] = render(report)
        return out


def _run_json_of(report: CuratorReport) -> bytes:
    return render_run_json(report.payload)
