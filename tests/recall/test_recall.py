"""Episodic recall: session summaries, the FTS5 index as a projection, ranking, the
session_search tool and the sessions commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import memoir
from memoir.cli import cli
from memoir.clock import FakeClock
from memoir.errors import ValidationError
from memoir.recall.index import SearchIndex, clean_query, delete_index, recency_weight


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")


def _quiet(home: Path) -> None:
    """No reviews, and BM25 recall (these tests pin its ranking; the hybrid recall of
    the semantic extra is tests/recall/test_semantic.py's)."""
    (home / "config.yaml").write_text("reviewers:\n  mode: off\nepisodic:\n  semantic: off\n",
                                      encoding="utf-8")


def turn(user: str, reply: str = "Done.", at: str | None = None) -> list[dict[str, Any]]:
    first: dict[str, Any] = {"role": "user", "content": user}
    if at:
        first["timestamp"] = at
    return [first, {"role": "assistant", "content": reply}]


def conversation(mem: memoir.Memoir, *turns: list[dict[str, Any]],
                 started_at: str | None = None) -> str:
    session = mem.start_session(started_at=started_at)
    for t in turns:
        session.record_turn(t)
    session.end()
    return session.id


def index(mem: memoir.Memoir) -> SearchIndex:
    return SearchIndex(mem, mem.learning.transcripts)


def test_a_session_that_ends_is_summarized(home: Path) -> None:
    _quiet(home)
    with memoir.open(home) as mem:
        sid = conversation(
            mem,
            turn("The nightly ETL job in etl/load.py keeps timing out."),
            [{"role": "user", "content": "Try running it by hand."},
             {"role": "assistant", "content": None, "tool_calls": [
                 {"id": "c1", "type": "function",
                  "function": {"name": "terminal", "arguments": '{"cmd": "make etl"}'}}]},
             {"role": "tool", "tool_call_id": "c1",
              "content": json.dumps({"success": False, "error": "psql: connection refused"})},
             {"role": "assistant", "content": "The fix is to start the database first with "
                                              "`docker compose up -d db`."}])
        (event,) = mem.events(types=["session.summarized"], session=sid)
        summary = event.data.summary  # type: ignore[attr-defined]
        assert summary.startswith("Asked: The nightly ETL job in etl/load.py keeps timing out.")
        assert "Files: etl/load.py" in summary
        assert "Commands: `docker compose up -d db`" in summary
        assert "Errors: terminal failed (psql: connection refused); then: The fix is" in summary
        assert "etl" in event.data.tags  # type: ignore[attr-defined]


def test_the_index_is_a_projection_rebuilt_equal(home: Path) -> None:
    _quiet(home)
    with memoir.open(home) as mem:
        conversation(mem, turn("Our staging database is a read-only replica."),
                     turn("Deploys go through ArgoCD."))
        conversation(mem, turn("The replica lag alarm fired again."))
        conversation(mem, turn("Unrelated chat about lunch."))
        idx = index(mem)
        first = [h.as_json() for h in idx.search("replica")]
        rows = idx.rows()
        assert "[replica]" in first[0]["snippet"] and len(first) == 2
        delete_index(home)
        again = index(mem)
        assert again.indexed() == 0
        assert [h.as_json() for h in again.search("replica")] == first
        assert again.rows() == rows
        assert again.indexed() == mem.head


@pytest.mark.parametrize("batch", [1, 2, 10_000])
def test_a_rebuild_in_batches_gives_the_rows_a_sync_per_turn_gives(
        home: Path, monkeypatch: pytest.MonkeyPatch, batch: int) -> None:
    """A rebuild writes a session's turn columns and neighbour text once per batch of
    sessions (memoir.recall.indexing); interleaved sessions, summaries between turns and
    a batch that ends mid-session give the rows a sync after every turn gave."""
    _quiet(home)
    with memoir.open(home) as mem:
        live = index(mem)
        sessions = [mem.start_session(started_at=f"2026-0{n + 1}-01T09:00:00Z")
                    for n in range(3)]
        for t in range(4):
            for n, session in enumerate(sessions):
                user = f"Session {n} turn {t}: the {['cache', 'queue', 'proxy'][n]} again."
                session.record_turn(turn(user if t or n else "", f"Reply {n}.{t}",
                                         at=f"2026-0{n + 1}-0{t + 2}T10:00:00Z"))
                live.sync()
            if t == 1:
                sessions[0].end()
                sessions[0] = mem.start_session()
        for session in sessions:
            session.end()
        live.sync()
        rows = live.rows()
        monkeypatch.setattr("memoir.recall.indexing._BATCH", batch)
        delete_index(home)
        again = index(mem)
        again.sync()
        assert again.rows() == rows


def test_the_index_follows_what_other_processes_record(home: Path) -> None:
    _quiet(home)
    with memoir.open(home) as mem:
        idx = index(mem)
        assert idx.search("kubernetes") == []
        with memoir.open(home) as other:
            sid = conversation(other, turn("We moved everything to Kubernetes."))
        (hit,) = idx.search("kubernetes")
        assert hit.session == sid


def test_recency_weights_rank_recent_sessions_first(home: Path) -> None:
    _quiet(home)
    with memoir.open(home) as mem:
        now = mem.clock.now()
        old = conversation(mem, turn("The flaky payment test again.", at="2020-01-01T00:00:00Z"),
                           started_at="2020-01-01T00:00:00+00:00")
        new = conversation(mem, turn("The flaky payment test again."))
        hits = index(mem).search("flaky payment")
        assert [h.session for h in hits] == [new, old]
        assert hits[0].weight == 2.0 and hits[1].weight == 0.7
        assert hits[0].score == pytest.approx(hits[0].bm25 * 2.0)
    assert recency_weight("2020-01-01T00:00:00Z", now, ((10_000, 3.0),)) == 3.0
    (home / "config.yaml").write_text("reviewers:\n  mode: off\nepisodic:\n  semantic: off\n"
                                      "  recency_weights: [[100000, 1.0]]\n", encoding="utf-8")
    with memoir.open(home) as mem:
        hits = index(mem).search("flaky payment")
        assert {h.weight for h in hits} == {1.0}


@pytest.mark.parametrize("query", ['"unbalanced', "a AND", "NOT", "col:val", "(x) OR ^y",
                                   "*star", "chat-send P2.2", "x" * 10_240, "-", "a' OR '1'='1"])
def test_any_query_gets_results_or_a_clear_error(home: Path, query: str) -> None:
    _quiet(home)
    with memoir.open(home) as mem:
        conversation(mem, turn("We use chat-send for P2.2 notifications."))
        try:
            hits = index(mem).search(query)
        except ValidationError as exc:
            assert "query" in str(exc)
        else:
            assert isinstance(hits, list)
    assert clean_query("chat-send P2.2") == '"chat-send" "P2.2"'
    assert clean_query('find "exact words" here AND') == '"exact words" find here'


def test_session_search_tool_modes(home: Path) -> None:
    _quiet(home)
    with memoir.open(home) as mem:
        past = conversation(mem, turn("We picked Litestream for SQLite backups."))
        long = mem.start_session()
        for i in range(20):
            long.record_turn(turn(f"step {i} of the migration"))
        long.end()
        me = mem.start_session()
        me.record_turn(turn("What did we pick for SQLite backups? Litestream?"))
        found = me.call_tool("session_search", {"query": "litestream backups"})
        assert found["success"] and found["mode"] == "discover"
        assert [r["session_id"] for r in found["results"]] == [past]  # not its own session
        assert "Litestream" in found["results"][0]["summary"]
        browse = me.call_tool("session_search", {"limit": 2})
        assert browse["mode"] == "browse" and len(browse["sessions"]) == 2
        assert me.id not in [s["session"] for s in browse["sessions"]]
        read = me.call_tool("session_search", {"session_id": long.id})
        assert read["mode"] == "read" and read["truncated"] is True
        assert len(read["messages"]) == 30 and read["message_count"] == 40
        assert me.call_tool("session_search", {"limit": "x"})["success"] is False
        assert me.call_tool("session_search", {"query": "AND"})["success"] is False
        assert "no session" in me.call_tool("session_search", {"session_id": "s-0"})["error"]


def _cli(home: Path, *args: str) -> Any:
    return CliRunner().invoke(cli, ["--home", str(home), *args])


def test_sessions_commands(home: Path) -> None:
    _quiet(home)
    with memoir.open(home) as mem:
        sid = conversation(mem, turn("Our API gateway is Kong.", "Noted: Kong."))
    hits = json.loads(_cli(home, "--json", "sessions", "search", "kong", "--limit", "3").stdout)
    assert [h["session"] for h in hits] == [sid]
    assert {"session", "score", "snippet"} <= set(hits[0])
    listed = json.loads(_cli(home, "--json", "sessions", "list").stdout)
    assert listed[0]["session"] == sid and listed[0]["turns"] == 1
    shown = _cli(home, "sessions", "show", sid[:8]).output
    assert "[1] user: Our API gateway is Kong." in shown and "Asked:" in shown
    exported = json.loads(_cli(home, "sessions", "export").stdout)
    assert exported[0]["session_id"] == sid
    assert [m["role"] for m in exported[0]["messages"]] == ["user", "assistant"]
    assert exported[0]["summary"].startswith("Asked: Our API gateway is Kong.")
    empty = _cli(home, "--json", "sessions", "search", "(")
    assert empty.exit_code == 4 and "query is empty" in empty.stderr


def test_maintain_ends_idle_sessions_with_their_summary(home: Path) -> None:
    (home / "config.yaml").write_text("reviewers:\n  mode: sync\nsessions:\n"
                                      "  idle_timeout_minutes: 60\n", encoding="utf-8")
    # Idleness counts from when the journal recorded the turn (the clock's time).
    with memoir.open(home, clock=FakeClock("2026-03-01T10:00:00Z")) as mem:
        session = mem.start_session()
        session.record_turn(turn("I use neovim.", at="2026-03-01T10:00:00Z"))
        sid = session.id
    early = _cli(home, "--json", "maintain", "--now", "2026-03-01T10:30:00Z")
    assert json.loads(early.stdout)["ended_sessions"] == []
    late = _cli(home, "--json", "maintain", "--now", "2026-03-01T12:00:00Z")
    assert json.loads(late.stdout)["ended_sessions"] == [sid]
    with memoir.open(home) as mem:
        info = mem.state.sessions[sid]
        assert info.ended_at is not None
        assert list(mem.events(types=["session.summarized"], session=sid))
        assert mem.state.memory.target("user").texts() == ["Uses neovim."]  # end review
        ended = list(mem.events(types=["session.ended"], session=sid))
        assert ended[0].data.reason == "idle"  # type: ignore[attr-defined]
