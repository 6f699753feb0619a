"""Shared test setup: Hypothesis profiles and common fixtures.

Profiles: ``dev`` (default, quick), ``ci`` (what `.ci/run` uses), ``soak`` (long runs;
select with ``HYPOTHESIS_PROFILE=soak`` and ``-m slow``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Fixtures of tests/support/postgres.py: a database of the tests' own, a schema per test.
from tests.support.postgres import pg_database, pg_url  # noqa: F401
from tests.support.semantic import semantic_allowed  # noqa: F401

settings.register_profile(
    "dev", max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci", max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "soak", max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck),
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    """A fresh, empty memoir home (a journal with no records; the CLI, unlike
    ``memoir.open``, only opens homes that exist)."""
    path = tmp_path / "home"
    path.mkdir()
    (path / "journal.jsonl").touch()
    yield path


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # No test may touch the developer's real ~/.memoir.
    monkeypatch.setenv("MEMOIR_HOME", str(tmp_path / "default-home"))
    for var in ("MEMOIR_DURABILITY", "MEMOIR_MEMORY_CHAR_LIMIT", "MEMOIR_USER_CHAR_LIMIT",
                "MEMOIR_PROJECTIONS", "MEMOIR_PROGRESS_DELAY", "MEMOIR_KEY"):
        monkeypatch.delenv(var, raising=False)
    # A bug in a command raises in the tests instead of becoming a one-line error.
    monkeypatch.setenv("MEMOIR_DEBUG", "1")
    # BM25 recall unless a test asks for the hybrid one (tests/support/semantic.py): the
    # model costs a second to load in every process that searches, and the ranking the
    # other tests pin is BM25's.
    monkeypatch.setenv("MEMOIR_SEMANTIC", "off")
