"""The OR-ed query of a large home (issue 37 item 5): words many documents hold only score
the documents holding a rarer word of the query, and score them exactly as the whole OR
would (``memoir.recall.ranking.or_plan``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import memoir
from memoir.recall import ranking
from memoir.recall.index import TOKENIZE, SearchIndex
from memoir.recall.ranking import Terms, Tokenizer, or_plan

#: Words drawn for the documents: the first ones far more often (a home's words are skewed).
VOCAB = ["deploy", "cluster", "staging", "timing", "backup", "grafana", "kafka", "pager",
         "tomato", "sourdough", "marathon", "invoice", "rollback", "vpn", "quorum"]


def _db(texts: list[str]) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE docs USING fts5(text, tokenize = '{TOKENIZE}')")
    db.execute("CREATE VIRTUAL TABLE docs_terms USING fts5vocab(docs, 'row')")
    db.executemany("INSERT INTO docs (rowid, text) VALUES (?, ?)",
                   [(i + 1, t) for i, t in enumerate(texts)])
    return db


def _scores(db: sqlite3.Connection, expression: str) -> dict[int, float]:
    return dict(db.execute("SELECT rowid, bm25(docs) FROM docs WHERE docs MATCH ?",
                           (expression,)))


def _holds(db: sqlite3.Connection, word: str) -> set[int]:
    return set(_scores(db, word))


documents = st.lists(
    st.lists(st.sampled_from(VOCAB) | st.sampled_from(VOCAB[:3]), min_size=1, max_size=8)
    .map(" ".join), min_size=5, max_size=80)
queries = st.lists(st.sampled_from(VOCAB), min_size=2, max_size=5, unique=True)


@given(texts=documents, words=queries, floor=st.integers(0, 6),
       shares=st.sampled_from([(0.1, 0.01), (0.5, 0.05), (1.0, 0.2), (1.0, 0.0)]))
def test_the_plan_scores_every_document_holding_a_rarer_word_as_the_whole_or(
        texts: list[str], words: list[str], floor: int, shares: tuple[float, float]) -> None:
    """Small corpora with the thresholds drawn (the shipped ones split only past 1,000
    documents), so that every kind of split is drawn."""
    db = _db(texts)
    saved = ranking.COMMON_FLOOR, ranking.COMMON, ranking.OFTEN
    ranking.COMMON_FLOOR, (ranking.COMMON, ranking.OFTEN) = floor, shares
    try:
        vocab = Terms(words, Tokenizer(TOKENIZE), db, every=True)
        plan = or_plan(words, vocab)
        common = set(vocab.common(ranking.COMMON))
        often = set(vocab.common(ranking.OFTEN))
    finally:
        ranking.COMMON_FLOOR, ranking.COMMON, ranking.OFTEN = saved
    kept = [w for w in words if w not in common] or words
    whole = _scores(db, " OR ".join(kept))
    merged: dict[int, float] = {}
    for expression in plan:
        merged.update(_scores(db, expression))
    rare = [w for w in kept if w not in often]
    if not rare or not often.intersection(kept):  # nothing to split: the plain OR
        assert plan == [" OR ".join(kept)]
        assert merged == whole
        return
    assert len(plan) == 2
    holding_rare = set().union(*(_holds(db, w) for w in rare))
    assert set(merged) == holding_rare  # no document holding only frequent words
    for rowid, score in merged.items():
        assert score == pytest.approx(whole[rowid], rel=1e-12, abs=1e-12)


def test_a_small_home_runs_the_plain_or() -> None:
    """No word past COMMON_FLOOR documents: the OR-ed query as before."""
    db = _db(["deploy staging"] * 600 + ["grafana kafka"] * 3)
    vocab = Terms(["deploy", "grafana"], Tokenizer(TOKENIZE), db, every=True)
    assert or_plan(["deploy", "grafana"], vocab) == ["deploy OR grafana"]


def test_a_word_stemmed_to_a_function_word_is_counted() -> None:
    """"timing" is stemmed to "time", a function word: the plan must still see how many
    documents hold it (else a word in most documents passes as a rare one)."""
    db = _db(["timing deploy"] * 50 + ["kafka"] * 2)
    assert Terms(["timing"], Tokenizer(TOKENIZE), db).counts == {}
    assert Terms(["timing"], Tokenizer(TOKENIZE), db, every=True).counts == {"time": 50}


def _home(tmp_path: Path, texts: list[tuple[str, str]]) -> Path:
    """A home whose search index holds ``texts`` ((session, text)) written directly."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("reviewers:\n  mode: off\nepisodic:\n  semantic: off\n",
                                      encoding="utf-8")
    with memoir.open(home) as mem:
        index = SearchIndex(mem, mem.learning.transcripts)
        index.sync(embed=False)
        db = index._connect()
        sessions = sorted({sid for sid, _t in texts})
        db.executemany("INSERT INTO sessions (session_id, started_at, last_active, platform, "
                       "turns) VALUES (?, '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', "
                       "'test', 1)", [(s,) for s in sessions])
        db.executemany("INSERT INTO docs (rowid, text, session_id, kind, turn, role) VALUES "
                       "(?, ?, ?, 'turn', 1, NULL)",
                       [(i + 1, text, sid) for i, (sid, text) in enumerate(texts)])
        db.commit()
        index.close()
    return home


def test_search_in_a_large_home_finds_the_rare_word_and_skips_the_frequent_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through SearchIndex: a frequent word (in 20 of 300 documents: past OFTEN, short of
    COMMON) and a rare one (in 3); no document holds both, so the first step (every word)
    finds nothing and the OR-ed query runs as the plan; the sessions holding the rare word
    come back, ranked as the whole OR ranks them, and no session holding only the frequent
    word is scored."""
    texts = [(f"s-often{i:03d}", f"the staging cluster restarted again round {i}")
             for i in range(20)]
    texts += [(f"s-other{i:03d}", f"sourdough starter fed at dawn {i}") for i in range(277)]
    texts += [(f"s-rare{i}", f"grafana alert {'fired' if i else 'fired twice'} at noon")
              for i in range(3)]
    home = _home(tmp_path, texts)
    monkeypatch.setattr(ranking, "COMMON_FLOOR", 10)
    seen: list[str] = []
    match = SearchIndex._match

    def spy(self: SearchIndex, expression: str, query: str,
            scan: int) -> list[tuple[int, str, float]]:
        seen.append(expression)
        return match(self, expression, query, scan)

    monkeypatch.setattr(SearchIndex, "_match", spy)
    with memoir.open(home, readonly=True) as mem:
        index = SearchIndex(mem, mem.learning.transcripts)
        hits = index.search("staging grafana", limit=5, recall="bm25")
        index.close()
    assert seen == ["staging grafana", "(grafana) AND (staging)", "(grafana) NOT (staging)"]
    assert sorted(h.session for h in hits) == ["s-rare0", "s-rare1", "s-rare2"]
    db = _db([text for _s, text in texts])
    whole = sorted(_scores(db, "staging OR grafana").items(), key=lambda kv: kv[1])
    best_rare = [rowid for rowid, _score in whole if texts[rowid - 1][0].startswith("s-rare")]
    assert [h.session for h in hits] == [texts[r - 1][0] for r in best_rare]


def test_what_a_prompt_recalls_of_its_candidates() -> None:
    """``prompt_keeps``: words alone keep what holds half the word weight; a small home
    asks each session to stand out among its documents; a larger one recalls its first
    three when the best stand out from the rest, and only those that qualify on their own
    when nothing does."""
    from memoir.recall.ranking import GATE_KEEPS, prompt_keeps

    never = lambda _s: False  # noqa: E731
    assert prompt_keeps([0.6, 0.4], [0.9, 0.9], None, never) == [True, False]
    assert prompt_keeps([0.1, 0.1], [0.35, 0.2], (0.05, 0.05),
                        lambda s: s > 0.3) == [True, False]
    flat = [0.2, 0.19, 0.19, 0.18, 0.18, 0.17, 0.17, 0.16, 0.16]
    assert prompt_keeps([0.1] * 9, flat, (0.05, 0.05), never) == [False] * 9
    apart = [0.42, 0.2, 0.19, 0.18, 0.18, 0.17, 0.17, 0.16, 0.16]
    kept = prompt_keeps([0.35] + [0.05] * 8, apart, (0.05, 0.05), never)
    assert kept == [True] * GATE_KEEPS + [False] * 6
    # a session that qualifies on its own is kept past the first three
    assert prompt_keeps([0.1] * 8 + [0.7], flat, (0.05, 0.05), never)[-1] is True
