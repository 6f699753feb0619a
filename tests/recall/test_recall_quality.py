"""Retrieval measured on a labelled set written here: 20 sessions on distinct topics, 25
questions phrased the way a person asks later (not copied from the sessions), and 166
distractor sessions (the rule reviewer's corpus, one turn each, on nearby subjects:
databases, deploys, editors, errors).  recall@k: the share of questions with an
answering session among the first k hits.  docs/reviewers.md reports the figures; CI
holds a floor under recall@5."""

from __future__ import annotations

import json
import re
import sqlite3
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


def plain_fts5_recall_at(k: int = 5, questions: str = "recall_queries.jsonl") -> float:
    """The baseline issue 24 names: a plain SQLite FTS5 table over the same messages
    (one row each, the default tokenizer), a question's words OR-ed, ranked by bm25(),
    the first ``k`` distinct sessions."""
    sessions = json.loads((DATA / "recall_sessions.json").read_text(encoding="utf-8"))
    distractors = [json.loads(line)["text"] for line in
                   (DATA / "review_corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE m USING fts5(body, session UNINDEXED)")
    rows = [(text, f"distractor-{i}") for i, t in enumerate(distractors) for text in (t, "OK.")]
    rows += [(text, label) for label, pair in sessions.items() for text in pair]
    db.executemany("INSERT INTO m VALUES (?, ?)", rows)
    hits = 0
    queries = [json.loads(line) for line in
               (DATA / questions).read_text(encoding="utf-8").splitlines()]
    for q in queries:
        words = " OR ".join(f'"{w}"' for w in re.findall(r"\w+", q["query"].casefold()))
        top: list[str] = []
        for (session,) in db.execute("SELECT session FROM m WHERE m MATCH ? ORDER BY bm25(m)",
                                     (words,)):
            if session not in top:
                top.append(session)
            if len(top) == k:
                break
        hits += bool(set(top) & set(q["answers"]))
    return hits / len(queries)


@pytest.mark.parametrize("questions", ["recall_queries.jsonl", "recall_paraphrase.jsonl"])
def test_bm25_recall_is_never_below_a_plain_fts5_table(
        home: Path, monkeypatch: pytest.MonkeyPatch, questions: str) -> None:
    """Measured at 1 and 5: questions 0.80 and 1.00 against the plain table's 0.76 and
    1.00; paraphrases 0.40 and 0.60 against 0.25 and 0.55."""
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")
    for k in (1, 5):
        (home / str(k)).mkdir()
        ours, _ = recall_at(home / str(k), k=k, questions=questions)
        assert ours >= plain_fts5_recall_at(k, questions), (k, ours)


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
