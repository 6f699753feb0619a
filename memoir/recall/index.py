"""The episodic index: SQLite FTS5 over session summaries and turn text, a projection of
the journal and the transcript store.

``.memoir/search.db`` holds one row per session (when, where from, how many turns, its
summary and tags) and an FTS5 table of documents: each summary, and the user and
assistant text of each recorded turn.  It follows the journal: :meth:`SearchIndex.sync`
indexes the session events appended since the seq it last indexed (stored in the same
transaction as the rows, so a crash never leaves half a sync), and every search syncs
first.  Deleted, it is rebuilt from the journal and the transcript store, in journal
order, so the rows and the ranking are the same.

Ranking: FTS5's BM25 (higher is better here), times a recency weight of the session's
last activity (``episodic.recency_weights``: 2.0 within 7 days, 1.5 within 30, 1.0
within 90, 0.7 older — seed 004's defaults), best document per session.  In hybrid
recall (``episodic.semantic``, the semantic extra) the BM25 ranking and the ranking by
cosine similarity of the messages' embeddings (:mod:`memoir.recall.vectors`, in the
same file) are fused by reciprocal rank before the recency weight.

Queries are cleaned as Hermes cleans them (spec §5.2): at most 2,048 characters,
balanced "phrases" kept, FTS5 operators stripped, a dangling AND/OR/NOT dropped, and a
token holding ``.``, ``-`` or ``_`` quoted; whatever still fails is a
:class:`ValidationError`, never an SQLite error.
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
import sqlite3
import tempfile
import threading
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoir import lazyre, semantic
from memoir.clock import parse_ts
from memoir.engine.port import Home
from memoir.errors import NotFoundError, ValidationError
from memoir.events.sessions import (
    SessionEnded,
    SessionStarted,
    SessionSummarized,
    TurnRecorded,
)
from memoir.events.types import Event
from memoir.fs import safefs
from memoir.journal.transcripts import TranscriptStore
from memoir.logs import get_logger
from memoir.messages import message_text
from memoir.recall.vectors import VECTOR_SCHEMA, VectorIndex, forget_vector
from memoir.semantic import recall_mode
from memoir.worker import Worker

__all__ = ["Hit", "SearchIndex", "clean_query", "delete_index", "index_if_open", "index_of",
           "recency_weight"]

log = get_logger("memoir.recall")

SEARCH_FILE = "search.db"
_REL = f".memoir/{SEARCH_FILE}"
#: The database and the files SQLite keeps beside it.
_SUFFIXES = ("", "-wal", "-shm", "-journal")
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
    tokenize = 'unicode61'
);
""" + VECTOR_SCHEMA
_MAX_QUERY = 2048
_OPERATORS = lazyre.compile(r'[+{}():^"]')
_SCAN = 300
#: Reciprocal-rank fusion's constant (Cormack et al.: 60).
_RRF_K = 60
#: The embeddings rank a document from this cosine up: below it, texts of
#: all-MiniLM-L6-v2 share no subject (unrelated pairs measured 0.0-0.2), and a prompt
#: would recall a session for nothing.
MIN_COSINE = 0.3

#: Seed 004's recency weights: (days, weight), newest first; older than the last: 0.7.
DEFAULT_WEIGHTS: tuple[tuple[float, float], ...] = ((7, 2.0), (30, 1.5), (90, 1.0))
OLDER_WEIGHT = 0.7


def clean_query(query: str) -> str:
    """An FTS5 MATCH expression from what a person typed (see the module docstring)."""
    return " ".join(query_terms(query))


def query_terms(query: str) -> list[str]:
    """The terms of :func:`clean_query`: words and quoted phrases."""
    text = query[:_MAX_QUERY]
    phrases = re.findall(r'"([^"]+)"', text)
    text = re.sub(r'"[^"]*"', " ", text)
    text = _OPERATORS.sub(" ", text)
    text = re.sub(r"\*+", "*", text)
    words = []
    for token in text.split():
        token = token.lstrip("*")
        if not token or token == "-":
            continue
        if re.search(r"[.\-_/@#$%&=<>,;!?~`'\\[\]|]", token):
            inner = re.sub(r'[^\w.\-_/@]+', " ", token).strip()
            if inner:
                words.append(f'"{inner}"')
            continue
        words.append(token)
    terms = [*(f'"{p.strip()}"' for p in phrases if p.strip()), *words]
    while terms and terms[0] in ("AND", "OR", "NOT"):
        terms.pop(0)
    while terms and terms[-1] in ("AND", "OR", "NOT"):
        terms.pop()
    return terms


def recency_weight(last_active: str, now: dt.datetime,
                   weights: Iterable[tuple[float, float]] = DEFAULT_WEIGHTS,
                   older: float = OLDER_WEIGHT) -> float:
    try:
        age = (now - parse_ts(last_active)).total_seconds() / 86400
    except ValueError:
        return older
    for days, weight in weights:
        if age <= days:
            return weight
    return older


@dataclass(frozen=True)
class Hit:
    """A session a search found: its best document, scored.  ``score`` is what ranks:
    the document's BM25 score (or, in hybrid recall, its fused score) times the
    session's recency ``weight``; ``semantic`` is its cosine similarity with the query
    (``None`` in BM25 recall or when the embeddings did not rank it), ``fused`` its
    reciprocal-rank fusion score, and ``bm25`` is ``None`` when only the embeddings
    found it."""

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

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


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
        return recall_mode(self.engine.config.episodic.semantic)

    def sync(self) -> int:
        """Index the session events appended since the last sync, and in hybrid recall
        embed the documents that have no vector yet; how many events.  A handle opened
        read-only writes nothing: it searches the index as it is."""
        if self.engine.readonly and self._scratch is None:
            return 0
        count = self._sync_text()
        if self.mode == "hybrid" and self._embedded != self._synced:
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
                count = 0
                last = start
                for event in self.engine.events(after=start, types=[
                        "session.started", "session.ended", "session.turn_recorded",
                        "session.summarized"]):
                    self._apply(db, event)
                    count += 1
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

    def _apply(self, db: sqlite3.Connection, event: Event) -> None:
        data = event.data
        if isinstance(data, SessionStarted):
            db.execute("INSERT OR IGNORE INTO sessions (session_id, started_at, last_active, "
                       "platform) VALUES (?, ?, ?, ?)",
                       (data.session_id, data.started_at or event.ts,
                        data.started_at or event.ts, data.platform))
        elif isinstance(data, SessionEnded):
            db.execute("UPDATE sessions SET ended_at = ? WHERE session_id = ?",
                       (event.ts, data.session_id))
        elif isinstance(data, SessionSummarized):
            db.execute("UPDATE sessions SET summary = ?, tags = ? WHERE session_id = ?",
                       (data.summary, " ".join(data.tags), data.session_id))
            # A session's summary is replaced by rowid (an FTS5 column cannot be looked
            # up without scanning every document).
            old = db.execute("SELECT doc FROM summary_docs WHERE session_id = ?",
                             (data.session_id,)).fetchone()
            if old is not None:
                db.execute("DELETE FROM docs WHERE rowid = ?", (old[0],))
                forget_vector(db, old[0])
            cursor = db.execute("INSERT INTO docs VALUES (?, ?, 'summary', NULL, NULL)",
                                (f"{data.summary}\n{' '.join(data.tags)}", data.session_id))
            db.execute("INSERT OR REPLACE INTO summary_docs VALUES (?, ?)",
                       (data.session_id, cursor.lastrowid))
        elif isinstance(data, TurnRecorded):
            at = next((m.at for m in data.messages if m.at), None) or event.ts
            wanted = [m for m in data.messages if m.role in ("user", "assistant")]
            try:
                bodies = self.store.get_many([m.ref for m in wanted])
            except (NotFoundError, ValidationError, ValueError):
                bodies = []  # a lost or damaged body: the turn is indexed without it
            first = None
            for ref, body in zip(wanted, bodies, strict=False):
                text = message_text(body)
                if text.strip():
                    db.execute("INSERT INTO docs VALUES (?, ?, 'turn', ?, ?)",
                               (text, data.session_id, data.turn, ref.role))
                    if ref.role == "user" and first is None:
                        first = text
            db.execute("UPDATE sessions SET turns = ?, last_active = max(last_active, ?), "
                       "first_message = coalesce(first_message, ?) WHERE session_id = ?",
                       (data.turn, at, first, data.session_id))

    def search(self, query: str, *, limit: int = 5, now: dt.datetime | None = None,
               exclude: Iterable[str] = (), recall: str | None = None) -> list[Hit]:
        """Sessions matching ``query``, best first, one hit per session: BM25 (in hybrid
        recall fused with the embeddings' ranking) times the recency weight.
        ``recall``: ``bm25``, ``dense`` or ``hybrid`` in place of :attr:`mode` (for
        evaluations; ``dense`` and ``hybrid`` need the semantic extra)."""
        terms = query_terms(query)
        if not terms:
            raise ValidationError("the query is empty once its search operators are taken "
                                  "out; give some words to look for")
        self.sync()
        if self.engine.readonly and not self.path.exists():
            return []  # nothing indexed, and a read-only handle creates nothing
        weights = self._weights()
        when = now or self.engine.clock.now()
        skip = set(exclude)
        # Enough of the best documents to find `limit` sessions after one hit per session
        # and the recency weights (a plain LIMIT would miss sessions).
        scan = min(_SCAN, max(20, limit * 4 + len(skip)))
        rows = self._match(" ".join(terms), query, scan)
        if not rows and len(terms) > 1:
            # Every word in one message found nothing: any of them, ranked, will do
            # (people rarely search with the words they used).
            rows = self._match(" OR ".join(t for t in terms if t not in ("AND", "OR", "NOT")),
                               query, scan)
        mode = recall or self.mode
        if mode in ("hybrid", "dense"):
            if self._embedded != self._synced:
                with self._lock:
                    self._vector_index().sync(self._connect())
                    self._embedded = self._synced
            with self._lock:
                near = self._vector_index().nearest(self._connect(), query, scan)
            found = _fuse([] if mode == "dense" else rows, near)
        else:
            found = [(rowid, sid, score, score, None) for rowid, sid, score in rows]
        info = self._sessions_of({row[1] for row in found})
        best: dict[str, tuple[float, float, tuple[Any, ...]]] = {}
        for candidate in found:
            sid = candidate[1]
            if sid in skip or sid not in info:
                continue
            weight = recency_weight(info[sid][1], when, *weights)
            weighted = round(candidate[2] * weight, 6)
            if sid not in best or weighted > best[sid][0]:
                best[sid] = (weighted, weight, candidate)
        ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))[:limit]
        docs = self._docs([chosen[2][0] for _sid, chosen in ranked])
        words = [t.strip('"').lower() for t in terms if t not in ("AND", "OR", "NOT")]
        hits = []
        for sid, (weighted, weight, (rowid, _sid, score, bm25, cosine)) in ranked:
            started, last, platform, first = info[sid]
            text, kind, turn, role = docs[rowid]
            hits.append(Hit(sid, weighted, _round(bm25), weight, _snippet(text, words), kind,
                            turn, role, started, last, platform, _title(first),
                            semantic=_round(cosine),
                            fused=round(score, 6) if mode != "bm25" else None,
                            recall=mode))
        return hits

    def _match(self, expression: str, query: str, scan: int) -> list[tuple[int, str, float]]:
        """(rowid, session, BM25 score) of the best documents.  Ordering by ``bm25()``
        and reading the texts and sessions of the few chosen rows afterwards measured
        1.27x a bare ``ORDER BY rank LIMIT 5`` (one joined query: 1.6x)."""
        try:
            with self._lock:
                return [(rowid, sid, -score) for rowid, sid, score in self._connect().execute(
                    "SELECT rowid, session_id, bm25(docs) FROM docs WHERE docs MATCH ? "
                    "ORDER BY bm25(docs) LIMIT ?", (expression, scan))]
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
                 "platform": r[4], "turns": r[5], "summary": r[6], "title": _title(r[7])}
                for r in rows]

    def summaries(self, session_ids: Iterable[str]) -> dict[str, str]:
        """The summaries of these sessions (those that have one)."""
        ids = list(session_ids)
        if not ids or (self.engine.readonly and not self.path.exists()):
            return {}
        with self._lock:
            marks = ",".join("?" * len(ids))
            rows = self._connect().execute(
                f"SELECT session_id, summary FROM sessions WHERE session_id IN ({marks})",
                ids).fetchall()
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


def _fuse(lexical: list[tuple[int, str, float]], near: list[tuple[int, str, float]]
          ) -> list[tuple[int, str, float, float | None, float | None]]:
    """Reciprocal-rank fusion of the BM25 and the embedding rankings: (rowid, session,
    fused score, BM25 score, cosine) per document either found.  The embeddings vote
    only for documents at or above :data:`MIN_COSINE`: below it they say "unrelated",
    and a rank among unrelated documents would only add noise to BM25's."""
    fused: dict[int, list[Any]] = {}
    for rank, (rowid, sid, score) in enumerate(lexical):
        fused[rowid] = [rowid, sid, 1 / (_RRF_K + rank + 1), score, None]
    for rank, (rowid, sid, cosine) in enumerate(near):
        if cosine < MIN_COSINE:
            break  # best first: the rest are no nearer
        if rowid in fused:
            fused[rowid][2] += 1 / (_RRF_K + rank + 1)
            fused[rowid][4] = cosine
        else:
            fused[rowid] = [rowid, sid, 1 / (_RRF_K + rank + 1), None, cosine]
    return [(r[0], r[1], r[2], r[3], r[4]) for r in fused.values()]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _snippet(text: str, words: list[str], size: int = 14) -> str:
    """About ``size`` words of ``text`` around the first match, matches in [brackets]."""
    tokens = text.split()
    found = re.compile("|".join(re.escape(w) for w in words if w) or "(?!)", re.IGNORECASE)
    at = next((i for i, t in enumerate(tokens) if found.search(t)), 0)
    start = max(0, at - size // 3)
    window = tokens[start:start + size]
    marked = [f"[{t}]" if found.search(t) else t for t in window]
    return ("…" if start else "") + " ".join(marked) + ("…" if start + size < len(tokens)
                                                       else "")


def _title(first: str) -> str:
    line = " ".join(first.split())
    return line if len(line) <= 60 else line[:59] + "…"


def _open_db(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    db.executescript(_SCHEMA)
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


_INDEXES: weakref.WeakKeyDictionary[Home, SearchIndex] = weakref.WeakKeyDictionary()


def index_of(engine: Home) -> SearchIndex:
    """The search index of a handle (one per handle, its connection kept open)."""
    found = _INDEXES.get(engine)
    if found is None:
        store = TranscriptStore.of(engine, readonly=True)
        found = _INDEXES[engine] = SearchIndex(engine, store)
    return found


def index_if_open(engine: Home) -> SearchIndex | None:
    """The handle's search index when it has one (:func:`index_of` made it)."""
    return _INDEXES.get(engine)


def delete_index(home: Path) -> None:
    """Remove the index file (it is rebuilt on the next search)."""
    for suffix in _SUFFIXES:
        safefs.unlink(home, _REL + suffix)
