"""The tests of hybrid recall: :data:`needs_semantic` skips them without the semantic
extra, except in CI (``.ci/run`` sets ``MEMOIR_REQUIRE_SEMANTIC``), where a missing
extra fails them; :func:`semantic_allowed` lifts the suite's ``MEMOIR_SEMANTIC=off``
(tests/conftest.py) so the home's own setting counts."""

from __future__ import annotations

import os

import pytest

from memoir.recall import semantic

needs_semantic = pytest.mark.skipif(
    not semantic.available() and not os.environ.get("MEMOIR_REQUIRE_SEMANTIC"),
    reason=f"the semantic extra is not installed (missing {semantic.missing()})")


@pytest.fixture
def semantic_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMOIR_SEMANTIC", raising=False)
