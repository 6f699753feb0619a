"""`memoir log --follow`: a real `memoir` process streaming the events other processes
journal, one JSON line each, as soon as their append is complete."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import memoir
from memoir.cli import cli
from memoir.errors import JournalCorrupted
from memoir.journal import FileJournal
from memoir.memory.commands import memory_call
from tests.support.paths import REPO


def _add(home: Path, content: str, target: str = "memory") -> None:
    with memoir.open(home) as mem:
        result = mem.start_session().call_tool(
            "memory", {"action": "add", "target": target, "content": content})
        assert result["success"], result


def _interruptible() -> None:
    """Ctrl-C reaches the follower even when the tests themselves run in the
    background (a shell starts background jobs with SIGINT ignored, and children
    inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Follower:
    """``memoir --json log --follow …`` in its own process, its lines read by a thread."""

    def __init__(self, home: Path, *args: str) -> None:
        env = dict(os.environ, MEMOIR_DURABILITY="never")
        env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memoir", "--home", str(home), "--json", "log",
             "--follow", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=env, preexec_fn=_interruptible)
        self.lines: queue.Queue[str] = queue.Queue()
        self.errors: list[str] = []
        self._ready = threading.Event()
        self._closed = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_errors, daemon=True).start()
        # Wait for its readiness line, however loaded the machine: only from then on
        # is every new append sure to be shown (no fixed wait).
        if not self._ready.wait(120):
            self.proc.kill()
            raise AssertionError(f"the follower never said it was following: {self.errors}")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def _read_errors(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.errors.append(line)
            if '"log.following"' in line:
                self._ready.set()
        self._ready.set()  # it ended: the wait is over either way
        self._closed.set()

    def next(self, timeout: float = 20) -> dict[str, Any]:
        try:
            return json.loads(self.lines.get(timeout=timeout))  # type: ignore[no-any-return]
        except queue.Empty:
            raise AssertionError(f"no event within {timeout} s") from None

    def nothing_more(self, wait: float = 1.0) -> bool:
        try:
            line = self.lines.get(timeout=wait)
        except queue.Empty:
            return True
        raise AssertionError(f"unexpected line {line!r}")

    def wait(self, timeout: float = 60) -> tuple[int, str]:
        """Wait for it to end by itself; its status and everything it said on stderr."""
        code = self.proc.wait(timeout=timeout)
        self._closed.wait(timeout)  # all it said has been read
        return code, "".join(self.errors)

    def stop(self) -> tuple[int, str]:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        self._closed.wait(60)
        return self.proc.returncode, "".join(self.errors)


@pytest.fixture
def follower_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    assert CliRunner().invoke(cli, ["--home", str(home), "init"]).exit_code == 0
    _add(home, "Project uses uv")
    return home


def test_follow_shows_what_is_there_then_each_event_written_by_another_process(
        follower_home: Path) -> None:
    follower = Follower(follower_home, "--type", "memory.entry_added")
    try:
        first = follower.next()
        assert first["type"] == "memory.entry_added"
        assert first["data"]["text"] == "Project uses uv"
        follower.nothing_more(0.5)
        # Another process writes while the follower waits: each new entry arrives, in
        # order, once, and the filter keeps the session starts out.
        writer = subprocess.run(
            [sys.executable, "-c", "import memoir, sys\n"
             "with memoir.open(sys.argv[1]) as mem:\n"
             "    s = mem.start_session()\n"
             "    for i in range(5):\n"
             "        s.call_tool('memory', {'action': 'add', 'target': 'user',\n"
             "                               'content': f'fact {i}'})\n",
             str(follower_home)], env=dict(os.environ, PYTHONPATH=str(REPO)),
            capture_output=True, text=True, timeout=60, check=False)
        assert writer.returncode == 0, writer.stderr
        got = [follower.next() for _ in range(5)]
        assert [g["data"]["text"] for g in got] == [f"fact {i}" for i in range(5)]
        seqs = [first["seq"], *(g["seq"] for g in got)]
        assert seqs == sorted(set(seqs))
        follower.nothing_more()
    finally:
        code, err = follower.stop()
    assert code == 0, err  # Ctrl-C ends following quietly
    assert "Traceback" not in err


def test_follow_with_n_zero_shows_only_new_events_and_filters_by_actor(
        follower_home: Path) -> None:
    follower = Follower(follower_home, "-n", "0", "--actor", "agent")
    try:
        follower.nothing_more(1.0)  # the existing entry is not shown again
        with memoir.open(follower_home) as mem:
            memory_call(mem, {"action": "add", "target": "user", "content": "by the user"},
                by="user")
            mem.start_session().call_tool(
                "memory", {"action": "add", "target": "memory", "content": "by the agent"})
        seen = [follower.next(), follower.next()]
        assert {e["actor"] for e in seen} == {"agent"}
        assert [e["type"] for e in seen] == ["session.started", "memory.entry_added"]
        follower.nothing_more()
    finally:
        code, _err = follower.stop()
    assert code == 0


def test_follow_refuses_until_and_newest_first(follower_home: Path) -> None:
    for extra in (["--until", "3"], ["--newest-first"]):
        result = CliRunner().invoke(cli, ["--home", str(follower_home), "log", "--follow",
                                          *extra])
        assert result.exit_code == 2 and "--follow" in result.output


def test_read_since_costs_only_what_was_appended_and_notices_a_replaced_journal(
        follower_home: Path) -> None:
    path = follower_home / "journal.jsonl"
    journal = FileJournal(path, readonly=True, scan=False)
    try:
        start = journal.end()
        assert journal.read_since(start) == ([], start)
        _add(follower_home, "User prefers tabs", target="user")
        new, after = journal.read_since(start)
        assert [e.type for e in new] == ["session.started", "memory.entry_added"]
        assert after.seq == start.seq + 2 and after.offset == path.stat().st_size
        # A half-written append at the end is not shown until it is complete.
        with open(path, "ab") as f:
            f.write(b'{"seq": 99, "partial')
        assert journal.read_since(after) == ([], after)
        # A journal cut back (repaired, or replaced) is reported, not misread.
        with open(path, "r+b") as f:
            f.truncate(start.offset)
        with pytest.raises(JournalCorrupted, match="changed under this reader"):
            journal.read_since(after)
    finally:
        journal.close()


def test_follow_stops_with_a_clear_error_when_the_journal_is_replaced(
        follower_home: Path) -> None:
    follower = Follower(follower_home, "-n", "0")
    follower.nothing_more(1.0)
    (follower_home / "journal.jsonl").write_bytes(b"")
    code, err = follower.wait()
    assert code == 6
    assert "changed under this reader" in err and "Traceback" not in err
