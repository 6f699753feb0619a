"""What the reading commands load, held to a budget: a new feature that makes `memoir
log` import the engine, or `memoir --help` every command, fails here instead of making
every agent's and person's command slower without anyone noticing (issue 33: log had
crept from 73 to ~960 ms beyond process start on a large home).

Each command runs in a fresh interpreter, which writes the modules it loaded to a file
after the command ends; the budgets are a little above what was measured when they were
set (2026-11-27: --version 5 memoir modules, --help 5, log 39, status 126; a pytest
session with the plugin idle 3)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO

_PROBE = """
import json, os, sys
from memoir.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
with open(os.environ["MEMOIR_MODULES_OUT"], "w") as out:
    json.dump(sorted(sys.modules), out)
"""

#: Never loaded by a command that does not need them.
HEAVY = ("pydantic", "structlog", "asyncio", "numpy", "onnxruntime", "psycopg", "yaml",
         "memoir.engine", "memoir.api", "memoir.threats", "memoir.reviewers",
         "memoir.credentials", "memoir.recall", "memoir.skills", "memoir.journal.postgres")


def _loaded(tmp_path: Path, *args: str) -> list[str]:
    out = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True,
                          text=True, timeout=120, cwd=REPO,
                          env={**os.environ, "MEMOIR_MODULES_OUT": str(out),
                               "MEMOIR_HOME": str(tmp_path / "nohome")})
    assert out.exists(), done.stderr
    return list(json.loads(out.read_text(encoding="utf-8")))


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    for args in (["init"], ["memory", "add", "The build uses make."],
                 ["memory", "add", "--target", "user", "Prefers short answers."]):
        done = subprocess.run([sys.executable, "-m", "memoir", "--home", str(home), *args],
                              capture_output=True, text=True, timeout=120, cwd=REPO)
        assert done.returncode == 0, done.stderr
    return home


def _of(modules: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [m for m in modules if m in prefixes or m.startswith(tuple(p + "." for p in
                                                                        prefixes))]


@pytest.mark.parametrize(("args", "memoir_budget", "all_budget"), [
    (["--version"], 8, 170),
    (["--help"], 8, 170),
])
def test_starting_loads_almost_nothing(tmp_path: Path, args: list[str], memoir_budget: int,
                                       all_budget: int) -> None:
    loaded = _loaded(tmp_path, *args)
    assert _of(loaded, HEAVY) == []
    assert len(_of(loaded, ("memoir",))) <= memoir_budget, _of(loaded, ("memoir",))
    assert len(loaded) <= all_budget


def test_log_loads_the_journal_alone(tmp_path: Path) -> None:
    home = _home(tmp_path)
    loaded = _loaded(tmp_path, "--home", str(home), "log", "--limit", "3")
    assert _of(loaded, HEAVY) == []
    assert _of(loaded, ("memoir.engine", "memoir.projections", "memoir.api",
                        "memoir.journal.postgres", "memoir.config")) == []
    # The vocabulary and the file journal's modules (small ones: the journal package
    # holds the interface, the staging, the chooser and the file backend's parts).
    assert len(_of(loaded, ("memoir",))) <= 50, _of(loaded, ("memoir",))
    assert len(loaded) <= 260


def test_status_loads_the_engine_but_no_reviewer_or_model(tmp_path: Path) -> None:
    """status folds the home (the engine and its configuration are needed), but
    neither a reviewer, nor the semantic extra's runtime, nor the MCP or web layers."""
    home = _home(tmp_path)
    loaded = _loaded(tmp_path, "--home", str(home), "status")
    assert "memoir.engine" in loaded  # it did run
    assert [m for m in _of(loaded, ("memoir.reviewers",)) if m not in
            {"memoir.reviewers", "memoir.reviewers.choice"}] == []
    assert _of(loaded, ("numpy", "onnxruntime", "tokenizers", "psycopg", "asyncio",
                        "memoir.integrations", "memoir.web", "starlette")) == []
    # 142 (from 140): the background worker (memoir.worker) that replaced four threads
    # of their own, and the file journal's face apart from its appending (issue 35).
    # 144: the fold's vetting of forged records and database URLs read without the
    # journal package (issue 36).  150: signed appends — their vocabulary, the key
    # registry's fold, the screen every read of the journal passes before the fold,
    # the Ed25519 wrapper (PyNaCl itself waits for a signed journal) and the
    # engine's signer (issue 36).  151: recall's ranking (memoir.recall.ranking: stems,
    # fusion, dates, the relevance floor), which the prompt and session_search the
    # engine's tools offer import with the index (issue 37).  152: what fixed a tool
    # error (memoir.insights.resolution), which recording a turn reads (issue 37).
    # 153: where a projected file is on disk (memoir.engine.places), since skills of
    # skills.external_dirs are written in place (issue 38).  154: the search index's
    # write side in a module of its own (memoir.recall.indexing: the same code, moved
    # out of memoir.recall.index when its rebuild learnt to batch; issue 37).  155: how
    # a document is read as its prose (memoir.threats._document: code, tables, front
    # matter, a secret handled rather than handed over), which every scan runs (issue 34).
    assert len(_of(loaded, ("memoir",))) <= 155, _of(loaded, ("memoir",))
    assert len(loaded) <= 480


def test_the_pytest_plugin_loads_nothing_until_asked(tmp_path: Path) -> None:
    """Every pytest session of an environment with memoir installed loads the plugin:
    idle, it loads the package and itself."""
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n", encoding="utf-8")
    (tmp_path / "conftest.py").write_text(
        "import json, os, sys\n\n\ndef pytest_sessionfinish(session):\n"
        "    with open(os.environ['MEMOIR_MODULES_OUT'], 'w') as out:\n"
        "        json.dump(sorted(sys.modules), out)\n", encoding="utf-8")
    out = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", str(tmp_path)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path,
                          env={**os.environ, "MEMOIR_MODULES_OUT": str(out)})
    assert done.returncode == 0, done.stdout + done.stderr
    loaded = json.loads(out.read_text(encoding="utf-8"))
    assert "memoir.testing.pytest_plugin" in loaded  # the plugin is installed
    assert _of(loaded, ("memoir",)) == ["memoir", "memoir.testing",
                                        "memoir.testing.pytest_plugin"]


def test_the_help_list_says_what_each_command_says_of_itself() -> None:
    """`memoir --help` lists cli.SUMMARIES without importing the commands: each line is
    the command's own first line of help."""
    import click

    from memoir.cli import COMMANDS, SUMMARIES, cli

    ctx = click.Context(cli)
    assert set(SUMMARIES) == set(COMMANDS)
    for name in COMMANDS:
        command = cli.get_command(ctx, name)
        assert command is not None
        assert SUMMARIES[name] == command.get_short_help_str(10_000), name


def test_every_name_of_memoir_testing_is_there() -> None:
    """The lazy package gives every name it had when it imported them all."""
    import memoir.testing as testing

    for name in [*testing.__all__, "ADVERSARIAL_TEXTS"]:
        assert getattr(testing, name) is not None, name
    assert callable(testing.recorded)


@pytest.mark.parametrize(("text", "database"), [
    ("", False), ("reviewers:\n  llm:\n    base_url: http://x\n", False),
    ("journal:\n  durability: always\n", False), ("journal:\n  url: postgresql://a@b/c\n", True),
    # What the light reading cannot tell goes to the full check, which says what is wrong.
    ("journal: url\n", True), ("- url\n", True), ("journal: [\n url", True),
])
def test_the_light_path_knows_a_file_journal(tmp_path: Path, text: str, database: bool) -> None:
    from memoir.journal.home import names_a_database

    (tmp_path / "config.yaml").write_text(text, encoding="utf-8")
    assert names_a_database(tmp_path) is database
