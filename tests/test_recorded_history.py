"""Real history as test input (memoir.testing.recorded and the pytest plugin): a
recorded journal read back as runs, replayed, varied, and checked; a journal that does
not verify is reported, never replayed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import memoir
from memoir.testing.recorded import (
    RecordedHistoryError,
    check_history,
    recorded,
    recorded_variants,
    replay_commands,
)


def _history(home: Path, sessions: int = 6) -> Path:
    (home / "config.yaml").write_text("reviewers:\n  mode: sync\nmemory:\n  nudge_interval: 1\n"
                                      "journal:\n  durability: never\n", encoding="utf-8")
    with memoir.open(home) as mem:
        for i in range(sessions):
            with mem.start_session() as session:
                session.record_turn([
                    {"role": "user", "content": f"My name is Ada{i} and I prefer tabs."},
                    {"role": "assistant", "content": "Noted."}])
                session.call_tool("memory", {"action": "add", "target": "memory",
                                             "content": f"The deploy host is db{i}."})
        mem.start_session().call_tool("skill_manage", {
            "action": "create", "name": "deploy-steps", "content":
            "---\nname: deploy-steps\ndescription: How we deploy\n---\nRun make deploy.\n"})
    return home


def test_runs_replay_into_the_same_memory(home: Path, tmp_path: Path) -> None:
    runs = recorded(_history(home))
    assert runs and all(len({e.run for e in r.events}) == 1 for r in runs)
    assert [e.seq for r in runs for e in r.events] == sorted(
        e.seq for r in runs for e in r.events)
    actors = {r.actor for r in runs}
    assert "agent" in actors and any(a.startswith("reviewer") for a in actors)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "journal.jsonl").touch()
    with memoir.open(home, readonly=True) as old, memoir.open(fresh) as new:
        replay_commands(runs, new)
        for target in ("memory", "user"):
            assert new.state.memory.target(target).texts() == \
                old.state.memory.target(target).texts()
        assert new.state.skills.skills["deploy-steps"].content == \
            old.state.skills.skills["deploy-steps"].content
    assert check_history(runs) is None


def test_a_journal_that_does_not_verify_is_reported_not_replayed(home: Path) -> None:
    _history(home, sessions=2)
    path = home / "journal.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    lines[3] = lines[3].replace(b"Ada", b"Eve", 1) if b"Ada" in lines[3] else \
        lines[3].replace(b'"actor":"', b'"actor":"x', 1)
    path.write_bytes(b"".join(lines))
    with pytest.raises(RecordedHistoryError, match="does not verify at seq 4"):
        recorded(home)
    with pytest.raises(RecordedHistoryError, match="not a journal"):
        recorded(home / "nothing-here")


def test_variations_of_a_real_history_keep_the_guarantees(tmp_path_factory: pytest.
                                                          TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("recorded")
    (folder / "journal.jsonl").touch()
    runs = recorded(_history(folder, sessions=3))

    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    @given(recorded_variants(runs))
    def check(variant: list) -> None:  # type: ignore[type-arg]
        assert check_history(variant) is None

    check()


def _pytest(where: Path, *args: str) -> subprocess.CompletedProcess[str]:
    where.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", *args], cwd=where, capture_output=True,
                          text=True, timeout=600)


def test_the_plugin_checks_a_production_journal(home: Path, tmp_path: Path) -> None:
    _history(home)
    done = _pytest(tmp_path / "run", "--memoir-journal", str(home))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    assert "memoir-journal: replayed" in done.stdout  # progress
    bad = _pytest(tmp_path / "run", "--memoir-journal", str(tmp_path / "no-journal"))
    assert bad.returncode != 0
    errors = [line for line in bad.stderr.splitlines() if line.startswith("ERROR")]
    assert errors == [f"ERROR: --memoir-journal: {tmp_path / 'no-journal'}: not a journal "
                      "(no such file, nor a home with a journal.jsonl)"]


def test_the_plugin_names_the_first_seq_that_breaks(home: Path, tmp_path: Path) -> None:
    """A fold that depended on when a record was written (as a bug would) is caught at
    the first run where replaying differs, and the failure says where."""
    _history(home)
    run = tmp_path / "run"
    run.mkdir()
    (run / "conftest.py").write_text('''
import importlib

# The module (``memoir.testing.recorded`` as a name is the function).
recorded = importlib.import_module("memoir.testing.recorded")
real = recorded.visible_state
calls = [0]


def stamped(state, **options):
    # From the 11th run on, the live state and the fold no longer agree.
    out = real(state, **options)
    calls[0] += 1
    if calls[0] > 20:
        out["when"] = calls[0] % 2
    return out


recorded.visible_state = stamped
''', encoding="utf-8")
    done = _pytest(run, "--memoir-journal", str(home))
    assert done.returncode == 1
    assert "the recorded history breaks a guarantee at seq" in done.stdout
    assert "fold of the journal equals the live state" in done.stdout


def test_a_history_recorded_in_postgresql(tmp_path: Path, pg_url: str) -> None:
    """recorded() reads a journal kept in PostgreSQL, by URL or through the home that
    points at it, and the history replays and checks as a file journal's does."""
    from memoir.journal.postgres import PostgresJournal

    home = tmp_path / "machine-a"
    home.mkdir()
    (home / "config.yaml").write_text(f"journal:\n  url: {pg_url}\nreviewers:\n  mode: off\n",
                                      encoding="utf-8")
    with memoir.open(home, journal=PostgresJournal(pg_url, create=True)) as mem:
        session = mem.start_session()
        session.call_tool("memory", {"action": "add", "target": "user", "content": "Name: Ada."})
        head = mem.head
    by_url = recorded(pg_url)
    # A folder whose config.yaml names a database it was never attached to here (one
    # handed over with a bug report) is not connected to; attached, it is.
    with pytest.raises(RecordedHistoryError, match="never attached"):
        recorded(home)
    from memoir.journal.home import attach

    attach(home, pg_url)
    by_home = recorded(home)
    assert [e.seq for r in by_url for e in r.events] == list(range(1, head + 1))
    assert [r.events for r in by_home] == [r.events for r in by_url]
    assert check_history(by_url) is None


def test_a_home_that_ran_every_command_replays(tmp_path: Path) -> None:
    """Every kind of record the commands write, `memoir forget`'s included (its
    tombstones and its journal.forgotten record), is read, replayed and checked; the
    names are importable from memoir.testing itself."""
    from click.testing import CliRunner

    from memoir.cli import cli
    from memoir.testing import HomeMachine, check_history, recorded, replay_commands

    assert callable(recorded) and callable(replay_commands) and HomeMachine.__name__
    home = tmp_path / "home"
    skill = tmp_path / "SKILL.md"
    skill.write_text("---\nname: deploy-steps\ndescription: How we deploy\n---\n"
                     "Run make deploy.\n", encoding="utf-8")
    chat = tmp_path / "chat.json"
    chat.write_text('[{"role": "user", "content": "I am Ada and I deploy with Nomad; the '
                    'build host is ci-7."}, {"role": "assistant", "content": "Noted."}]',
                    encoding="utf-8")
    commands = [
        ["init"], ["memory", "add", "The deploy key is kept in vault."],
        ["memory", "add", "--target", "user", "Prefers short answers."],
        ["memory", "add", "Uses pytest."], ["memory", "replace", "pytest", "Uses pytest -x."],
        ["memory", "remove", "pytest"], ["skills", "create", "deploy-steps", "--file", str(skill)],
        ["skills", "pin", "deploy-steps"], ["skills", "unpin", "deploy-steps"],
        ["skills", "archive", "deploy-steps"], ["skills", "restore", "deploy-steps"],
        ["sessions", "import", str(chat)], ["curator", "run"], ["curator", "pause"],
        ["curator", "resume"], ["revert", "--last"], ["memory", "add", "Ships on Fridays."],
        ["forget", "--text", "vault", "--yes"], ["memory", "reset", "--target", "user",
                                                 "--yes"]]
    runner = CliRunner()
    for args in commands:
        done = runner.invoke(cli, ["--home", str(home), *args])
        assert done.exit_code == 0, (args, done.output)
    (home / "memories" / "MEMORY.md").write_text(
        (home / "memories" / "MEMORY.md").read_text(encoding="utf-8") + "\n§\nBy hand.",
        encoding="utf-8")
    assert runner.invoke(cli, ["--home", str(home), "adopt"]).exit_code == 0
    from memoir.events.codec import Forgotten

    with memoir.open(home, readonly=True) as mem:
        events = list(mem.journal.read())
    assert any(isinstance(e.data, Forgotten) for e in events)  # a tombstone
    assert {"journal.forgotten", "memory.entry_replaced", "skill.created",
            "curator.paused"} <= {e.type for e in events}
    runs = recorded(home)
    assert check_history(runs) is None
    empty = tmp_path / "run"
    empty.mkdir()
    plugin = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "--memoir-journal", str(home), str(empty)],
                            capture_output=True, text=True, cwd=empty, timeout=300)
    assert plugin.returncode == 0 and "1 passed" in plugin.stdout, plugin.stdout + plugin.stderr
