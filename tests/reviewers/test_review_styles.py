"""The rule reviewer on conversations in styles it was not written against
(tests/data/reviews/, issue 24): nine styles — terse, chatty, non-native, code-heavy,
multi-fact, implicit preferences, corrections, environment facts, project facts — 280
labelled user turns, about a third of them with nothing worth saving.  Scored as
test_review_corpus.py scores (an entry is right when it holds an expected phrase, each
phrase counted once).

Measured on them with the rules as they were written: precision 0.79, recall 0.13 over
the nine styles (USER.md: 0.70 / 0.18; MEMORY.md: 0.93 / 0.10), against 1.00 / 0.98 on
the corpus the rules were written against.  Since an instruction that leans on its
sentence is kept with it (rules.Clause, a change these turns showed the need of):
0.975 / 0.157 (USER.md 21/21 right, 21/103 found; MEMORY.md 18/19, 18/145).  This test
holds that floor and the corpus's shape; the rules alone stay far from issue 24's
target (recall ≥ 0.6 at precision ≥ 0.9 on a held-out part), which the semantic
reviewer is measured against (test_semantic_reviewer.py, docs/reviewers.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.reviewers.test_review_corpus import score
from tests.support.paths import DATA

STYLES = ("terse", "chatty", "non_native", "code_heavy", "multi_fact", "implicit",
          "corrections", "environment", "project")


def _rows(style: str) -> list[dict[str, object]]:
    path = DATA / "reviews" / f"{style}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("part", ["", "holdout/", "retired/", "holdout3/"])
def test_the_corpus_has_every_style_and_its_labels_are_in_the_text(part: str) -> None:
    """The training part (280 turns in these styles, 150 in five more), the first
    held-out part (written after the first classifier was frozen), the retired one
    (written after the second was, scored once, then trained on) and the third
    (written after the one shipped now was): 135 turns each."""
    total = negatives = 0
    for style in STYLES:
        rows = _rows(part + style)
        assert len(rows) >= 15, style
        for row in rows:
            text = str(row["text"]).casefold()
            for target in ("user", "memory"):
                for phrase in row[target]:  # type: ignore[attr-defined]
                    assert phrase.casefold() in text, (style, row["text"], phrase)
        total += len(rows)
        negatives += sum(1 for r in rows if not r["user"] and not r["memory"])
    assert total >= (135 if part else 280) and negatives >= 0.25 * total


def test_the_other_training_turns_are_labelled_from_their_text() -> None:
    """Long messages with one fact among tasks, markdown lists, a mix of the facts a
    person tells about themselves, everyday terse facts, corrections and implicit
    preferences, and hard negatives (plans, suppositions, someone else's facts, the
    past, one-off requests): nothing to save in any of those."""
    extra = sorted(p for p in (DATA / "reviews").glob("*.jsonl") if p.stem not in STYLES)
    assert [p.stem for p in extra] == ["everyday", "hard_negatives", "lists", "long", "mixed"]
    for path in extra:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert len(rows) >= 15, path.name
        for row in rows:
            for target in ("user", "memory"):
                assert all(p.casefold() in row["text"].casefold() for p in row[target]), row
            if path.stem == "hard_negatives":
                assert not row["user"] and not row["memory"], row


def test_the_rules_on_styles_they_were_not_written_against(tmp_path: Path) -> None:
    joined = tmp_path / "all.jsonl"
    joined.write_text("".join(
        (DATA / "reviews" / f"{s}.jsonl").read_text(encoding="utf-8") for s in STYLES),
        encoding="utf-8")
    figures = score(joined)
    tp = sum(f["tp"] for f in figures.values())
    saved = sum(f["saved"] for f in figures.values())
    expected = sum(f["expected"] for f in figures.values())
    assert tp / saved >= 0.9 and tp / expected >= 0.14, figures
