"""No session goes unreviewed: a session a process left without an end (it exited, it
crashed) is ended after ``sessions.idle_timeout_minutes`` and reviewed — by the next
handle opened to write, by a handle that follows the journal (``memoir mcp``, the Hermes
provider), by ``memoir watch`` and by ``memoir maintain``."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import memoir
from memoir.clock import FakeClock
from tests.support.paths import REPO

START = "2026-03-01T10:00:00+00:00"


def _config(home: Path, minutes: float) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(
        "reviewers:\n  mode: sync\n  backend: rules\n"
        f"sessions:\n  idle_timeout_minutes: {minutes}\n"
        "journal:\n  durability: never\n", encoding="utf-8")
    memoir.open(home).close()  # a home (the commands open none that is not one)


def _turn(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}, {"role": "assistant", "content": "Noted."}]


def _left_open(home: Path, clock: FakeClock | None = None, text: str = "I use neovim.") -> str:
    """A session with a turn that its process never ended."""
    with memoir.open(home, clock=clock) as mem:
        session = mem.start_session()
        session.record_turn(_turn(text))
        return session.id


def _ends(home: Path, sid: str) -> list[Any]:
    with memoir.open(home, readonly=True) as mem:
        return list(mem.events(types=["session.ended"], session=sid))


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                MEMOIR_DURABILITY="never")


def _until(what: Callable[[], bool], timeout: float = 60.0) -> None:
    """Wait for a condition another process or thread makes true (never a fixed time)."""
    deadline = time.monotonic() + timeout
    while not what():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s")
        time.sleep(0.05)


def test_the_next_handle_opened_to_write_ends_and_reviews_a_session_left_open(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    _config(home, 60)
    clock = FakeClock(START)
    sid = _left_open(home, clock)
    clock.advance(minutes=59)
    with memoir.open(home, clock=clock) as mem:
        assert mem.ended_idle == []  # not idle long enough
        assert mem.state.sessions[sid].ended_at is None
    clock.advance(minutes=2)
    with memoir.open(home, clock=clock) as mem:
        assert mem.ended_idle == [sid]
        info = mem.state.sessions[sid]
        assert info.ended_at is not None and info.end_reason == "idle"
        assert sid not in mem.state.open_sessions
        (ended,) = mem.events(types=["session.ended"], session=sid)
        assert ended.data.reason == "idle" and ended.actor == "system"  # type: ignore[attr-defined]
        assert list(mem.events(types=["session.summarized"], session=sid))
        assert mem.state.memory.target("user").texts() == ["Uses neovim."]  # the end review
        assert info.reviewed_through == 1
    with memoir.open(home, clock=clock) as mem:
        assert mem.ended_idle == []  # once


def test_an_open_ends_a_few_of_a_backlog_the_longest_idle_first(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _config(home, 60)
    clock = FakeClock(START)
    left = []
    for _ in range(10):
        left.append(_left_open(home, clock))
        clock.advance(minutes=1)
    clock.advance(hours=2)
    with memoir.open(home, clock=clock) as mem:
        assert mem.ended_idle == left[:8]  # an open stays quick however long the backlog
    with memoir.open(home, clock=clock) as mem:
        assert mem.ended_idle == left[8:]


def test_a_read_only_handle_ends_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _config(home, 60)
    clock = FakeClock(START)
    sid = _left_open(home, clock)
    before = (home / "journal.jsonl").read_bytes()
    clock.advance(hours=5)
    with memoir.open(home, clock=clock, readonly=True) as mem:
        assert mem.ended_idle == [] and mem.state.sessions[sid].ended_at is None
    assert (home / "journal.jsonl").read_bytes() == before


def test_idleness_counts_from_the_journal_not_from_the_messages_dates(tmp_path: Path) -> None:
    # A conversation recorded now with last year's dates is not idle.
    home = tmp_path / "home"
    _config(home, 60)
    with memoir.open(home) as mem:
        session = mem.start_session()
        session.record_turn([{"role": "user", "content": "I use neovim.",
                              "at": "2025-01-01T10:00:00Z"}])
        sid = session.id
    with memoir.open(home) as mem:
        assert mem.ended_idle == [] and sid in mem.state.open_sessions


def test_a_turn_after_an_idle_end_opens_the_session_again(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _config(home, 60)
    clock = FakeClock(START)
    sid = _left_open(home, clock)
    clock.advance(hours=2)
    with memoir.open(home, clock=clock) as mem:
        assert mem.ended_idle == [sid]
        session = mem.session(sid)
        session.end()  # already ended (and reviewed): nothing more is written
        assert len(list(mem.events(types=["session.ended"], session=sid))) == 1
        # The process comes back: its next turn opens the session again.
        mem.session(sid).record_turn(_turn("My name is Ada."))
        info = mem.state.sessions[sid]
        assert info.ended_at is None and info.turns == 2 and sid in mem.state.open_sessions
        mem.session(sid).end()
        ends = [e.data.reason for e in mem.events(types=["session.ended"], session=sid)]
        assert ends == ["idle", "closed"]  # type: ignore[attr-defined]
        reviews = [(e.data.trigger, e.data.through_turn)  # type: ignore[attr-defined]
                   for e in mem.events(types=["review.completed"], session=sid)]
        assert reviews == [("end", 1), ("end", 2)]  # each end reviews what came before
        assert mem.state.memory.target("user").texts() == ["Uses neovim.", "Name: Ada."]
        # A session ended on purpose stays ended.
        with pytest.raises(memoir.ValidationError, match="has ended"):
            mem.session(sid).record_turn(_turn("One more thing."))


_SWEEP = textwrap.dedent("""
    import sys, memoir
    from memoir.clock import FakeClock
    print("ready", flush=True)
    sys.stdin.readline()  # go
    with memoir.open(sys.argv[1], clock=FakeClock(sys.argv[2])) as mem:
        print(",".join(mem.ended_idle), flush=True)
""")


def test_two_processes_sweeping_at_once_end_a_session_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _config(home, 60)
    clock = FakeClock(START)
    sid = _left_open(home, clock)
    later = clock.advance(hours=3).isoformat()
    procs = [subprocess.Popen([sys.executable, "-c", _SWEEP, str(home), later],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env=_env()) for _ in range(2)]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    said = [proc.communicate(timeout=120)[0].strip() for proc in procs]
    assert all(proc.returncode == 0 for proc in procs)
    assert sorted(said) == ["", sid]  # one of them ended it
    assert len(_ends(home, sid)) == 1
    with memoir.open(home, readonly=True) as mem:
        assert len(list(mem.events(types=["session.summarized"], session=sid))) == 1


def test_a_following_handle_ends_sessions_left_idle_while_it_runs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _config(home, 60)
    clock = FakeClock(START)
    with memoir.open(home, clock=clock) as mem:
        mem.learning.keep_ending_idle(every=0.05)
        mem.follow()
        sid = _left_open(home, clock)  # another handle, closed without an end
        _until(lambda: sid in mem.state.open_sessions)
        clock.advance(minutes=61)
        _until(lambda: mem.state.sessions[sid].ended_at is not None)
        mem.flush()
        assert mem.state.memory.target("user").texts() == ["Uses neovim."]
    assert [e.data.reason for e in _ends(home, sid)] == ["idle"]  # type: ignore[attr-defined]


_CRASH = textwrap.dedent("""
    import os, sys, memoir
    mem = memoir.open(sys.argv[1])
    session = mem.start_session()
    session.record_turn([{"role": "user", "content": sys.argv[2]},
                         {"role": "assistant", "content": "Noted."}])
    print(session.id, flush=True)
    os._exit(0)  # gone without ending the session or closing the home
""")


def _crash(home: Path, text: str = "I use neovim.") -> str:
    done = subprocess.run([sys.executable, "-c", _CRASH, str(home), text], env=_env(),
                          capture_output=True, text=True, timeout=120, check=True)
    return done.stdout.strip()


def _ended_idle(home: Path, sid: str) -> bool:
    return [e.data.reason for e in _ends(home, sid)] == ["idle"]  # type: ignore[attr-defined]


def test_memoir_mcp_ends_a_session_a_crashed_process_left(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _config(home, 0.005)  # 0.3 s
    server = subprocess.Popen([sys.executable, "-m", "memoir", "--home", str(home), "mcp"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=_env())
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(json.dumps({
            "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"}}}).encode() + b"\n")
        server.stdin.flush()
        assert json.loads(server.stdout.readline())["id"] == 1  # serving
        sid = _crash(home)
        _until(lambda: _ended_idle(home, sid))
        with memoir.open(home, readonly=True) as mem:
            _until(lambda: mem.state.memory.target("user").texts() == ["Uses neovim."])
            assert list(mem.events(types=["session.summarized"], session=sid))
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(timeout=60)
    assert server.returncode == 0, server.stderr.read()  # type: ignore[union-attr]


def test_the_hermes_provider_ends_a_session_a_crashed_process_left(tmp_path: Path) -> None:
    from memoir.integrations.hermes_provider import MemoirHermes

    home = tmp_path / "home"
    _config(home, 0.005)
    provider = MemoirHermes(home)
    provider.initialize("hermes-1", platform="cli")
    try:
        sid = _crash(home)
        _until(lambda: _ended_idle(home, sid))
    finally:
        provider.shutdown()


def test_memoir_watch_ends_a_session_a_crashed_process_left(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _config(home, 0.005)
    watcher = subprocess.Popen(
        [sys.executable, "-m", "memoir", "--home", str(home), "--json", "watch",
         "--tick", "0.2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=_env())
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in watcher.stdout],  # type: ignore[union-attr]
                     daemon=True).start()
    try:
        assert json.loads(lines.get(timeout=60))["action"] == "watching"
        sid = _crash(home)
        said = json.loads(lines.get(timeout=60))
        while said["action"] != "ended":  # (a rewritten file, say)
            said = json.loads(lines.get(timeout=60))
        assert said == {"action": "ended", "session": sid}
        assert _ended_idle(home, sid)
    finally:
        watcher.terminate()
        watcher.wait(timeout=60)
    assert watcher.returncode == 0, watcher.stderr.read()  # type: ignore[union-attr]
