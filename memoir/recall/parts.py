"""BM25 over a large index on every core: the documents split by rowid.

FTS5 scores a match in about a microsecond (each row's positions and length are read
for ``bm25()``), so a query whose words are all common — three words held together by
80,000 of a million documents — spends most of its time scoring rows it will not keep.
SQLite scores on the thread that steps the statement, and Python's ``sqlite3`` lets go
of the GIL while it steps; so in an index of :data:`SPLIT_FROM` documents or more the
rowids are cut into one span per core (at most :data:`MOST_PARTS`), each span's best
rows are found on a connection of its own, and the spans' lists are merged.

The result is exact, the same on one core as on eight: ``bm25()`` takes its word
weights from the whole table whatever span a statement reads (the IDF is counted over
every document), so a row scores the same in its span as in the whole, and the best
``limit`` rows of the index are among the best ``limit`` of their spans.  Equal scores
are ordered by rowid, in either path.

Measured on the million-document bench home (docs/benchmarks.md): two spans on two
cores take a common-words query from 85-104 ms to 51-57 ms; each span pays the word
weights' count again (5-11 ms), so the split does not halve the time.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

__all__ = ["MOST_PARTS", "SPLIT_FROM", "Parts", "cores"]

#: An index of fewer documents is searched in one statement: its queries take a few
#: milliseconds, and a second span would pay the word weights' count again.
SPLIT_FROM = 200_000
#: More spans than this would each pay the weights' count for little.
MOST_PARTS = 4

Row = tuple[int, str, float]

_SQL = ("SELECT rowid, session_id, bm25(docs) FROM docs WHERE docs MATCH ? {} "
        "ORDER BY bm25(docs), rowid LIMIT ?")


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class Parts:
    """The best rows of one index's FTS5 table, split across threads when it is large.

    The caller's connection reads the first span; each other span has a read-only
    connection of its own, opened at the first split and used by one statement at a
    time (the caller serialises searches, as :class:`~memoir.recall.index.SearchIndex`
    does under its lock).  :meth:`close` stops the threads and closes those
    connections; they are opened again if a later search needs them."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._readers: list[sqlite3.Connection] = []
        self._of: sqlite3.Connection | None = None  # the caller's connection they pair

    def best(self, db: sqlite3.Connection, expression: str, limit: int) -> list[Row]:
        """(rowid, session, BM25 score as FTS5 gives it: lower is better) of the
        ``limit`` best documents matching ``expression``, best first."""
        spans = self._spans(db)
        if len(spans) < 2:
            return list(db.execute(_SQL.format(""), (expression, limit)))
        readers = self._readers_for(db, len(spans) - 1)
        assert self._pool is not None
        ranged = _SQL.format("AND rowid >= ? AND rowid < ?")
        futures = [self._pool.submit(_rows, reader, ranged, (expression, lo, hi, limit))
                   for reader, (lo, hi) in zip(readers, spans[1:], strict=True)]
        try:
            rows = _rows(db, ranged, (expression, *spans[0], limit))
        finally:  # every span is done before this returns or raises
            wait(futures)
        for future in futures:
            rows += future.result()  # an SQLite error of a span is raised here
        rows.sort(key=lambda row: (row[2], row[0]))
        return rows[:limit]

    def close(self) -> None:
        with self._lock:
            self._close_readers()
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None

    def _spans(self, db: sqlite3.Connection) -> list[tuple[int, int]]:
        parts = min(cores(), MOST_PARTS)
        if parts < 2:
            return []
        last = db.execute("SELECT rowid FROM docs ORDER BY rowid DESC LIMIT 1").fetchone()
        if last is None or last[0] < SPLIT_FROM:
            return []  # a small index (rowids start at 1): one statement, one lookup
        first = db.execute("SELECT rowid FROM docs ORDER BY rowid LIMIT 1").fetchone()
        lo, hi = first[0], last[0] + 1
        if hi - lo < SPLIT_FROM:
            return []
        step = (hi - lo) // parts
        edges = [lo + step * i for i in range(parts)] + [hi]
        return list(itertools.pairwise(edges))

    def _readers_for(self, db: sqlite3.Connection, count: int) -> list[sqlite3.Connection]:
        with self._lock:
            if self._of is not db:  # the caller opened its file again: so do we
                self._close_readers()
                self._of = db
            while len(self._readers) < count:
                self._readers.append(sqlite3.connect(
                    f"{Path(os.path.abspath(self.path)).as_uri()}?mode=ro", uri=True, timeout=30,
                    isolation_level=None, check_same_thread=False))
            if self._pool is None:
                self._pool = ThreadPoolExecutor(MOST_PARTS - 1,
                                                thread_name_prefix="memoir-bm25")
            return self._readers[:count]

    def _close_readers(self) -> None:
        for reader in self._readers:
            reader.close()
        self._readers = []
        self._of = None


def _rows(db: sqlite3.Connection, sql: str, args: tuple[object, ...]) -> list[Row]:
    return [(int(r), str(s), float(b)) for r, s, b in db.execute(sql, args)]
