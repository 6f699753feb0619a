"""The rule reviewer measured on labelled turns written here: what must and must not be
saved, per target.  ``review_corpus.jsonl`` (166 turns) is the one the rules were
written against; ``review_holdout.jsonl`` (40 turns) was written apart and not tuned on.
CI holds both to precision ≥ 0.9 and recall ≥ 0.7 per target (docs/reviewers.md has the
figures)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoir.reviewers.rules import extract
from tests.support.paths import DATA


def score(path: Path) -> dict[str, dict[str, float]]:
    """Precision and recall per target: a saved entry is right when it holds one of the
    expected phrases (each counted once); anything else saved is a false positive."""
    counts = {t: {"tp": 0, "saved": 0, "expected": 0} for t in ("user", "memory")}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        found = extract(row["text"])
        for target, c in counts.items():
            saved = [f.text.casefold() for f in found if f.target == target]
            expected = [e.casefold() for e in row[target]]
            c["saved"] += len(saved)
            c["expected"] += len(expected)
            for text in saved:
                hit = next((e for e in expected if e in text), None)
                if hit is not None:
                    expected.remove(hit)
                    c["tp"] += 1
    return {t: {"precision": c["tp"] / max(c["saved"], 1),
                "recall": c["tp"] / max(c["expected"], 1), **c}
            for t, c in counts.items()}


@pytest.mark.parametrize("name", ["review_corpus.jsonl", "review_holdout.jsonl"])
def test_precision_and_recall_per_target(name: str) -> None:
    figures = score(DATA / name)
    for target, f in figures.items():
        assert f["precision"] >= 0.9, (name, target, f)
        assert f["recall"] >= 0.7, (name, target, f)


def test_the_corpus_is_large_and_balanced() -> None:
    rows = [json.loads(line) for line in
            (DATA / "review_corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= 150
    negatives = [r for r in rows if not r["user"] and not r["memory"]]
    assert len(negatives) >= 50  # what must not be saved: tasks, errors, questions, stories
    assert sum(bool(r["user"]) for r in rows) >= 40
    assert sum(bool(r["memory"]) for r in rows) >= 40
