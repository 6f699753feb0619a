"""The semantic reviewer (``reviewers.backend: semantic``): the shipped classifier is
the one its training turns give, it holds its held-out figures, it saves through the
same writer as the rules, and without the extra a review fails with the reason."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

import memoir
from memoir.errors import ConfigError
from memoir.recall import semantic
from memoir.reviewers import meaning
from memoir.reviewers.meaning import MODEL_FILE, Classifier, train
from memoir.reviewers.rules import extract
from tests.reviewers.test_review_corpus import score
from tests.support.paths import DATA
from tests.support.semantic import needs_semantic

pytestmark = needs_semantic


def _make_model() -> Any:
    spec = importlib.util.spec_from_file_location("make_model",
                                                  DATA / "reviews" / "make_model.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _held_out(tmp_path: Path) -> Path:
    joined = tmp_path / "holdout.jsonl"
    joined.write_text("".join(p.read_text(encoding="utf-8") for p in
                              sorted((DATA / "reviews" / "holdout").glob("*.jsonl"))),
                      encoding="utf-8")
    return joined


def test_the_shipped_model_is_what_its_training_turns_give() -> None:
    """A corpus changed without `make_model.py` run again fails here; so does a model
    file edited by hand."""
    shipped = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    again = train(_make_model().training_rows(), semantic.shared_encoder())
    assert shipped["trained_on"] == again["trained_on"]
    assert shipped["clauses"] == again["clauses"]
    import numpy as np

    assert np.allclose(shipped["weights"], again["weights"], atol=1e-3)


def test_it_holds_its_held_out_figures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                       ) -> None:
    """Measured once, after it was frozen: precision 0.81, recall 0.64 on the exact
    (float32) embeddings; 0.80 (79 of 99), 0.64 once retrained on the int8 graph's (the
    rules: 0.82, 0.19). CI holds a floor a little under them."""
    classifier = Classifier.shipped()
    monkeypatch.setattr("tests.reviewers.test_review_corpus.extract", classifier.find)
    figures = score(_held_out(tmp_path))
    tp = sum(f["tp"] for f in figures.values())
    assert tp / sum(f["saved"] for f in figures.values()) >= 0.78, figures
    assert tp / sum(f["expected"] for f in figures.values()) >= 0.6, figures
    monkeypatch.setattr("tests.reviewers.test_review_corpus.extract", extract)
    rules = score(_held_out(tmp_path))
    assert sum(f["tp"] for f in rules.values()) < tp / 2


def test_a_review_saves_what_the_rules_miss(home: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")
    said = [{"role": "user", "content": "So our whole backend is Go these days, we rewrote "
             "the last Python service in the spring."},
            {"role": "assistant", "content": "Good to know."}]
    for backend, expected in (("rules", []), ("semantic", ["Go these days"])):
        folder = home / backend
        folder.mkdir()
        (folder / "config.yaml").write_text(
            f"reviewers:\n  mode: sync\n  backend: {backend}\nmemory:\n  nudge_interval: 1\n",
            encoding="utf-8")
        with memoir.open(folder) as mem:
            with mem.start_session() as session:
                session.record_turn(said)
            saved = mem.state.memory.target("memory").texts()
        assert [e for e in expected if any(e in s for s in saved)] == expected, saved
        if not expected:
            assert saved == []


def test_without_the_extra_a_review_says_why(home: Path, monkeypatch: pytest.MonkeyPatch
                                             ) -> None:
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")
    monkeypatch.setattr(semantic, "missing", lambda: ["onnxruntime"])
    monkeypatch.setattr(semantic, "_SHARED", None)
    (home / "config.yaml").write_text("reviewers:\n  mode: sync\n  backend: semantic\n"
                                      "memory:\n  nudge_interval: 1\n", encoding="utf-8")
    with memoir.open(home) as mem:
        with mem.start_session() as session:
            session.record_turn([{"role": "user", "content": "We deploy with Nomad."},
                                 {"role": "assistant", "content": "OK."}])
        failed = [e for e in mem.events() if e.type == "review.failed"]
    assert failed and "memoir-agent[semantic]" in str(failed[0].data)


def test_a_model_file_of_another_shape_is_refused() -> None:
    data = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    encoder = semantic.shared_encoder()
    with pytest.raises(ConfigError, match="wrong shape"):
        Classifier({**data, "weights": data["weights"][:2]}, encoder)
    with pytest.raises(ConfigError, match="trained on"):
        Classifier({**data, "model": "another-model"}, encoder)
    with pytest.raises(ConfigError, match="non-finite"):
        Classifier({**data, "bias": [float("nan"), 0.0, 0.0]}, encoder)
    assert data["threshold"] == meaning.THRESHOLD
