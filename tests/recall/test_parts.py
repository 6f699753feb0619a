"""BM25 of a large index on every core (``memoir.recall.parts``, issue 37 item 5): the
documents cut into rowid spans searched on threads of their own give exactly the rows
and scores one statement over the whole table gives."""

from __future__ import annotations

import sqlite3
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import memoir
from memoir.recall import parts
from memoir.recall.index import TOKENIZE, SearchIndex
from memoir.recall.parts import Parts

VOCAB = ["deploy", "cluster", "staging", "grafana", "kafka", "tomato", "invoice", "vpn"]


def _file(folder: Path, texts: list[str]) -> Path:
    path = folder / "search.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE VIRTUAL TABLE docs USING fts5(text, session_id UNINDEXED, "
                   f"tokenize = '{TOKENIZE}')")
        db.executemany("INSERT INTO docs (rowid, text, session_id) VALUES (?, ?, ?)",
                       [(i + 1, t, f"s-{i % 7}") for i, t in enumerate(texts)])
    return path


def _whole(db: sqlite3.Connection, expression: str, limit: int) -> list[Any]:
    return db.execute("SELECT rowid, session_id, bm25(docs) FROM docs WHERE docs MATCH ? "
                      "ORDER BY bm25(docs), rowid LIMIT ?", (expression, limit)).fetchall()


words = st.sampled_from(VOCAB)
expressions = st.one_of(
    words, st.lists(words, min_size=2, max_size=3, unique=True).map(" ".join),
    st.lists(words, min_size=2, max_size=3, unique=True).map(" OR ".join),
    st.tuples(words, words).map(lambda p: f"{p[0]} NOT {p[1]}"),
    st.tuples(words, words).map(lambda p: f'"{p[0]} {p[1]}"'))


@given(texts=st.lists(st.lists(words, min_size=1, max_size=6).map(" ".join), min_size=1,
                      max_size=60),
       expression=expressions, limit=st.integers(1, 12), cores=st.integers(1, 6))
def test_the_spans_find_the_rows_and_scores_of_one_statement(
        texts: list[str], expression: str, limit: int, cores: int) -> None:
    """Texts drawn from few words (many equal scores, which the spans must order by
    rowid as one statement does), every span count from none to MOST_PARTS."""
    saved = parts.SPLIT_FROM, parts.cores
    parts.SPLIT_FROM, parts.cores = 1, lambda: cores
    try:
        with tempfile.TemporaryDirectory() as folder:
            path = _file(Path(folder), texts)
            db = sqlite3.connect(path, check_same_thread=False)
            split = Parts(path)
            try:
                found = split.best(db, expression, limit)
                used = len(split._readers)
                assert found == [tuple(row) for row in _whole(db, expression, limit)]
            finally:
                split.close()
                db.close()
    finally:
        parts.SPLIT_FROM, parts.cores = saved
    assert used == min(cores, parts.MOST_PARTS) - 1  # a connection for each other span


def test_a_small_index_is_one_statement(tmp_path: Path) -> None:
    path = _file(tmp_path, ["deploy staging"] * 50)
    db = sqlite3.connect(path, check_same_thread=False)
    split = Parts(path)
    assert split.best(db, "deploy", 3) == [tuple(r) for r in _whole(db, "deploy", 3)]
    assert split._readers == [] and split._pool is None  # SPLIT_FROM is 200,000 documents
    db.close()


def test_an_error_in_a_span_is_raised_and_leaves_no_span_running(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parts, "SPLIT_FROM", 1)
    monkeypatch.setattr(parts, "cores", lambda: 3)
    path = _file(tmp_path, ["deploy staging", "kafka vpn", "grafana"] * 10)
    db = sqlite3.connect(path, check_same_thread=False)
    split = Parts(path)
    with pytest.raises(sqlite3.OperationalError):
        split.best(db, "nosuchcolumn:deploy", 5)
    assert split.best(db, "kafka", 40) == [tuple(r) for r in _whole(db, "kafka", 40)]
    split.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("memoir-bm25")]
    db.close()


def _record(mem: memoir.Memoir, text: str) -> str:
    session = mem.start_session(platform="test")
    session.record_turn([{"role": "user", "content": text},
                         {"role": "assistant", "content": "Noted."}])
    session.end()
    return str(session.id)


def test_a_home_searched_in_spans_finds_what_one_statement_finds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through SearchIndex, split into two spans from the first document on; then the
    index file is deleted and made again with a new session: the spans' connections are
    opened again on the new file (a connection left on the old one would not see the
    new session, which falls in the second span)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("reviewers:\n  mode: off\nepisodic:\n  semantic: off\n",
                                      encoding="utf-8")
    topics = ["the staging cluster fell over during the deploy",
              "grafana alerts for kafka lag", "the invoice export to the vpn host",
              "tomato seedlings and the staging greenhouse"]
    with memoir.open(home) as mem:
        for text in topics:
            _record(mem, text)
        queries = ["staging", "kafka grafana", "invoice vpn", "staging deploy"]
        index = SearchIndex(mem, mem.learning.transcripts)
        monkeypatch.setattr(parts, "SPLIT_FROM", 10**9)
        alone = [[(h.session, h.bm25) for h in index.search(q, recall="bm25")]
                 for q in queries]
        monkeypatch.setattr(parts, "SPLIT_FROM", 1)
        monkeypatch.setattr(parts, "cores", lambda: 2)
        split = [[(h.session, h.bm25) for h in index.search(q, recall="bm25")]
                 for q in queries]
        assert split == alone and all(alone)
        assert len(index._parts._readers) == 1  # the second span had its own connection
        (home / ".memoir" / "search.db").unlink()
        new = _record(mem, "a marathon plan for the autumn")
        hits = index.search("marathon autumn", recall="bm25")
        assert [h.session for h in hits] == [new]
        index.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("memoir-bm25")]
