"""The doors a new user walks through: doctor, did-you-mean, and the small things
status, rebuild and the notices said that were not true (issue 21, items 9 and 10)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import memoir
from memoir import semantic
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
    extras = [c["detail"] for c in report["checks"] if c["check"] == "extras"]
    if semantic.available():
        assert "semantic" in extras[0]
    else:
        assert any("recall by meaning" in line for line in extras)
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


def test_git_habits(home: Path) -> None:
    def cli_run(*args: str, stdin: str | None = None) -> Any:
        return CliRunner().invoke(cli, ["--home", str(home), *args], input=stdin)

    # memory add - reads standard input; an empty text is a usage error (2).
    added = cli_run("memory", "add", "-", stdin="Deploys go through CI.\n")
    assert added.exit_code == 0, added.output
    assert cli_run("memory", "add", "   ").exit_code == 2
    assert cli_run("memory", "add", "-", stdin="").exit_code == 2
    # show HEAD: the newest run, with its events and its diff.
    shown = cli_run("show", "HEAD")
    assert shown.exit_code == 0, shown.output
    assert "Actor:   user" in shown.output and "memory.entry_added" in shown.output
    assert "+Deploys go through CI." in shown.output
    assert cli_run("memory", "add", "--target", "user", "Name: Ada.").exit_code == 0
    as_json = json.loads(cli_run("--json", "show", "HEAD~1").output)
    assert as_json["run"]["summary"] == "memory add (memory)"
    assert [f["path"] for f in as_json["files"]] == ["memories/MEMORY.md"]
    assert json.loads(cli_run("--json", "show", "1").output)["seq"] == 1
    assert cli_run("show", "HEAD~99").exit_code == 3
    # runs: filters and a limit (newest kept), newest first when asked.
    rows = json.loads(cli_run("--json", "runs", "--actor", "user").output)
    assert [r["summary"] for r in rows] == ["memory add (memory)", "memory add (user)"]
    newest = json.loads(cli_run("--json", "runs", "-n", "1", "--newest-first").output)
    assert newest[0]["run"] == rows[1]["run"]
    assert json.loads(cli_run("--json", "runs", "--actor", "agent").output) == []
    assert json.loads(cli_run("--json", "runs", "--since", "2999-01-01").output) == []
    # diff with no argument: the hand edit, from the journal's version to the disk's.
    memory_md = home / "memories" / "MEMORY.md"
    memory_md.write_text(memory_md.read_text(encoding="utf-8") + "\n§\nEdited by hand.",
                         encoding="utf-8")
    drift = cli_run("diff")
    assert drift.exit_code == 0 and "+Edited by hand." in drift.output
    assert "--- a/memories/MEMORY.md" in drift.output
    memory_md.write_text("The build uses make.\n§\nDeploys go through CI.", encoding="utf-8")
    assert "no hand edits" in cli_run("diff").output
    # revert --last is revert HEAD.
    undone = cli_run("--json", "revert", "--last")
    assert undone.exit_code == 0, undone.output
    assert json.loads(undone.output)["target"] == rows[1]["run"]
    with memoir.open(home) as mem:
        assert mem.state.memory.target("user").texts() == []
    assert cli_run("revert").exit_code == 2  # a RUN or --last


def _turn_with_a_tool() -> list[dict[str, Any]]:
    return [{"role": "user", "content": "Run the tests."},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function",
                 "function": {"name": "terminal", "arguments": '{"cmd": "pytest"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "bash: pytest: command not found"},
            {"role": "assistant", "content": "pytest is not installed."}]


def test_sessions_show_prints_tool_calls_and_results(home: Path, tmp_path: Path) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(_turn_with_a_tool()), encoding="utf-8")
    imported = _memoir("--home", str(home), "--json", "sessions", "import", str(chat))
    sid = json.loads(imported.stdout.splitlines()[0])["session"]
    shown = _memoir("--home", str(home), "sessions", "show", sid)
    assert shown.returncode == 0, shown.stderr
    assert "assistant: null" not in shown.stdout
    assert '[1] assistant calls terminal({"cmd": "pytest"}) [c1]' in shown.stdout
    assert "[1] tool (c1): bash: pytest: command not found" in shown.stdout


def test_a_read_only_home_can_still_be_searched(home: Path, tmp_path: Path) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"role": "user", "content": "We deploy with Nomad."},
                                {"role": "assistant", "content": "Noted."}]),
                    encoding="utf-8")
    assert _memoir("--home", str(home), "sessions", "import", str(chat)).returncode == 0
    locked = subprocess.run(["chattr", "-R", "+i", str(home)], capture_output=True)
    if locked.returncode != 0:
        pytest.skip(f"chattr cannot make files immutable here: {locked.stderr!r}")
    try:
        listed = _memoir("--home", str(home), "sessions", "list")
        found = _memoir("--home", str(home), "--json", "sessions", "search", "nomad")
    finally:
        subprocess.run(["chattr", "-R", "-i", str(home)], check=True)
    assert listed.returncode == 0, listed.stderr
    assert "Errno" not in listed.stderr and "cannot be written here" in listed.stderr
    assert "We deploy with Nomad." in listed.stdout
    assert found.returncode == 0 and len(json.loads(found.stdout)) == 1


def test_skills_create_refuses_a_bad_or_misnamed_skill_md(home: Path, tmp_path: Path) -> None:
    misnamed = tmp_path / "a.md"
    misnamed.write_text("---\nname: other-name\ndescription: d\n---\nbody\n", encoding="utf-8")
    done = _memoir("--home", str(home), "skills", "create", "my-skill", "--file", str(misnamed))
    assert done.returncode == 4
    assert "its frontmatter names the skill 'other-name', not 'my-skill'" in done.stderr
    bad = tmp_path / "b.md"
    bad.write_text("no frontmatter\n", encoding="utf-8")
    done = _memoir("--home", str(home), "skills", "create", "my-skill", "--file", str(bad))
    assert done.returncode == 4 and "frontmatter" in done.stderr


def test_a_curator_plan_naming_untouchable_skills_is_refused_item_by_item(
        home: Path, tmp_path: Path) -> None:
    skill = tmp_path / "s.md"
    skill.write_text("---\nname: mine\ndescription: d\n---\nbody\n", encoding="utf-8")
    assert _memoir("--home", str(home), "skills", "create", "mine", "--file",
                   str(skill)).returncode == 0
    plan = tmp_path / "plan.yaml"
    plan.write_text("prunings:\n  - name: mine\n    reason: old\n", encoding="utf-8")
    done = _memoir("--home", str(home), "curator", "run", "--plan", str(plan))
    assert done.returncode == 4, done.stdout + done.stderr
    assert "skipped (no candidates)" not in done.stdout
    assert "refused pruning mine: skill 'mine' was written by a person" in done.stdout


def test_doctor_checks_the_hermes_plugin_of_a_mirroring_home(tmp_path: Path) -> None:
    hermes = tmp_path / "hermes"
    (hermes / "memories").mkdir(parents=True)
    (hermes / "config.yaml").write_text("model: x\n", encoding="utf-8")
    installed = _memoir("hermes", "install", "--hermes-home", str(hermes), "--no-check")
    assert installed.returncode == 0, installed.stderr
    home = hermes / "memoir"

    def hermes_check() -> dict[str, str]:
        done = _memoir("--home", str(home), "--json", "doctor")
        return next(c for c in json.loads(done.stdout)["checks"] if c["check"] == "hermes")

    check = hermes_check()
    assert check["status"] == "warn" and "--enable" in check["detail"]
    assert _memoir("hermes", "install", "--hermes-home", str(hermes), "--no-check",
                   "--enable").returncode == 0
    assert hermes_check()["status"] == "ok"
    (hermes / "plugins" / "memoir" / "__init__.py").unlink()
    check = hermes_check()
    assert check["status"] == "fail" and "memoir hermes install" in check["detail"]
