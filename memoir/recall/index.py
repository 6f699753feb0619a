"""The episodic index: SQLite FTS5 over session summaries and turn text, a projection of
the journal and the transcript store.

``.memoir/search.db`` holds one row per session (when, where from, how many turns, its
summary and tags) and an FTS5 table of documents: each summary, and the user and
assistant text of each recorded turn.  It follows the journal: :meth:`SearchIndex.sync`
indexes the session events appended since the seq it last indexed (stored in the same
transaction as the rows, so a crash never leaves half a sync), and every search syncs
first.  Deleted, it is rebuilt from the journal and the transcript store, in journal
order, so the rows and the ranking are the same.

A turn's document holds its user and assistant text and then the turn before it; words
are stemmed (FTS5's porter tokenizer).  An index of another layout is dropped and made
again.  Ranking (:mod:`memoir.recall.ranking`, docs/recall.md): BM25 over the query's
words that say something (in hybrid recall, ``episodic.semantic``, min-max fused with
the cosines of the documents' embeddings, :mod:`memoir.recall.vectors`, in the same
file), best document per session, times a recency weight of the session's last
activity (``episodic.recency_weights``, seed 004's defaults) or, when the query names a
date, a lift of the sessions active then.  ``floor=True`` keeps only sessions about the
query (what a prompt recalls).

Queries are cleaned as Hermes cleans them (spec §5.2): at most 2,048 characters,
balanced "phrases" kept, FTS5 operators stripped, a dangling AND/OR/NOT dropped, and a
token holding ``.``, ``-`` or ``_`` quoted; whatever still fails is a
:class:`ValidationError`, never an SQLite error.
"""

from __future__ import annotations

import datetime as dt
import functools
import shutil
import sqlite3
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoir import semantic
from memoir.clock import parse_ts
from memoir.engine.port import Home
from memoir.errors import ValidationError
from memoir.fs import safefs
from memoir.journal.transcripts import TranscriptStore
from memoir.logs import get_logger
from memoir.recall import OPEN_INDEXES, index_if_open
from memoir.recall.indexing import apply_events
from memoir.recall.ranking import (
    DATE_LIFT,
    IDENTIFIER_WEIGHT,
    LEXICAL_WEIGHT,
    MIN_SURPRISE,
    Terms,
    Tokenizer,
    clean_query,
    date_spans,
    fuse,
    in_spans,
    is_identifier,
    names_date,
    or_plan,
    prompt_keeps,
    query_terms,
    query_words,
    recency_weight,
    snippet,
    title,
)
from memoir.recall.vectors import VECTOR_SCHEMA, VectorIndex, delete_graph
from memoir.semantic import recall_mode
from memoir.worker import Worker

__all__ = ["Hit", "SearchIndex", "clean_query", "delete_index", "index_if_open", "index_of",
           "recency_weight"]

log = get_logger("memoir.recall")

SEARCH_FILE = "search.db"
_REL = f".memoir/{SEARCH_FILE}"
#: The database and the files SQLite keeps beside it.
_SUFFIXES = ("", "-wal", "-shm", "-journal")
#: Stemmed English words, accents folded: "adopted" finds "adopt", "café" finds "cafe".
TOKENIZE = "porter unicode61 remove_diacritics 2"
#: The index's layout; an index of another layout is rebuilt from the journal.
LAYOUT = "2"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    session_id TEXT PRIMARY KEY, started_at TEXT NOT NULL, ended_at TEXT,
    last_active TEXT NOT NULL, platform TEXT NOT NULL, turns INTEGER NOT NULL DEFAULT 0,
    summary TEXT NOT NULL DEFAULT '', tags TEXT NOT NULL DEFAULT '', first_message TEXT
);
CREATE TABLE IF NOT EXISTS summary_docs (session_id TEXT PRIMARY KEY, doc INTEGER NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(
    text, session_id UNINDEXED, kind UNINDEXED, turn UNINDEXED, role UNINDEXED,
    tokenize = '""" + TOKENIZE + """'
);
CREATE VIRTUAL TABLE IF NOT EXISTS docs_terms USING fts5vocab(docs, 'row');
CREATE TABLE IF NOT EXISTS last_turns (
    session_id TEXT PRIMARY KEY, turn INTEGER NOT NULL, text TEXT NOT NULL
);
""" + VECTOR_SCHEMA
_SCAN = 300
#: The embeddings rank a document from this cosine up: below it, texts of
#: all-MiniLM-L6-v2 share no subject (unrelated pairs measured 0.0-0.2), and a prompt
#: would recall a session for nothing.
MIN_COSINE = 0.3
#: In fusion the embeddings vote from here: a turn's window dilutes a message's cosine,
#: and min-max normalisation gives a weak cosine a small share, not a rank.
_FUSE_COSINE = 0.1
_MODES = ("bm25", "dense", "hybrid")


@dataclass(frozen=True)
class Hit:
    """A session a search found: its best document, scored.  ``score`` is what ranks:
    the document's BM25 score (or, in hybrid recall, its fused score) times the
    session's recency ``weight``; ``semantic`` is its cosine similarity with the query
    (``None`` in BM25 recall or when the embeddings did not rank it), ``fused`` its
    fused score, and ``bm25`` is ``None`` when only the embeddings found it;
    ``coverage`` is the share of the query's word weight the window holds (computed
    for the relevance floor only)."""

    session: str
    score: float
    bm25: float | None
    weight: float
    snippet: str
    kind: str  # "summary" or "turn"
    turn: int | None
    role: str | None
    started_at: str
    last_active: str
    platform: str
    title: str
    semantic: float | None = None
    fused: float | None = None
    recall: str = "bm25"
    coverage: float | None = None
    #: The snippet without [brackets] and the words matched, for a page marking them.
    excerpt: str = ""
    words: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {**self.__dict__, "words": list(self.words)}


class SearchIndex:
    """The index of one home (see the module docstring)."""

    def __init__(self, engine: Home, store: TranscriptStore, *, scratch: bool = False) -> None:
        """``scratch``: keep the index in a temporary copy, brought up to date there and
        removed on :meth:`close` — for a home this process may not write, whose own
        index may be missing or behind the journal."""
        self.engine = engine
        self.store = store
        self.path = engine.home / _REL
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._synced = -1  # the head this object last synced to
        self._embedded = -1  # the head whose documents all have vectors
        self._scratch: Path | None = None
        self._vectors: VectorIndex | None = None
        # A burst of turns is embedded after it, not against it (the model would take
        # both cores); a failure is left for the next search, which reports it.
        self._background = Worker("memoir-index", self._sync_quietly, quiet=0.25, idle=0.0,
                                  on_error=_sync_failed)
        if scratch:
            self._scratch = Path(tempfile.mkdtemp(prefix="memoir-index-"))
            self.path = self._scratch / SEARCH_FILE
            if safefs.kind(engine.home, _REL) == "file":  # a copy to start from
                data = safefs.read(engine.home, _REL)
                if data is not None:
                    self.path.write_bytes(data)
        from memoir.recall.parts import Parts  # BM25 of a large index on every core
        self._parts = Parts(self.path)

    def _connect(self) -> sqlite3.Connection:
        """This object's connection (one, kept open; used under the lock)."""
        home = self.engine.home
        if self._scratch is not None:
            if self._db is None:
                self._db = _open_db(self.path)
            return self._db
        if self._db is None or safefs.kind(home, _REL) != "file":
            if self._db is not None:
                self._db.close()
                self._synced = self._embedded = -1
                self._vectors = None  # its matrix was of the file that went
            _unlink_links(home)
            self._db = _open_db(self.path)
        return self._db

    def sync_soon(self) -> None:
        """Bring the index up to the journal on a background thread: a live turn's
        embeddings cost milliseconds that neither ``record_turn`` nor the next prompt
        should wait for.  :meth:`flush` (and :meth:`close`) wait for it."""
        if not self.engine.readonly and self._scratch is None:
            self._background.request()

    def flush(self) -> None:
        """Wait for the background sync started by :meth:`sync_soon`, if any."""
        self._background.wait()

    def _sync_quietly(self) -> None:
        self.sync()  # the worker takes None (a delay), not the count

    def close(self) -> None:
        self._background.wait()
        self._background.stop()
        with self._lock:
            self._parts.close()
            if self._db is not None:
                self._db.close()
                self._db = None
            if self._scratch is not None:
                shutil.rmtree(self._scratch, ignore_errors=True)

    def indexed(self) -> int:
        """The journal seq the index has caught up to."""
        with self._lock:
            row = self._connect().execute("SELECT value FROM meta WHERE key='seq'").fetchone()
            return int(row[0]) if row else 0

    @property
    def mode(self) -> str:
        """The recall in effect: ``hybrid`` or ``bm25`` (see :func:`recall_mode`)."""
        return recall_mode(self.engine.config.episodic.semantic, load=True)

    def sync(self, *, embed: bool | None = None) -> int:
        """Index the session events appended since the last sync, and in hybrid recall
        (or with ``embed``) embed the documents that have no vector yet; how many
        events.  A handle opened read-only writes nothing: it searches the index as it
        is."""
        if self.engine.readonly and self._scratch is None:
            return 0
        count = self._sync_text()
        if embed is None:
            embed = self.mode == "hybrid"
        if embed and self._embedded != self._synced:
            with self._lock:
                self._vector_index().sync(self._connect())
                self._embedded = self._synced
        return count

    def _vector_index(self) -> VectorIndex:
        if self._vectors is None:
            self._vectors = VectorIndex(semantic.shared_encoder())
        return self._vectors

    def _sync_text(self) -> int:
        head = self.engine.head
        if head == self._synced and self.path.exists():
            return 0  # nothing appended since this object last looked
        with self._lock:
            db = self._connect()
            try:
                db.execute("BEGIN IMMEDIATE")  # one writer; others wait, then see it done
                row = db.execute("SELECT value FROM meta WHERE key='seq'").fetchone()
                start = int(row[0]) if row else 0
                last = start
                count = apply_events(db, self.store, self.engine.events(after=start, types=[
                    "session.started", "session.ended", "session.turn_recorded",
                    "session.summarized"]))
                head = self.engine.head
                last = max(last, head)
                db.execute("INSERT OR REPLACE INTO meta VALUES ('seq', ?)", (str(last),))
                db.execute("COMMIT")
                self._synced = last
                return count
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise

    def search(self, query: str, *, limit: int = 5, now: dt.datetime | None = None,
               exclude: Iterable[str] = (), recall: str | None = None,
               floor: bool = False) -> list[Hit]:
        """Sessions matching ``query``, best first, one hit per session: its best window
        by BM25 (in hybrid recall fused with the embeddings' cosine), lifted when the
        query names a date the session was active, times the recency weight
        (:mod:`memoir.recall.ranking`).  ``recall``: ``bm25``, ``dense`` or ``hybrid``
        in place of :attr:`mode` (for evaluations; the last two need the semantic
        extra).  ``floor``: only sessions about the query (what a prompt recalls): a
        query of function words alone finds nothing."""
        terms = query_terms(query)
        if not terms:
            raise ValidationError("the query is empty once its search operators are taken "
                                  "out; give some words to look for")
        mode = recall or self.mode
        if mode not in _MODES:
            raise ValidationError(f"recall {mode!r} is not one of {', '.join(_MODES)}")
        words = query_words(terms)
        if floor and not words:
            return []
        self.sync(embed=mode != "bm25")
        if self.engine.readonly and not self.path.exists():
            return []  # nothing indexed, and a read-only handle creates nothing
        weights = self._weights()
        when = now or self.engine.clock.now()
        skip = set(exclude)
        # Enough of the best documents to find `limit` sessions after one hit per session
        # and the recency weights (a plain LIMIT would miss sessions).
        scan = min(_SCAN, max(20, limit * 4 + len(skip)))
        rows = self._lexical(terms, words, query, scan, limit)
        if mode != "bm25":
            with self._lock:
                near = self._vector_index().nearest(self._connect(), query, scan,
                                                    also=[r[0] for r in rows])
            lean = IDENTIFIER_WEIGHT if any(is_identifier(w) for w in words) \
                else LEXICAL_WEIGHT
            found = fuse([] if mode == "dense" else rows, near.found, lexical_weight=lean,
                         min_cosine=_FUSE_COSINE)
        else:
            near = None
            found = [(rowid, sid, score, score, None) for rowid, sid, score in rows]
        info = self._sessions_of({row[1] for row in found})
        spans = date_spans(query, when)
        best: dict[str, tuple[float, float, tuple[Any, ...]]] = {}
        for candidate in found:
            sid = candidate[1]
            if sid in skip or sid not in info:
                continue
            # A time the query names says which sessions it means: it takes the place of
            # recency (what happened "in March" is not less wanted for being old).
            weight = (DATE_LIFT if _active_in(info[sid], spans) else 1.0) if spans \
                else recency_weight(info[sid][1], when, *weights)
            weighted = round(candidate[2] * weight, 12)
            if sid not in best or weighted > best[sid][0]:
                best[sid] = (weighted, weight, candidate)
        ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))
        ranked = ranked[:limit * 3 if floor else limit]
        docs = self._docs([chosen[2][0] for _sid, chosen in ranked])
        cover: list[float | None] = [None] * len(ranked)
        if floor:  # the share of the query's words each window holds, for the floor only
            vocab = self._terms([w for w in words if not spans or not names_date(w)])
            cover = [vocab.coverage(held) for held in
                     _tokenizer().terms([docs[c[2][0]][0] for _s, c in ranked])]
        shown = [t.strip('"').lower() for t in (words or terms)]
        keep = _recalled(floor, cover, [c[2][4] for _s, c in ranked], near)
        hits = []
        for (sid, (weighted, weight, (rowid, _sid, score, bm25, cosine))), share, kept in zip(
                ranked, cover, keep, strict=True):
            if not kept:
                continue  # a prompt is better without it
            started, last, platform, first = info[sid]
            text, kind, turn, role = docs[rowid]
            hits.append(Hit(sid, weighted, _round(bm25), weight, snippet(text, shown), kind,
                            turn, role, started, last, platform, title(first),
                            semantic=_round(cosine),
                            fused=_round(score) if mode != "bm25" else None, recall=mode,
                            coverage=None if share is None else round(share, 3),
                            excerpt=snippet(text, shown, mark=False), words=tuple(shown)))
        return hits[:limit]

    def _lexical(self, terms: list[str], words: list[str], query: str, scan: int,
                 limit: int) -> list[tuple[int, str, float]]:
        """The best documents by BM25: those holding every word of the query when they
        come from ``limit`` sessions (cheap: the shortest word list bounds the work), else
        those holding any of its words, planned by :func:`~memoir.recall.ranking.or_plan`."""
        if any(t in ("AND", "OR", "NOT") for t in terms):
            return self._match(" ".join(terms), query, scan)  # as the person wrote it
        chosen = words or terms
        rows = self._match(" ".join(chosen), query, scan)
        if len(chosen) < 2 or len({sid for _r, sid, _s in rows}) >= limit:
            return rows
        plan = or_plan(chosen, self._terms(chosen, every=True))
        found = {row[0]: row for expression in plan for row in self._match(expression, query, scan)}
        return sorted(found.values(), key=lambda row: (-row[2], row[0]))[:scan]

    def _terms(self, words: list[str], *, every: bool = False) -> Terms:
        with self._lock:
            return Terms(words, _tokenizer(), self._connect(), every=every)

    def _match(self, expression: str, query: str, scan: int) -> list[tuple[int, str, float]]:
        """(rowid, session, BM25 score) of the best documents (:class:`Parts`); their
        texts are read afterwards (a joined query measured 1.6x)."""
        try:
            with self._lock:
                return [(rowid, sid, -score) for rowid, sid, score in
                        self._parts.best(self._connect(), expression, scan)]
        except sqlite3.Error as exc:
            raise ValidationError(f"the query {query[:80]!r} could not be searched ({exc}); "
                                  "use plain words or \"a phrase\"") from None

    def _sessions_of(self, ids: set[str]) -> dict[str, tuple[str, str, str, str]]:
        """started_at, last_active, platform and first message of these sessions."""
        if not ids:
            return {}
        with self._lock:
            return {row[0]: row[1:] for row in self._connect().execute(
                "SELECT session_id, started_at, last_active, platform, "
                f"coalesce(first_message, '') FROM sessions WHERE session_id IN "
                f"({','.join('?' * len(ids))})", tuple(ids))}

    def _docs(self, rowids: list[int]) -> dict[int, tuple[str, str, int | None, str | None]]:
        """text, kind, turn and role of these documents."""
        if not rowids:
            return {}
        with self._lock:
            return {row[0]: row[1:] for row in self._connect().execute(
                "SELECT rowid, text, kind, turn, role FROM docs WHERE rowid IN "
                f"({','.join('?' * len(rowids))})", tuple(rowids))}

    def sessions(self, *, limit: int = 20) -> list[dict[str, Any]]:
        """Sessions by last activity, newest first."""
        self.sync()
        if self.engine.readonly and not self.path.exists():
            return []
        with self._lock:
            rows = self._connect().execute("SELECT session_id, started_at, ended_at, "
                                           "last_active, platform, "
                              "turns, summary, coalesce(first_message, '') FROM sessions "
                              "ORDER BY last_active DESC, session_id LIMIT ?",
                              (limit,)).fetchall()
        return [{"session": r[0], "started_at": r[1], "ended_at": r[2], "last_active": r[3],
                 "platform": r[4], "turns": r[5], "summary": r[6], "title": title(r[7])}
                for r in rows]

    def summaries(self, session_ids: Iterable[str]) -> dict[str, str]:
        """The summaries of these sessions (those that have one)."""
        ids = list(session_ids)
        if not ids or (self.engine.readonly and not self.path.exists()):
            return {}
        with self._lock:
            marks = ",".join("?" * len(ids))
            rows = self._connect().execute("SELECT session_id, summary FROM sessions "
                                           f"WHERE session_id IN ({marks})", ids).fetchall()
        return {sid: summary for sid, summary in rows if summary}

    def rows(self) -> list[tuple[Any, ...]]:
        """Every row of the index, in a stable order (for checks)."""
        with self._lock:
            db = self._connect()
            sessions = db.execute("SELECT * FROM sessions ORDER BY session_id").fetchall()
            sessions += db.execute("SELECT * FROM summary_docs ORDER BY session_id").fetchall()
            docs = db.execute("SELECT rowid, * FROM docs ORDER BY rowid").fetchall()
        return [*sessions, *docs]

    def _weights(self) -> tuple[tuple[tuple[float, float], ...], float]:
        config = self.engine.config.episodic
        return (tuple((float(d), float(w)) for d, w in config.recency_weights),
                float(config.older_weight))


def _recalled(floor: bool, cover: list[float | None], cosines: list[float | None],
              near: Any) -> list[bool]:
    """What a prompt (``floor``) recalls of the candidates, all of them for a search
    (:func:`~memoir.recall.ranking.prompt_keeps`); ``near``: the embeddings'
    :class:`~memoir.recall.vectors.Nearness`, None without them."""
    if not floor:
        return [True] * len(cosines)
    return prompt_keeps([c or 0.0 for c in cover], cosines,
                        None if near is None else (near.mean, near.std),
                        lambda s: near.stands_out(s, MIN_SURPRISE, MIN_COSINE))


def _active_in(info: tuple[str, ...], spans: list[tuple[dt.datetime, dt.datetime]]) -> bool:
    try:
        return in_spans(parse_ts(info[0]), parse_ts(info[1]), spans)
    except ValueError:
        return False


@functools.cache
def _tokenizer() -> Tokenizer:
    return Tokenizer(TOKENIZE)


def _round(value: float | None) -> float | None:
    """Six significant digits (BM25 scores of a small index are millionths)."""
    return None if value is None else float(f"{value:.6g}")


def _open_db(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    db.execute("BEGIN IMMEDIATE")
    try:
        tables = {name for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        layout = db.execute("SELECT value FROM meta WHERE key = 'layout'").fetchone() \
            if "meta" in tables else None
        if tables and (layout is None or layout[0] != LAYOUT):
            # Another layout (an older memoir's): made again from the journal.
            for name in ("docs_terms", "docs", "vectors", "last_turns", "summary_docs",
                         "sessions", "meta"):
                db.execute(f"DROP TABLE IF EXISTS {name}")
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        db.execute("INSERT OR IGNORE INTO meta VALUES ('layout', ?)", (LAYOUT,))
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        db.close()
        raise
    return db


def _unlink_links(home: Path) -> None:
    """SQLite opens by path: first make sure no link stands at the folder or at any of
    the index's files (one planted there is removed, never followed)."""
    with safefs.open_dir(home, ".memoir", create=True):
        pass
    for suffix in _SUFFIXES:
        if safefs.kind(home, _REL + suffix) not in ("file", "missing"):
            safefs.unlink(home, _REL + suffix)


def _sync_failed(exc: Exception, _retry_in: float | None) -> None:
    log.warning("background index sync failed", error=str(exc))


def index_of(engine: Home) -> SearchIndex:
    """The search index of a handle (one per handle, its connection kept open)."""
    found: SearchIndex | None = OPEN_INDEXES.get(engine)
    if found is None:
        store = TranscriptStore.of(engine, readonly=True)
        found = OPEN_INDEXES[engine] = SearchIndex(engine, store)
    return found


def delete_index(home: Path) -> None:
    """Remove the index file (it is rebuilt on the next search)."""
    for suffix in _SUFFIXES:
        safefs.unlink(home, _REL + suffix)
    delete_graph(home)
