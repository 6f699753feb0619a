"""Fixtures of the web view's in-process tests (tests/web/client.py)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.client import Web
from tests.web.seed import seed


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    path = tmp_path_factory.mktemp("web") / "home"
    return path, seed(path)


@pytest.fixture
def web(tmp_path: Path, seeded: tuple[Path, dict[str, str]]) -> Iterator[Web]:
    """A fresh copy of the seeded home, served in process."""
    path = tmp_path / "home"
    shutil.copytree(seeded[0], path, symlinks=True)
    w = Web(path, seeded[1])
    yield w
    w.home.close()


