"""Curator reports and ``.curator_state``: Hermes's formats, rendered from the journal, so
``memoir rebuild`` writes them again byte for byte.

The oracle tests run Hermes 0.19.0 (``MEMOIR_HERMES_PYTHON``) and compare formats and
lifecycle decisions; they skip when it is not available.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from memoir.clock import FakeClock, parse_ts
from memoir.curator import automatic_transitions, pause, run_pass
from memoir.curator.reports import build_report
from memoir.oversight.revert import revert_run
from memoir.projections.curator import CuratorState
from memoir.projections.render.curator import render_curator_state, render_run_json
from memoir.projections.skills import SkillRecord
from tests.support.curator import START, create, files_of, open_home
from tests.support.oracle import hermes_python

T0 = parse_ts(START)


def test_curator_state_is_sorted_two_space_json_without_a_final_newline() -> None:
    cur = CuratorState(last_run_at="2026-01-01T00:00:00+00:00", last_run_duration_seconds=0.5,
                       last_run_summary="auto: no changes — ok", run_count=2, written=True,
                       last_report_path="logs/curator/20260101-000000")
    assert render_curator_state(cur) == (
        '{\n'
        '  "last_report_path": "logs/curator/20260101-000000",\n'
        '  "last_run_at": "2026-01-01T00:00:00+00:00",\n'
        '  "last_run_duration_seconds": 0.5,\n'
        '  "last_run_summary": "auto: no changes — ok",\n'
        '  "last_run_summary_shown_at": null,\n'
        '  "paused": false,\n'
        '  "run_count": 2\n'
        '}').encode()
    assert render_curator_state(CuratorState()) is None


def test_run_json_has_hermes_fields_in_hermes_order() -> None:
    report = build_report(started_at="t", duration_seconds=1.234, model=None, provider=None,
                          auto_transitions={"marked_stale": 0}, before=["a", "b"],
                          after=["b", "c"], consolidated=[{"name": "a", "into": "c",
                                                           "source": "plan-file", "reason": ""}],
                          pruned=[])
    assert list(report) == [
        "started_at", "duration_seconds", "model", "provider", "auto_transitions", "counts",
        "tool_call_counts", "archived", "consolidated", "pruned", "pruned_names", "added",
        "state_transitions", "cron_rewrites", "llm_final", "llm_summary", "llm_error",
        "tool_calls"]
    assert list(report["counts"]) == [
        "before", "after", "delta", "archived_this_run", "added_this_run",
        "consolidated_this_run", "pruned_this_run", "state_transitions", "cron_jobs_rewritten",
        "tool_calls_total"]
    assert report["duration_seconds"] == 1.23
    assert (report["archived"], report["added"], report["counts"]["delta"]) == (["a"], ["c"], 0)
    assert render_run_json(report).endswith(b"}\n")


def test_a_pass_writes_its_report_folder_and_points_the_state_at_it(home: Path) -> None:
    clock = FakeClock("2026-03-04T05:06:07.5+00:00")
    m = open_home(home, clock=clock)
    for name in ("web-a", "web-b", "solo"):
        create(m, name)
    first = run_pass(m, use_rules=True)
    second = run_pass(m)
    assert first is not None and second is not None
    assert first.report_path == "logs/curator/20260304-050607"
    assert second.report_path == "logs/curator/20260304-050607-2"
    m.flush()
    state = json.loads((home / "skills/.curator_state").read_text(encoding="utf-8"))
    # Absolute, as Hermes tests it with Path(p).exists() from its own working directory.
    assert state["last_report_path"] == str(home.absolute() / second.report_path)
    assert Path(state["last_report_path"]).is_dir()
    assert state["run_count"] == 2
    assert state["last_run_at"] == "2026-03-04T05:06:07.500000+00:00"
    run = json.loads((home / first.report_path / "run.json").read_text(encoding="utf-8"))
    assert run["model"] == "memoir-rules" and run["provider"] == "memoir"
    assert [c["name"] for c in run["consolidated"]] == ["web-a", "web-b"]
    assert run["counts"]["before"] == 3 and run["counts"]["after"] == 2
    plain = json.loads((home / second.report_path / "run.json").read_text(encoding="utf-8"))
    assert plain["model"] is None and plain["llm_summary"] == "skipped (consolidation off)"
    report = (home / first.report_path / "REPORT.md").read_text(encoding="utf-8")
    headings = [line for line in report.splitlines() if line.startswith("#")]
    assert headings[0] == "# Curator run — 2026-03-04T05:06:07.500000+00:00"
    assert headings[1:] == [
        "## Automatic transitions (rules, no model)", "## Consolidation pass",
        "### Absorbed into umbrella skills (2)", "### New skills (1)", "## Planner summary",
        "## Recovery"]
    assert f"memoir revert {first.run_id}" in report


def test_rebuild_writes_every_curator_file_again_byte_for_byte(home: Path) -> None:
    clock = FakeClock(START)
    m = open_home(home, clock=clock)
    for name in ("pdf-a", "pdf-b", "lonely"):
        create(m, name)
    clock.advance(days=40)
    result = run_pass(m, use_rules=True)
    assert result is not None
    pause(m)
    revert_run(m, result.run_id)
    m.flush()
    before = files_of(home)
    for rel in [p for p in before if p.startswith(("logs/", "skills/.curator_state"))]:
        (home / rel).unlink()
    m.rebuild()
    assert files_of(home) == before
    fresh = open_home(home)
    fresh.rebuild()
    assert files_of(home) == before
    report = (home / str(result.report_path) / "REPORT.md").read_text(encoding="utf-8")
    assert "reverted by run" in report


# -- Hermes as the oracle --------------------------------------------------------------------------

HERMES_SCRIPT = r"""
import json, os, sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
doc = json.load(sys.stdin)
home = Path(os.environ["HERMES_HOME"])
skills = home / "skills"
for name in doc["records"]:
    (skills / name).mkdir(parents=True)
    (skills / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\nbody\n")
(skills / ".usage.json").write_text(json.dumps(doc["records"]))
from agent import curator
from tools import skill_usage
out = {}
curator.should_run_now()
out["deferred_state"] = (skills / ".curator_state").read_text()
now = datetime.fromisoformat(doc["now"])
out["counts"] = curator.apply_automatic_transitions(now=now)
out["states"] = {n: r["state"] for n, r in json.loads((skills / ".usage.json").read_text()).items()}
(skills / ".usage.json").write_text(json.dumps(doc["records"]))
curator.run_curator_review(synchronous=True, consolidate=False)
run_dir = sorted((home / "logs" / "curator").iterdir())[-1]
out["run_json"] = (run_dir / "run.json").read_text()
out["report_md"] = (run_dir / "REPORT.md").read_text()
out["state"] = (skills / ".curator_state").read_text()
print(json.dumps(out))
"""


def _records(now: dt.datetime) -> dict[str, dict[str, Any]]:
    rng = random.Random(7)
    out = {}
    for i in range(40):
        def when(rng: random.Random = rng) -> str | None:
            return None if rng.random() < 0.4 else (
                now - dt.timedelta(days=rng.uniform(0, 150))).isoformat()
        uses = rng.choice([0, 0, 1, 3])
        out[f"skill-{i:02d}"] = {
            "created_by": "agent", "use_count": uses, "view_count": rng.choice([0, 2]),
            "patch_count": 0, "last_used_at": when() if uses else None,
            "last_viewed_at": when(), "last_patched_at": when(),
            "created_at": (now - dt.timedelta(days=rng.uniform(0, 200))).isoformat(),
            "state": rng.choice(["active", "active", "stale"]),
            "pinned": rng.random() < 0.1, "archived_at": None,
        }
    return out


@pytest.fixture(scope="module")
def hermes_run() -> tuple[dict[str, Any], dict[str, Any]]:
    python = hermes_python()
    if python is None:
        pytest.skip("set MEMOIR_HERMES_PYTHON to a python with hermes-agent installed")
    now = dt.datetime(2026, 6, 1, 12, 0, tzinfo=dt.UTC)
    doc = {"now": now.isoformat(), "records": _records(now)}
    with tempfile.TemporaryDirectory(prefix="hermes-curator-") as tmp:
        env = {"HERMES_HOME": tmp, "HOME": tmp, "PATH": "/usr/bin:/bin"}
        proc = subprocess.run([python, "-I", "-c", HERMES_SCRIPT], input=json.dumps(doc),
                              capture_output=True, text=True, env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return doc, json.loads(proc.stdout)


def test_lifecycle_decisions_match_hermes(hermes_run: tuple[dict[str, Any], dict[str, Any]]
                                          ) -> None:
    doc, out = hermes_run
    now = parse_ts(doc["now"])
    skills = {
        name: SkillRecord(name=name, created_by="agent", **{
            k: r[k] for k in ("use_count", "view_count", "patch_count", "last_used_at",
                              "last_viewed_at", "last_patched_at", "created_at", "state",
                              "pinned")})
        for name, r in doc["records"].items()}
    ours = automatic_transitions(skills, now)
    states = {n: r.state for n, r in skills.items()}
    states.update({t.name: t.to_state for t in ours.transitions})
    assert states == out["states"]
    assert ours.counts == out["counts"]


def test_state_file_and_run_json_bytes_match_hermes(
        hermes_run: tuple[dict[str, Any], dict[str, Any]]) -> None:
    _doc, out = hermes_run
    for text in (out["deferred_state"], out["state"]):
        values = json.loads(text)
        assert render_curator_state(CuratorState(**values, written=True)) == text.encode()
    theirs = json.loads(out["run_json"])
    assert render_run_json(theirs) == out["run_json"].encode()
    ours = build_report(started_at="", duration_seconds=0, model=None, provider=None,
                        auto_transitions={}, before=[], after=[], consolidated=[], pruned=[])
    assert list(ours) == list(theirs)
    assert list(ours["counts"]) == list(theirs["counts"])
    assert list(ours["cron_rewrites"]) == list(theirs["cron_rewrites"])
    first_line = out["report_md"].splitlines()[0]
    assert first_line == f"# Curator run — {theirs['started_at']}"
