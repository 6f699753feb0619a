"""``memoir curator …``, ``memoir runs`` and ``memoir revert`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from memoir.cli import cli
from tests.support.curator import create, open_home

LATER = "2026-03-15T00:00:00Z"


def run(home: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--home", str(home), *args], catch_exceptions=False)


def library(home: Path) -> None:
    m = open_home(home)
    for name in ("pdf-a", "pdf-b", "solo"):
        create(m, name)
    m.close()


def test_curator_run_dry_run_shows_changes_and_appends_nothing(home: Path) -> None:
    library(home)
    head = open_home(home).head
    out = run(home, "curator", "run", "--dry-run", "--consolidate", "--now", LATER)
    assert out.exit_code == 0, out.output
    assert "would: absorb pdf-a into pdf" in out.output
    assert "would: solo: active → stale" in out.output
    assert "dry run: nothing appended" in out.output
    assert open_home(home).head == head


def test_curator_run_with_a_plan_file_then_rollback(home: Path, tmp_path: Path) -> None:
    library(home)
    plan = tmp_path / "answer.md"
    plan.write_text("Summary.\n\n```yaml\nconsolidations:\n  - {from: pdf-b, into: pdf-a}\n"
                    "prunings:\n  - {name: solo, reason: unused}\n  - {name: ghost}\n```\n",
                    encoding="utf-8")
    out = run(home, "curator", "run", "--plan", str(plan), "--now", LATER)
    assert out.exit_code == 0, out.output
    assert "did: absorb pdf-b into pdf-a" in out.output
    assert "refused pruning ghost: no skill named 'ghost'" in out.output
    status = run(home, "curator", "status")
    assert "curator: ENABLED" in status.output and "runs:           1" in status.output
    back = run(home, "curator", "rollback")
    assert back.exit_code == 0, back.output
    assert "reverted run curator-" in back.output
    skills = open_home(home).state.skills.skills
    assert skills["pdf-b"].state == "active" and skills["solo"].state == "active"
    again = run(home, "curator", "rollback")
    assert again.exit_code == 3
    assert again.output.strip() == (
        "memoir: error: no curator pass to roll back (`memoir runs` lists the runs)")


def test_runs_lists_kind_actor_summary_and_reverts(home: Path) -> None:
    library(home)
    run(home, "memory", "add", "Prefers tabs")
    run(home, "curator", "pause")
    listed = json.loads(run(home, "runs", "--json").output)
    kinds = [r["kind"] for r in listed]
    assert kinds == ["cli", "cli"]
    memory_run = listed[0]["run"]
    assert listed[0]["actor"] == "user" and listed[0]["counts"]["memory.entry_added"] == 1
    out = run(home, "revert", memory_run)
    assert out.exit_code == 0, out.output
    text = run(home, "runs").output
    assert "[reverted by " in text and memory_run in text
    assert json.loads(run(home, "runs", "--json", "--kind", "revert").output)[0][
        "summary"].startswith(f"revert {memory_run}")


def test_revert_reports_conflicts_in_one_line_and_resolves_on_request(home: Path) -> None:
    run(home, "memory", "add", "alpha")
    first = json.loads(run(home, "runs", "--json").output)[0]["run"]
    run(home, "memory", "replace", "alpha", "ALPHA")
    refused = run(home, "revert", first)
    assert refused.exit_code == 5
    lines = refused.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"memoir: error: run {first}: later events")
    dry = run(home, "revert", first, "--dry-run", "--force")
    assert "conflict: memory:memory:" in dry.output and "nothing appended" in dry.output
    forced = run(home, "revert", first, "--force")
    assert forced.exit_code == 0, forced.output
    assert open_home(home).state.memory.memory.texts() == []
    both = CliRunner().invoke(cli, ["--home", str(home), "revert", first, "--force",
                                    "--skip-conflicts"])
    assert both.exit_code == 2


def test_pause_resume_and_tick(home: Path) -> None:
    assert "curator paused" in run(home, "curator", "pause").output
    assert "already paused" in run(home, "curator", "pause").output
    assert "no pass: paused" in run(home, "curator", "tick").output
    assert "curator resumed" in run(home, "curator", "resume").output
    first = run(home, "curator", "tick", "--now", "2026-01-01T00:00:00Z")
    assert "no pass: first check: deferred" in first.output
    due = run(home, "curator", "tick", "--now", "2026-02-01T00:00:00Z", "--idle-for", "5")
    assert "auto: no changes" in due.output
    bad = CliRunner().invoke(cli, ["--home", str(home), "curator", "run", "--now", "soon"])
    assert bad.exit_code == 2 and "'soon' is not a date" in bad.output
