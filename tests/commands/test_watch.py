"""`memoir watch`: a real long-running process adopting hand edits as they are saved and
writing deleted files again, one JSON line per thing it does."""

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
from memoir.skills.tools import skill_manage_call
from tests.support.paths import REPO


def test_watch_without_watchfiles_says_which_extra_to_install(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "watchfiles", None)  # import fails, as when absent
    result = CliRunner().invoke(cli, ["--home", str(home), "watch"])
    assert result.exit_code != 0
    assert "memoir watch needs memoir's 'watch' extra" in result.output
    assert "-m pip install 'watchfiles>=" in result.output


class Watcher:
    def __init__(self, home: Path) -> None:
        env = dict(os.environ, MEMOIR_DURABILITY="never")
        env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memoir", "--home", str(home), "--json", "watch",
             "--tick", "0.5", "--debounce-ms", "100"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)  # the process closed its output: it is gone

    def next(self, timeout: float = 20) -> dict[str, Any]:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"nothing from memoir watch within {timeout} s") from None
        if line is None:
            _out, err = self.proc.communicate(timeout=20)
            raise AssertionError(f"memoir watch exited ({self.proc.returncode}): {err}")
        return json.loads(line)  # type: ignore[no-any-return]

    def stop(self) -> tuple[int, str]:
        self.proc.send_signal(signal.SIGTERM)
        try:
            _out, err = self.proc.communicate(timeout=20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        return self.proc.returncode, err


@pytest.fixture
def watched(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    assert CliRunner().invoke(cli, ["--home", str(home), "init"]).exit_code == 0
    with memoir.open(home) as mem:
        assert mem.start_session().call_tool(
            "memory", {"action": "add", "target": "memory", "content": "Project uses uv"}
        )["success"]
    return home


def _texts(home: Path) -> list[str]:
    with memoir.open(home, readonly=True) as mem:
        return mem.state.memory.target("memory").texts()


def test_watch_adopts_a_saved_hand_edit_and_writes_a_deleted_file_again(
        watched: Path) -> None:
    watcher = Watcher(watched)
    try:
        assert watcher.next()["action"] == "watching"
        memory_md = watched / "memories" / "MEMORY.md"
        memory_md.write_text("Project uses uv\n§\nDeploys go through staging first",
                             encoding="utf-8")
        adopted = watcher.next()
        assert adopted["action"] == "adopted" and adopted["changes"] == 1
        assert adopted["run"].startswith("adopt-")
        assert _texts(watched) == ["Project uses uv", "Deploys go through staging first"]
        # The adopted run is a normal run: `memoir log --run` shows it.
        with memoir.open(watched, readonly=True) as mem:
            assert [e.type for e in mem.events(run=adopted["run"])][-1] == \
                "memory.entry_added"
        memory_md.unlink()
        rewrote = watcher.next()
        assert rewrote == {"action": "rewrote", "files": ["memories/MEMORY.md"]}
        assert "Deploys go through staging first" in memory_md.read_text(encoding="utf-8")
        # An agent writing in another process is not taken for a hand edit.
        with memoir.open(watched) as mem:
            mem.start_session().call_tool(
                "memory", {"action": "add", "target": "memory", "content": "CI runs ruff"})
        with pytest.raises(queue.Empty):
            watcher.lines.get(timeout=1.5)
        assert _texts(watched)[-1] == "CI runs ruff"
    finally:
        code, err = watcher.stop()
    assert code == 0, err
    assert "Traceback" not in err


def test_quick_saves_in_a_row_are_adopted_once_the_file_settles(watched: Path) -> None:
    watcher = Watcher(watched)
    try:
        assert watcher.next()["action"] == "watching"
        memory_md = watched / "memories" / "MEMORY.md"
        # An editor saving several times (truncate, write, write again) is read when it
        # is done: one adoption of the last version, no intermediate state journaled.
        for text in ("", "Project uses uv\n§\nUse spaces", "Project uses uv\n§\nUse tabs"):
            memory_md.write_text(text, encoding="utf-8")
        got = watcher.next()
        assert got["action"] == "adopted" and got["changes"] == 1
        assert _texts(watched) == ["Project uses uv", "Use tabs"]
        with pytest.raises(queue.Empty):
            watcher.lines.get(timeout=1.0)
    finally:
        code, err = watcher.stop()
    assert code == 0, err


def test_watch_adopts_an_edited_skill(watched: Path) -> None:
    with memoir.open(watched) as mem:
        assert skill_manage_call(mem, {
            "action": "create", "name": "deploy", "content":
            "---\nname: deploy\ndescription: How to deploy.\n---\nRun make deploy.\n"},
                by="user")["success"]
        mem.flush()
        skill_md = next((watched / "skills").rglob("SKILL.md"))
    watcher = Watcher(watched)
    try:
        assert watcher.next()["action"] == "watching"
        skill_md.write_text("---\nname: deploy\ndescription: How to deploy.\n---\n"
                            "Run make deploy, then check the dashboard.\n", encoding="utf-8")
        got = watcher.next()
        assert got["action"] == "adopted"
        with memoir.open(watched, readonly=True) as mem:
            types = [e.type for e in mem.events(run=got["run"])]
            assert any(t.startswith("skill.") for t in types), types
    finally:
        code, err = watcher.stop()
    assert code == 0, err


def test_watch_runs_the_curator_when_it_is_due(watched: Path) -> None:
    # A pass every ~1 s and no idleness needed: the first tick defers the first run (as
    # Hermes does), a later tick runs it.
    (watched / "config.yaml").write_text(
        "curator:\n  interval_hours: 0.0003\n  min_idle_hours: 0\n", encoding="utf-8")
    watcher = Watcher(watched)
    try:
        assert watcher.next()["action"] == "watching"
        got = watcher.next(timeout=30)
        assert got["action"] == "curator" and got["run"]
        with memoir.open(watched, readonly=True) as mem:
            assert mem.state.curator.last_run_at is not None
            assert got["run"] in mem.state.runs
    finally:
        code, err = watcher.stop()
    assert code == 0, err


def test_watch_adopts_hermes_usage_records_as_they_are_saved(watched: Path) -> None:
    with memoir.open(watched) as mem:
        skill_manage_call(mem, {"action": "create", "name": "deploy", "content":
                                "---\nname: deploy\ndescription: d.\n---\nbody\n"}, by="agent")
        mem.flush()
    watcher = Watcher(watched)
    try:
        assert watcher.next()["action"] == "watching"
        usage = watched / "skills" / ".usage.json"
        data = json.loads(usage.read_text(encoding="utf-8"))
        data["deploy"]["view_count"] = 4  # what Hermes's bump_view leaves
        usage.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
        line = watcher.next()
        while line["action"] != "adopted":
            line = watcher.next()
        assert line["changes"] >= 1
    finally:
        code, err = watcher.stop()
    assert code == 0, err
    with memoir.open(watched, readonly=True) as mem:
        assert mem.state.skills.skills["deploy"].view_count == 4
