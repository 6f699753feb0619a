"""Retrieval measured on a labelled set written here: 20 sessions on distinct topics, 25
questions phrased the way a person asks later (not copied from the sessions), and 166
distractor sessions (the rule reviewer's corpus, one turn each, on nearby subjects:
databases, deploys, editors, errors).  recall@k: the share of questions with an
answering session among the first k hits.  docs/reviewers.md reports the figures; CI
holds a floor under recall@5."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import memoir
from memoir.recall.index import SearchIndex
from tests.support.paths import DATA
from tests.support.semantic import needs_semantic


def recall_at(home: Path, k: int = 5, questions: str = "recall_queries.jsonl",
              semantic: str = "off") -> tuple[float, list[str]]:
    sessions = json.loads((DATA / "recall_sessions.json").read_text(encoding="utf-8"))
    queries = [json.loads(line) for line in
               (DATA / questions).read_text(encoding="utf-8").splitlines()]
    (home / "config.yaml").write_text(
        f"reviewers:\n  mode: off\nepisodic:\n  semantic: {semantic}\n", encoding="utf-8")
    ids: dict[str, str] = {}
    distractors = [json.loads(line)["text"] for line in
                   (DATA / "review_corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    with memoir.open(home) as mem:
        for text in distractors:
            with mem.start_session() as session:
                session.record_turn([{"role": "user", "content": text},
                                     {"role": "assistant", "content": "OK."}])
                ids[session.id] = "distractor"
        for label, (ask, answer) in sessions.items():
            with mem.start_session() as session:
                session.record_turn([{"role": "user", "content": ask},
                                     {"role": "assistant", "content": answer}])
                ids[session.id] = label
        index = SearchIndex(mem, mem.learning.transcripts)
        missed = []
        for q in queries:
            top = [ids[h.session] for h in index.search(q["query"], limit=k)]
            if not set(top) & set(q["answers"]):
                missed.append(q["query"])
    return 1 - len(missed) / len(queries), missed


def test_recall_at_5(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")
    score, missed = recall_at(home)
    assert score >= 0.8, missed


def test_recall_at_5_of_paraphrases(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """20 questions that share almost no word with the session that answers them ("the
    overnight data load kept giving up" for "the nightly ETL job keeps timing out"): what
    word matching cannot find, and the set a semantic extra would have to lift.
    Measured 0.60 at 5 (0.40 at 1, 0.55 at 3); CI holds the floor under it."""
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")
    score, missed = recall_at(home, questions="recall_paraphrase.jsonl")
    assert score >= 0.55, missed


@needs_semantic
@pytest.mark.usefixtures("semantic_allowed")
def test_hybrid_recall_at_5_of_paraphrases(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same paraphrases with the semantic extra: BM25 and embeddings fused.  Measured
    0.90 at 5 (0.70 at 1, 0.90 at 3), against 0.60 for BM25 alone (issue 24's target:
    0.90)."""
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")
    score, missed = recall_at(home, questions="recall_paraphrase.jsonl", semantic="on")
    assert score >= 0.9, missed


@needs_semantic
@pytest.mark.usefixtures("semantic_allowed")
def test_hybrid_recall_keeps_what_words_find(home: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Fusing in the embeddings loses none of the questions BM25 answers (1.00 at 5)."""
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")
    score, missed = recall_at(home, semantic="on")
    assert score == 1.0, missed
