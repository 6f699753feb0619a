"""The doors a new user walks through: doctor, did-you-mean, and the small things
status, rebuild and the notices said that were not true (issue 21, items 9 and 10)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import memoir
from memoir.cli import cli


@pytest.fixture(autouse=True)
def _fast_journal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")


def _memoir(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memoir", *args], capture_output=True,
                          text=True, timeout=120, input=stdin)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    with memoir.open(path, create=True) as mem, mem.start_session() as s:
        s.call_tool("memory", {"action": "add", "target": "memory",
                               "content": "The build uses make."})
    return path


def test_doctor_checks_everything_and_gives_the_mcp_command(home: Path) -> None:
    done = _memoir("--home", str(home), "--json", "doctor")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    by = {c["check"]: c for c in report["checks"]}
    assert set(by) >= {"install", "extras", "config", "journal", "files", "hermes", "mcp"}
    assert by["journal"]["status"] == "ok" and "records, hash chain sound" in \
        by["journal"]["detail"]
    assert "memoir-agent" in by["install"]["detail"]
    block = report["mcp_server"]
    assert Path(block["command"]).is_absolute()
    assert block["args"][-3:] == ["--home", str(home.absolute()), "mcp"]
    assert by["mcp"]["status"] == "ok"  # it starts with a bare environment, as a GUI app
    text = _memoir("--home", str(home), "doctor")
    assert '"mcpServers"' in text.stdout and text.returncode == 0


def test_doctor_reports_a_deleted_file_a_damaged_journal_and_no_home(
        home: Path, tmp_path: Path) -> None:
    (home / "memories" / "MEMORY.md").unlink()
    done = _memoir("--home", str(home), "--json", "doctor")
    assert done.returncode == 0, done.stderr  # a warning, not a failure
    files = [c for c in json.loads(done.stdout)["checks"] if c["check"] == "files"]
    assert files[0]["status"] == "warn" and "memories/MEMORY.md deleted" in files[0]["detail"]

    journal = home / "journal.jsonl"
    raw = journal.read_bytes()
    assert raw.count(b"uses make") == 1
    journal.write_bytes(raw.replace(b"uses make", b"uses mako"))  # same length, new text
    damaged = _memoir("--home", str(home), "doctor")
    assert damaged.returncode == 6, damaged.stdout + damaged.stderr
    assert "fail  journal" in damaged.stdout

    nowhere = _memoir("--home", str(tmp_path / "none"), "doctor")
    assert nowhere.returncode == 3 and "memoir init" in nowhere.stdout


def test_a_mistyped_command_gets_a_did_you_mean(home: Path) -> None:
    result = CliRunner().invoke(cli, ["--home", str(home), "stauts"])
    assert result.exit_code == 2 and "Did you mean 'status'?" in result.output


def test_status_and_rebuild_tell_of_a_deleted_file(home: Path) -> None:
    (home / "memories" / "MEMORY.md").unlink()
    status = _memoir("--home", str(home), "status")
    assert "drift    none" not in status.stdout
    assert "missing  memories/MEMORY.md was deleted" in status.stdout
    shown = json.loads(_memoir("--home", str(home), "--json", "status").stdout)
    assert shown["missing"] == ["memories/MEMORY.md"]
    rebuilt = _memoir("--home", str(home), "rebuild")
    assert "every file was up to date" not in rebuilt.stdout
    assert "wrote again memories/MEMORY.md (deleted by hand)" in rebuilt.stdout
    # The notice reads as a sentence, not as key=value pairs.
    assert "memoir: projection restored: memories/MEMORY.md — deleted by hand" in \
        rebuilt.stderr
    assert "event=" not in rebuilt.stderr
    assert (home / "memories" / "MEMORY.md").read_text(encoding="utf-8") == \
        "The build uses make."
