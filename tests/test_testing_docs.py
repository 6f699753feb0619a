"""docs/testing.md's examples run as a user runs them: written to a test module of
their own and collected by pytest in a fresh process (no memoir test fixture, no
conftest), so the shipped suite stands on its own."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.support.paths import REPO

DOC = REPO / "docs" / "testing.md"
_FENCE = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def test_the_conformance_example_passes_the_whole_contract(tmp_path: Path) -> None:
    code = _FENCE.findall(DOC.read_text(encoding="utf-8"))[0]
    (tmp_path / "test_counting_journal.py").write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "test_counting_journal.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    passed = int(re.search(r"(\d+) passed", done.stdout).group(1))  # type: ignore[union-attr]
    # The capabilities the example does not claim are skipped, each naming its flag.
    skipped = re.search(r"(\d+) skipped", done.stdout)
    passed += int(skipped.group(1)) if skipped else 0
    ours = subprocess.run([sys.executable, "-m", "pytest", "-q", "--collect-only", "-p",
                           "no:cacheprovider", "-p", "no:xdist",
                           "tests/journal/test_journal_conformance.py::TestInMemoryJournal"],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    contract = [line for line in ours.stdout.splitlines() if "::" in line]
    assert contract and passed == len(contract) + 1  # the contract, and the example's own


def test_a_backend_that_breaks_the_contract_is_named(tmp_path: Path) -> None:
    """A journal that loses a record of each append fails, and the failures name the
    rules it breaks."""
    (tmp_path / "test_lossy.py").write_text('''
from memoir.journal import InMemoryJournal
from memoir.testing.journal_conformance import JournalConformance


class Lossy(InMemoryJournal):
    def append(self, drafts, *args, **kwargs):
        return super().append(list(drafts)[:1], *args, **kwargs)


class TestLossy(JournalConformance):
    def make(self, clock=None):
        return Lossy(clock=clock)

    def reopen(self, journal):
        return journal
''', encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-rf", "-p",
                           "no:cacheprovider", "-p", "no:xdist", "test_lossy.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 1
    assert re.search(r"FAILED test_lossy.py::TestLossy::test_\w+", done.stdout), done.stdout


def test_the_recorded_history_example_runs_on_a_real_home(tmp_path: Path) -> None:
    import os

    import memoir

    home = tmp_path / "home"
    home.mkdir()
    (home / "journal.jsonl").touch()
    (home / "config.yaml").write_text("reviewers:\n  mode: sync\nmemory:\n  nudge_interval: "
                                      "1\n", encoding="utf-8")
    with memoir.open(home) as mem:
        for name in ("Ada", "Grace"):
            with mem.start_session() as session:
                session.record_turn([{"role": "user", "content": f"My name is {name}."},
                                     {"role": "assistant", "content": "Hello."}])
    code = _FENCE.findall(DOC.read_text(encoding="utf-8"))[1]
    (tmp_path / "test_history.py").write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "test_history.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "MEMOIR_RECORDED": str(home)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_the_state_machine_example_runs(tmp_path: Path) -> None:
    code = _FENCE.findall(DOC.read_text(encoding="utf-8"))[2]
    (tmp_path / "test_greeter.py").write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "test_greeter.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_the_strategies_example_runs(tmp_path: Path) -> None:
    code = _FENCE.findall(DOC.read_text(encoding="utf-8"))[3]
    (tmp_path / "test_turns.py").write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "test_turns.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
