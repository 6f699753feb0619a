"""Seed 003's pipeline: error signatures counted from recorded turns, promoted to
insights, hints, memory_search, candidates accepted or rejected, expiry with a fake
clock; the insight tables rebuilt from the journal equal the live ones."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import memoir
from memoir.cli import cli
from memoir.clock import FakeClock
from memoir.insights.signatures import signature
from memoir.projections.state import State


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")


def failing(error: str, fix: str | None = None, host: str = "10.0.0.1") -> list[dict[str, Any]]:
    """A turn where the terminal fails (then, with ``fix``, succeeds)."""
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Run the migrations."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function",
             "function": {"name": "terminal", "arguments": '{"cmd": "make migrate"}'}}]},
        {"role": "tool", "tool_call_id": "a",
         "content": json.dumps({"success": False, "error": error.replace("HOST", host)})}]
    if fix:
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "b", "type": "function",
                 "function": {"name": "terminal", "arguments": json.dumps({"cmd": fix})}}]},
            {"role": "tool", "tool_call_id": "b", "content": json.dumps({"success": True})}]
    messages.append({"role": "assistant", "content": "Done."})
    return messages


ERROR = "psql: could not connect to server at HOST:5432 (after 30s)"


def _home(home: Path) -> None:
    (home / "config.yaml").write_text("reviewers:\n  mode: off\n", encoding="utf-8")


def test_signatures_template_what_varies() -> None:
    a = signature("terminal", "psql: could not connect to server at 10.0.3.7:5432 (after 30s)")
    b = signature("terminal", "psql: could not connect to server at 10.9.1.2:6543 (after 5s)")
    assert a == b == "terminal: psql: could not connect to server at <ip>:<n> (after <n>s)"
    assert signature("read_file", "No such file: '/home/a/x.csv'") == \
        "read_file: No such file: <q>"
    assert signature("git", "commit 3f2a9c1d0e4b5f6a not found at 2026-11-01T10:00:00Z") == \
        "git: commit <hex> not found at <ts>"


def test_errors_become_insights_hints_candidates_and_a_skill(home: Path) -> None:
    _home(home)
    with memoir.open(home) as mem:
        session = mem.start_session()
        session.record_turn(failing(ERROR, host="10.0.0.1"))
        session.record_turn(failing(ERROR, host="10.0.0.2"))
        sig = signature("terminal", ERROR.replace("HOST", "10.0.0.3"))
        assert mem.state.insights.signatures[sig].state == "seen"
        assert session.tool_error_hint("terminal", ERROR.replace("HOST", "1.2.3.4")) is None
        session.record_turn(failing(ERROR, fix="docker compose up -d db", host="10.0.0.3"))
        item = mem.state.insights.signatures[sig]
        assert (item.state, item.count) == ("insight", 3)
        assert item.resolution == 'terminal succeeded with {"cmd": "docker compose up -d db"}'
        hint = session.tool_error_hint("terminal", ERROR.replace("HOST", "1.2.3.4"))
        assert hint and "3 times" in hint and "docker compose up -d db" in hint
        found = session.call_tool("memory_search", {"query": "psql could not connect"})
        assert found["success"] and found["results"][0]["signature"] == sig
        for host in ("5.5.5.5", "6.6.6.6", "7.7.7.7", "8.8.8.8"):  # hints shown
            session.record_turn(failing(ERROR, host=host))
        item = mem.state.insights.signatures[sig]
        assert (item.state, item.references) == ("candidate", 5)  # 1 search + 4 hints
        kinds = [e.type for e in mem.events(types=["insight.*"])]
        assert kinds[0] == "insight.promoted" and kinds[-1] == "insight.candidate"
    rows = json.loads(CliRunner().invoke(cli, ["--home", str(home), "--json", "insights",
                                               "list"]).stdout)
    assert rows[0]["signature"] == sig and rows[0]["state"] == "candidate"
    assert {"count", "state", "first_seen", "last_seen", "resolution"} <= set(rows[0])
    accepted = CliRunner().invoke(cli, ["--home", str(home), "--json", "candidates",
                                        "accept", "terminal: psql", "--name", "psql-down"])
    assert accepted.exit_code == 0, accepted.output
    out = json.loads(accepted.stdout)
    with memoir.open(home) as mem:
        skill = mem.state.skills.skills["psql-down"]
        assert "docker compose up -d db" in skill.content and skill.category == "errors"
        assert mem.state.insights.signatures[sig].state == "accepted"
        assert {e.type for e in mem.events(run=out["run"])} >= {"run.started", "skill.created",
                                                                "insight.accepted"}
        # The insight tables rebuilt from the journal equal the live ones.
        assert State().apply_all(mem.journal.read()).insights == mem.state.insights


def test_maintain_expires_and_demotes_with_a_fake_clock(home: Path) -> None:
    _home(home)
    clock = FakeClock("2026-01-01T00:00:00+00:00")
    with memoir.open(home, clock=clock) as mem:
        session = mem.start_session()
        session.record_turn(failing("disk full on HOST", host="a"))
        for host in ("1.1.1.1", "2.2.2.2", "3.3.3.3"):
            session.record_turn(failing(ERROR, host=host))
    result = CliRunner().invoke(cli, ["--home", str(home), "--json", "maintain", "--now",
                                      "2026-01-10T00:00:00Z"])
    assert json.loads(result.stdout)["run"] is None  # nothing due yet
    result = CliRunner().invoke(cli, ["--home", str(home), "--json", "maintain", "--now",
                                      "2026-02-15T00:00:00Z"])
    done = json.loads(result.stdout)
    assert [e["type"] for e in done["events"]] == ["run.started", "insight.expired",
                                                   "insight.demoted"]
    with memoir.open(home) as mem:
        states = {i.signature.split(":")[1].strip()[:4]: i.state
                  for i in mem.state.insights.signatures.values()}
        assert states == {"disk": "expired", "psql": "seen"}
        # Reproducible: the same journal and dates give the same events.
        assert dt.datetime.fromisoformat(done["events"][1]["ts"]).year == \
            dt.datetime.now(dt.UTC).year


def test_a_candidate_can_be_rejected(home: Path) -> None:
    (home / "config.yaml").write_text("reviewers:\n  mode: off\ninsights:\n  promote_after: 1\n"
                                      "  candidate_after: 1\n", encoding="utf-8")
    with memoir.open(home) as mem:
        session = mem.start_session()
        session.record_turn(failing(ERROR))
        session.record_turn(failing(ERROR))
        assert next(iter(mem.state.insights.signatures.values())).state == "candidate"
    listed = CliRunner().invoke(cli, ["--home", str(home), "candidates"]).output
    assert "terminal: psql" in listed
    result = CliRunner().invoke(cli, ["--home", str(home), "candidates", "reject", "terminal",
                                      "--reason", "environment-specific"])
    assert result.exit_code == 0, result.output
    with memoir.open(home) as mem:
        assert next(iter(mem.state.insights.signatures.values())).state == "rejected"


def test_imported_errors_are_dated_by_the_conversation_not_by_the_import(
        home: Path, tmp_path: Path) -> None:
    _home(home)
    long_ago = (dt.datetime.now(dt.UTC) - dt.timedelta(days=20)).strftime("%Y-%m-%d")
    chat = tmp_path / "old.json"
    chat.write_text(json.dumps(failing("disk full on HOST")), encoding="utf-8")
    result = CliRunner().invoke(cli, ["--home", str(home), "sessions", "import", "--at",
                                      long_ago, str(chat)])
    assert result.exit_code == 0, result.output
    stamped = tmp_path / "stamped.json"
    turn = failing(ERROR)
    for message in turn:
        message["timestamp"] = "2025-03-04T05:06:07Z"
    stamped.write_text(json.dumps(turn), encoding="utf-8")
    assert CliRunner().invoke(cli, ["--home", str(home), "sessions", "import",
                                    str(stamped)]).exit_code == 0
    with memoir.open(home) as mem:
        seen = {i.signature.split(":")[1].strip()[:4]: i
                for i in mem.state.insights.signatures.values()}
        assert seen["disk"].first_seen.startswith(long_ago)
        assert seen["disk"].last_seen.startswith(long_ago)
        assert seen["psql"].first_seen.startswith("2025-03-04T05:06:07")
        # Rebuilt from the journal: the same dates.
        assert State().apply_all(mem.journal.read()).insights == mem.state.insights
    # Seed 003's 14-day expiry applies to it today, not in 14 days.
    done = json.loads(CliRunner().invoke(cli, ["--home", str(home), "--json",
                                               "maintain"]).stdout)
    assert "insight.expired" in [e["type"] for e in done["events"]]
