"""The embeddings of the episodic index's documents: recall by meaning.

A derived index like the FTS5 table beside it, in the same ``.memoir/search.db``: a row
per user or assistant message (``vectors``: the document's rowid, its session, 384
float32 values), never journaled.  Summaries get none: they are made from the same
messages by rules, so they add words for BM25 but no meaning, and at 128 tokens each
they would cost as much to embed as four messages.  The model that made them is
recorded (``meta.vector_model``); a different model, or a deleted index, and they are
made again from the documents, which come from the journal and the transcript store.
Documents are embedded in batches, each batch its own transaction, so an interrupted
build keeps what it finished and a second process embedding at the same time neither
repeats nor loses a document.

Searching keeps the vectors in memory as one matrix (loaded once, extended as documents
are added) and ranks documents by cosine similarity with the query's vector.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from memoir.semantic import Encoder

__all__ = ["VECTOR_SCHEMA", "Nearness", "VectorIndex", "forget_vector"]

VECTOR_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    doc INTEGER PRIMARY KEY, session_id TEXT NOT NULL, vec BLOB NOT NULL
);
"""
_BATCH = 512


@dataclass(frozen=True)
class Nearness:
    """What :meth:`VectorIndex.nearest` found."""

    found: list[tuple[int, str, float]]
    mean: float
    std: float
    count: int

    def stands_out(self, cosine: float, deviations: float, floor: float) -> bool:
        """Whether ``cosine`` stands ``deviations`` standard deviations above the query's
        cosines with every document: a query about something the home discusses has a
        few documents far above the rest; one about nothing has none.  Among n
        documents none can stand more than sqrt(n - 1) above: a small home asks less,
        and then at least ``floor``."""
        if self.std <= 0:
            return False
        most = 0.8 * math.sqrt(max(self.count - 1, 1))
        if most < deviations:
            return cosine >= floor and (cosine - self.mean) / self.std >= most
        return (cosine - self.mean) / self.std >= deviations


class VectorIndex:
    """Embeddings for one :class:`~memoir.recall.index.SearchIndex` (its connection
    and lock are passed in; every method runs under that lock)."""

    def __init__(self, encoder: Encoder) -> None:
        import numpy as np

        self._np = np
        self.encoder = encoder
        self._rows: Any = np.zeros(0, dtype=np.int64)
        self._sessions: list[str] = []
        self._matrix: Any = np.zeros((0, encoder.dim), dtype=np.float32)
        self._loaded: tuple[int, int] = (-1, -1)  # (largest doc, removals) in memory

    def sync(self, db: sqlite3.Connection) -> int:
        """Embed the documents that have no vector; how many.  Vectors of another model
        are dropped first."""
        self._check_model(db)
        done = 0
        while True:
            db.execute("BEGIN IMMEDIATE")
            try:
                rows = db.execute(
                    "SELECT rowid, session_id, text FROM docs WHERE rowid > ? AND "
                    "kind = 'turn' ORDER BY rowid LIMIT ?",
                    (_largest(db), _BATCH)).fetchall()
                if rows:
                    vectors = self.encoder.encode([text for _r, _s, text in rows])
                    db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                                   [(rowid, sid, vectors[i].tobytes())
                                    for i, (rowid, sid, _t) in enumerate(rows)])
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('vector_through', ?)",
                               (str(rows[-1][0]),))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            if not rows:
                return done
            done += len(rows)

    def _check_model(self, db: sqlite3.Connection) -> None:
        row = db.execute("SELECT value FROM meta WHERE key = 'vector_model'").fetchone()
        if row is not None and row[0] == self.encoder.version:
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'vector_model'").fetchone()
            if row is None or row[0] != self.encoder.version:
                db.execute("DELETE FROM vectors")
                db.execute("DELETE FROM meta WHERE key = 'vector_through'")
                _count_removal(db)
                db.execute("INSERT OR REPLACE INTO meta VALUES ('vector_model', ?)",
                           (self.encoder.version,))
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        self._loaded = (-1, -1)

    def nearest(self, db: sqlite3.Connection, query: str, scan: int,
                also: Iterable[int] = ()) -> Nearness:
        """The ``scan`` documents closest to ``query`` and those in ``also`` (rowid,
        session, cosine; best first), and how the query's cosines with every document
        spread."""
        np = self._np
        self._refresh(db)
        if not len(self._rows):
            return Nearness([], 0.0, 0.0, 0)
        wanted = self.encoder.encode([query])[0]
        scores = self._matrix @ wanted
        count = min(scan, len(scores))
        top = np.argpartition(-scores, count - 1)[:count]
        asked = np.array(sorted(set(also)), dtype=np.int64)
        if len(asked):
            at = np.searchsorted(self._rows, asked)  # rows are ascending doc ids
            at = at[at < len(self._rows)]
            top = np.union1d(top, at[self._rows[at] == asked[:len(at)]])
        top = top[np.argsort(-scores[top], kind="stable")]
        found = [(int(self._rows[i]), self._sessions[i], float(scores[i])) for i in top]
        return Nearness(found, float(scores.mean()), float(scores.std()), len(scores))

    def _refresh(self, db: sqlite3.Connection) -> None:
        """Bring the matrix in memory up to the table: the new rows appended, or all
        read again when rows were removed or replaced."""
        np = self._np
        # Vectors are only ever added above the largest doc (batches take the documents
        # after it, one writer at a time) or removed, which is counted: the largest doc
        # and the count of removals tell what changed, without scanning the table.
        (largest,) = db.execute("SELECT coalesce(max(doc), 0) FROM vectors").fetchone()
        removed = _removals(db)
        if (largest, removed) == self._loaded:
            return
        known_largest, known_removed = self._loaded
        after = known_largest if removed == known_removed and known_largest >= 0 else -1
        rows = db.execute("SELECT doc, session_id, vec FROM vectors WHERE doc > ? "
                          "ORDER BY doc", (after,)).fetchall()
        dim = self.encoder.dim
        fresh = [(doc, sid, vec) for doc, sid, vec in rows
                 if isinstance(vec, bytes) and len(vec) == 4 * dim]  # a damaged row: skipped
        matrix = np.nan_to_num(  # a damaged row ranks nowhere rather than everywhere
            np.frombuffer(b"".join(v for _d, _s, v in fresh), dtype=np.float32
                          ).reshape(len(fresh), dim), nan=0.0, posinf=0.0, neginf=0.0)
        docs = np.array([d for d, _s, _v in fresh], dtype=np.int64)
        sessions = [s for _d, s, _v in fresh]
        if after >= 0:
            self._matrix = np.concatenate([self._matrix, matrix])
            self._rows = np.concatenate([self._rows, docs])
            self._sessions = self._sessions + sessions
        else:
            self._matrix, self._rows, self._sessions = matrix, docs, sessions
        self._loaded = (largest, removed)


def forget_vector(db: sqlite3.Connection, doc: int) -> None:
    """Drop a document's vector (its document was replaced), counted, so that a search
    holding the matrix in memory reads it again (the document's rowid may come back)."""
    db.execute("DELETE FROM vectors WHERE doc = ?", (doc,))
    _count_removal(db)


def _count_removal(db: sqlite3.Connection) -> None:
    db.execute("INSERT INTO meta VALUES ('vector_removals', '1') ON CONFLICT(key) DO "
               "UPDATE SET value = CAST(value AS INTEGER) + 1")


def _largest(db: sqlite3.Connection) -> int:
    """The last document embedded (or passed over: summaries get no vector)."""
    row = db.execute("SELECT value FROM meta WHERE key = 'vector_through'").fetchone()
    return int(row[0]) if row else 0


def _removals(db: sqlite3.Connection) -> int:
    row = db.execute("SELECT value FROM meta WHERE key = 'vector_removals'").fetchone()
    return int(row[0]) if row else 0
