"""The embeddings of the episodic index's documents: recall by meaning.

A derived index like the FTS5 table beside it, in the same ``.memoir/search.db``: a row
per turn document (``vectors``: the document's rowid, its session, 384 values in
float16 — float32 rows of earlier versions still read), never journaled.  Summaries get
none: made from the same messages by rules, they add words for BM25 but no meaning.
The model that made them is recorded (``meta.vector_model``); a different model, or a
deleted index, and they are made again from the documents (from the journal and the
transcript store), in batches, each its own transaction: an interrupted build keeps what
it finished, and a second process embedding at once neither repeats nor loses one.

Below :data:`ANN_FROM` vectors a search ranks them all, kept in memory as one matrix
(extended as documents are added), by cosine with the query's vector: exact.  Past it,
with the ``ann`` extra (usearch, docs/dependencies.md#approximate-nearest-neighbours), a
writer also keeps an HNSW graph beside ``search.db`` — ``vectors-<generation>.usearch``,
each vector's signs (48 bytes for 384 values, Hamming distance; int8 vectors before, 3x
the file, whose mapped pages all end up resident: docs/benchmarks.md) and the graph's
links — which every searching process memory-maps.  The graph only proposes candidates,
:data:`OVERSAMPLE` times what is asked: each is scored again with its stored vector, so
one replaced or dropped since the graph was built is scored as it is now or not at all,
and the order among the candidates is the exact one.

The graph file is derived and untrusted when read back: ``vectors.json`` names it with
its size and CRC-32, the model and dimension, the largest document in it and how many;
a file that does not match, is a link, or that usearch refuses is not used (the search
is exact) and the next writer builds it anew.  One writer at a time builds
(``vectors.lock``, never waited for); a new generation is written beside the old one
and ``vectors.json`` switched by a rename, so a reader maps the old file or the new one,
whole.  Documents embedded after the graph (up to :data:`EXTEND_AFTER`) are searched
exactly beside it until a writer adds them; that writer also removes dropped ones.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import json
import math
import os
import sqlite3
import stat
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoir.fs import safefs
from memoir.logs import get_logger
from memoir.semantic import Encoder

__all__ = ["ANN_FROM", "EXTEND_AFTER", "VECTOR_SCHEMA", "Graph", "Nearness", "VectorIndex",
           "ann_available", "delete_graph", "forget_vector", "index_class", "maintain",
           "open_graph", "stored"]

log = get_logger("memoir.recall")

VECTOR_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    doc INTEGER PRIMARY KEY, session_id TEXT NOT NULL, vec BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS vectors_gone (
    id INTEGER PRIMARY KEY AUTOINCREMENT, doc INTEGER NOT NULL
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
        self._base = 0  # the matrix holds the documents past this one (a graph the rest)
        self._graph: Graph | None = None

    def sync(self, db: sqlite3.Connection) -> int:
        """Embed the documents that have no vector; how many.  Vectors of another model
        are dropped first."""
        np = self._np
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
                                   [(rowid, sid, vectors[i].astype(np.float16).tobytes())
                                    for i, (rowid, sid, _t) in enumerate(rows)])
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('vector_through', ?)",
                               (str(rows[-1][0]),))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            if not rows:
                self._maintain(db)
                return done
            done += len(rows)

    def _maintain(self, db: sqlite3.Connection) -> None:
        """Build or update the nearest-neighbour graph when it is due (a large home)."""
        (largest,) = db.execute("SELECT coalesce(max(doc), 0) FROM vectors").fetchone()
        if largest < ANN_FROM:  # rowids count documents, so fewer vectors than this
            return
        try:
            maintain(db, _folder(db), self.encoder.version, self.encoder.dim)
        except (OSError, RuntimeError, ValueError, sqlite3.Error) as exc:
            # A derived file: the search goes on exactly, and the next writer tries again.
            log.warning("the nearest-neighbour graph could not be written", error=str(exc))

    def _check_model(self, db: sqlite3.Connection) -> None:
        row = db.execute("SELECT value FROM meta WHERE key = 'vector_model'").fetchone()
        if row is not None and row[0] == self.encoder.version:
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'vector_model'").fetchone()
            if row is None or row[0] != self.encoder.version:
                db.execute("DELETE FROM vectors")
                db.execute("DELETE FROM vectors_gone")
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
        spread.  In a home with a nearest-neighbour graph (above) the
        graph proposes candidates beside the documents embedded since it was built, and
        every candidate is scored with its stored vector; the spread is then estimated
        from a sample of the graph's vectors and the recent ones."""
        np = self._np
        graph = self._graph_of(db)
        self._refresh(db, graph.through if graph is not None else 0)
        total = len(self._rows) + (graph.count if graph is not None else 0)
        if not total:
            return Nearness([], 0.0, 0.0, 0)
        wanted = self.encoder.encode([query])[0]
        scores = cosines(np, self._matrix, wanted)
        found: dict[int, tuple[str, float]] = {}
        count = min(scan, len(scores))
        if count:
            for i in np.argpartition(-scores, count - 1)[:count]:
                found[int(self._rows[i])] = (self._sessions[i], float(scores[i]))
        asked = np.array(sorted(set(also)), dtype=np.int64)
        if len(asked) and len(self._rows):
            at = np.searchsorted(self._rows, asked)  # rows are ascending doc ids
            at = at[at < len(self._rows)]
            for i in at[self._rows[at] == asked[:len(at)]]:
                found[int(self._rows[i])] = (self._sessions[i], float(scores[i]))
        spread = scores
        if graph is not None:
            proposed = set(graph.candidates(wanted, max(min(OVERSAMPLE * scan, 2560), 640)))
            wanted_docs = [d for d in proposed | {int(a) for a in asked}
                           if d <= graph.through and d not in found]
            found.update(self._scored(db, wanted_docs, wanted))
            spread = np.concatenate([cosines(np, graph.sample, wanted), scores])
        if not len(spread):
            spread = np.zeros(1, dtype=np.float32)
        ranked = sorted(found, key=lambda doc: (-found[doc][1], doc))
        keep = set(ranked[:scan]) | {int(a) for a in asked}
        chosen = [(doc, found[doc][0], found[doc][1]) for doc in ranked if doc in keep]
        return Nearness(chosen, float(spread.mean()), float(spread.std()), total)

    def _scored(self, db: sqlite3.Connection, docs: list[int], wanted: Any
                ) -> dict[int, Any]:
        """The cosines of ``docs`` with ``wanted`` from their stored vectors, with their
        sessions (a document whose vector is gone or damaged is left out); with
        ``wanted`` None, the vectors themselves."""
        parts = [docs[start:start + 500] for start in range(0, len(docs), 500)]
        rows = [row for part in parts for row in db.execute(
            f"SELECT doc, session_id, vec FROM vectors WHERE doc IN ({','.join('?' * len(part))})",
            part)]
        # Decoded as one matrix: row by row, numpy's overhead was most of a search at a
        # million documents.
        kept, matrix = stored(self._np, rows, self.encoder.dim)
        if wanted is None:
            return {int(r[0]): matrix[i] for i, r in enumerate(kept)}
        near = cosines(self._np, matrix, wanted)
        return {int(r[0]): (r[1], float(near[i])) for i, r in enumerate(kept)}

    def _graph_of(self, db: sqlite3.Connection) -> Graph | None:
        """The home's graph, mapped once and again whenever ``vectors.json`` changes."""
        folder = _folder(db)
        current = graph_stamp(folder)
        if current is None:
            self._graph = None
        elif self._graph is None or self._graph.stamp != current:
            self._graph = open_graph(folder, self.encoder.version, self.encoder.dim)
            if self._graph is not None:
                # Read from search.db, not the graph: listing the graph's keys would
                # touch every page of the file.
                np, through = self._np, self._graph.through
                picked = sorted({int(d) for d in np.linspace(1, through, _SAMPLE)})
                rows = self._scored(db, picked, None)
                self._graph.sample = np.array(list(rows.values()), dtype=np.float32
                                              ).reshape(-1, self.encoder.dim)
        return self._graph

    def _refresh(self, db: sqlite3.Connection, base: int) -> None:
        """Bring the matrix in memory up to the table: the vectors of documents past
        ``base`` (those a graph does not hold; all without one), the new rows appended,
        or all read again when rows were removed or replaced."""
        np = self._np
        if base != self._base:
            self._base, self._loaded = base, (-1, -1)
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
                          "ORDER BY doc", (max(after, base),)).fetchall()
        kept, matrix = stored(np, rows, self.encoder.dim)
        order = np.argsort(np.array([r[0] for r in kept], dtype=np.int64), kind="stable")
        matrix = matrix[order]
        docs_in = np.array([r[0] for r in kept], dtype=np.int64)[order]
        sessions = [kept[i][1] for i in order]
        if after >= 0:
            self._matrix = np.concatenate([self._matrix, matrix])
            self._rows = np.concatenate([self._rows, docs_in])
            self._sessions = self._sessions + sessions
        else:
            self._matrix, self._rows, self._sessions = matrix, docs_in, sessions
        self._loaded = (largest, removed)


def _folder(db: sqlite3.Connection) -> Path:
    """The folder of ``db``'s file (where the graph files are kept)."""
    for _seq, name, file in db.execute("PRAGMA database_list"):
        if name == "main":
            return Path(file).parent
    raise ValueError("the search index has no file")


def forget_vector(db: sqlite3.Connection, doc: int) -> None:
    """Drop a document's vector (its document was replaced), counted, so that a search
    holding the matrix in memory reads it again (the document's rowid may come back)."""
    db.execute("DELETE FROM vectors WHERE doc = ?", (doc,))
    db.execute("INSERT INTO vectors_gone (doc) VALUES (?)", (doc,))
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


#: From this many vectors, a home's searches go through the graph (when installed).
ANN_FROM = 20_000
#: Vectors embedded after the graph, or dropped from it, before a writer updates it.
EXTEND_AFTER = 5_000
META_FILE = "vectors.json"
LOCK_FILE = "vectors.lock"
_PREFIX, _SUFFIX = "vectors-", ".usearch"
#: HNSW's parameters: links per node, and the breadth of the search when adding and
#: when searching (bench/ann.py measured recall@10 against exact search with these).
CONNECTIVITY, EXPANSION_ADD, EXPANSION_SEARCH = 16, 128, 256
#: Candidates proposed per one asked (binary codes rank coarsely), and what the graph
#: holds of each vector: its signs, one bit per value (``vectors.json`` says so).
OVERSAMPLE, CODES = 32, "b1"
_GRAPH_BATCH = 20_000
_SAMPLE = 2048


@functools.cache
def ann_available() -> bool:
    """Whether usearch (the ``ann`` extra) can be imported."""
    return importlib.util.find_spec("usearch") is not None


def stored(np: Any, rows: Sequence[tuple[Any, ...]], dim: int) -> tuple[list[Any], Any]:
    """The rows (doc, session, stored vector) whose vector is whole, and those vectors as
    one float32 matrix in that order: float16 as written, float32 as memoir wrote before
    0.9; a blob of another size (a damaged row) is left out, and a NaN or infinite value
    is 0 (a damaged vector ranks nowhere rather than everywhere)."""
    kept: list[Any] = []
    parts = []
    for width, dtype in ((2 * dim, np.float16), (4 * dim, np.float32)):
        fresh = [r for r in rows if isinstance(r[2], bytes) and len(r[2]) == width]
        parts.append(np.frombuffer(b"".join(r[2] for r in fresh), dtype=dtype)
                     .reshape(len(fresh), dim).astype(np.float32))
        kept += fresh
    return kept, np.nan_to_num(np.concatenate(parts), nan=0.0, posinf=0.0, neginf=0.0)


def cosines(np: Any, matrix: Any, vector: Any) -> Any:
    """``matrix @ vector`` without BLAS: OpenBLAS splits a large product over threads
    that then spin for a while, taking the host's cores (and a search's other half,
    :mod:`memoir.recall.parts`); einsum's own loop is as fast for one vector."""
    return np.einsum("ij,j->i", matrix, vector)


def index_class() -> Any:
    """usearch's ``Index``, loaded after ONNX Runtime.  Loaded first, usearch's extension
    makes the later import of onnxruntime crash the process (a segmentation fault, every
    time: usearch 2.26 with onnxruntime 1.32), so memoir never loads it first; the ``ann``
    extra brings the ``semantic`` one."""
    import onnxruntime  # noqa: F401
    from usearch.index import Index

    return Index


@dataclass
class Graph:
    """A mapped, checked graph file and what ``vectors.json`` says of it."""

    index: Any
    through: int
    count: int
    sample: Any  # float32 vectors of documents spread over it (for the cosines' spread)
    stamp: tuple[int, int]  # vectors.json's (mtime_ns, size) when read

    def candidates(self, query: Any, count: int) -> list[int]:
        """The ``count`` documents the graph finds nearest to ``query`` (unit length)."""
        import numpy as np

        # on this thread: one query gains nothing from usearch's pool (memoir.recall.parts)
        found = self.index.search(binary_code(np, query), min(count, self.count), threads=1)
        return [int(key) for key in found.keys]


def _meta(folder: Path) -> tuple[dict[str, Any], tuple[int, int]] | None:
    try:
        st = os.lstat(folder / META_FILE)
        if not _regular(st) or st.st_size > 4096:
            return None
        meta = json.loads((folder / META_FILE).read_bytes())
    except (OSError, ValueError):
        return None
    return (meta, (st.st_mtime_ns, st.st_size)) if isinstance(meta, dict) else None


def _ours(meta: dict[str, Any], model: str, dim: int) -> bool:  # else built again
    return meta.get("model") == model and meta.get("dim") == dim \
        and meta.get("codes") == CODES


def _regular(st: os.stat_result) -> bool:
    return stat.S_ISREG(st.st_mode)


def _fields(meta: dict[str, Any]) -> tuple[str, int, int, int, int, int] | None:
    """(file name, size, crc, through, count, gone_seen) from a parsed ``vectors.json``,
    or None when any is missing or of the wrong kind."""
    name = meta.get("file")
    numbers = [meta.get(key) for key in ("bytes", "crc32", "through", "count", "gone_seen")]
    if not (isinstance(name, str) and name.startswith(_PREFIX) and name.endswith(_SUFFIX)
            and "/" not in name and all(type(n) is int and n >= 0 for n in numbers)):
        return None
    size, crc, through, count, gone = numbers
    return name, size, crc, through, count, gone  # type: ignore[return-value]


def graph_stamp(folder: Path) -> tuple[int, int] | None:
    """``vectors.json``'s (mtime, size): whether a mapped graph is still the current."""
    try:
        st = os.lstat(folder / META_FILE)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def open_graph(folder: Path, model: str, dim: int) -> Graph | None:
    """Map the graph ``vectors.json`` names, if it is whole, of ``model`` and ``dim``;
    None otherwise (no extra, no file, a file that does not match its record)."""
    if not ann_available():
        return None
    read = _meta(folder)
    if read is None:
        return None
    meta, when = read
    fields = _fields(meta)
    if fields is None or not _ours(meta, model, dim):
        return None
    name, size, crc, through, count, _gone = fields
    path = folder / name
    try:
        st = os.lstat(path)
        if not _regular(st) or st.st_size != size or _crc(path) != crc:
            return None
        index = index_class().restore(str(path), view=True)
    except (OSError, RuntimeError, ValueError) as exc:
        log.warning("the nearest-neighbour graph is not used", file=name, error=str(exc))
        return None
    if index is None or len(index) != count or index.ndim != dim:
        return None
    index.expansion_search = EXPANSION_SEARCH
    return Graph(index, through, count, None, when)


def _crc(path: Path) -> int:
    crc = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 22):
            crc = zlib.crc32(chunk, crc)
    return crc


def maintain(db: Any, folder: Path, model: str, dim: int) -> str | None:
    """Build the graph, or bring it up to ``db``'s vectors, when it is due: none yet and
    :data:`ANN_FROM` vectors, or :data:`EXTEND_AFTER` embedded or dropped since.  What
    was done (``built``/``extended``), or None.  Skipped when another process holds the
    lock (it is doing the same) or the extra is missing."""
    if not ann_available():
        return None
    try:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        with safefs.file_lock(dfd, LOCK_FILE, timeout=0):
            return _maintain(db, folder, dfd, model, dim)
    except BlockingIOError:  # another writer holds the lock: it is doing this
        return None
    finally:
        os.close(dfd)


def _maintain(db: Any, folder: Path, dfd: int, model: str, dim: int) -> str | None:
    import numpy as np

    Index = index_class()
    read = _meta(folder)
    fields = _fields(read[0]) if read is not None and _ours(read[0], model, dim) else None
    through, gone_seen = (fields[3], fields[5]) if fields else (0, 0)
    (tail,) = db.execute("SELECT count(*) FROM vectors WHERE doc > ?", (through,)).fetchone()
    (gone_max,) = db.execute("SELECT coalesce(max(id), 0) FROM vectors_gone").fetchone()
    gone = db.execute("SELECT id, doc FROM vectors_gone WHERE id > ? AND id <= ? "
                      "ORDER BY id", (gone_seen, gone_max)).fetchall() if fields else []
    if fields is None:
        if tail < ANN_FROM:
            return None
        gone_seen = gone_max  # what was dropped before is not in the new graph
        index, what = _new_index(Index, dim), "built"
    elif tail < EXTEND_AFTER and len(gone) < EXTEND_AFTER:
        return None
    else:
        old = folder / fields[0]
        if len(gone) > _GRAPH_BATCH or _crc(old) != fields[2]:  # rebuilt from the table
            index, what, through = _new_index(Index, dim), "built", 0
            gone, gone_seen = [], gone_max
        else:
            restored = Index.restore(str(old), view=False)
            if restored is None:
                raise RuntimeError(f"usearch could not read {fields[0]}")
            index, what = restored, "extended"
            index.expansion_add = EXPANSION_ADD
    back: list[int] = []
    for _rowid, doc in gone:
        if doc <= through and doc in index:
            index.remove(doc)
        back.append(int(doc))
    # A dropped document whose rowid came back holds a new vector: it goes in again.
    sizes = (2 * dim, 4 * dim)
    again = [(d, v) for start in range(0, len(back), 500)
             for d, v in _rows(db, back[start:start + 500])
             if d <= through and isinstance(v, bytes) and len(v) in sizes]
    largest = through
    for batch in _batches(db, through, again, dim):
        kept, vectors = stored(np, [(d, None, v) for d, v in batch], dim)
        keys = np.array([r[0] for r in kept], dtype=np.uint64)  # in the matrix's order
        index.add(keys, binary_code(np, vectors), threads=os.cpu_count() or 1)
        largest = max(largest, int(keys.max()))
    generation = int(fields[0][len(_PREFIX):-len(_SUFFIX)]) + 1 if fields else 1
    name = f"{_PREFIX}{generation}{_SUFFIX}"
    temp = f".{name}.tmp"
    # usearch writes by path: the temporary name is made a new regular file first
    # (never a link someone left there), then filled, then renamed into place.
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temp, dir_fd=dfd)
    os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644,
                     dir_fd=dfd))
    try:
        index.save(str(folder / temp))
        os.replace(temp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dfd)
        raise
    record = {"file": name, "bytes": os.stat(name, dir_fd=dfd).st_size,
              "crc32": _crc(folder / name), "model": model, "dim": dim,
              "through": largest, "count": len(index), "codes": CODES,
              "gone_seen": gone[-1][0] if gone else gone_seen}
    meta_temp = safefs.write_temp(dfd, json.dumps(record).encode(), fsync=False)
    os.replace(meta_temp, META_FILE, src_dir_fd=dfd, dst_dir_fd=dfd)
    db.execute("DELETE FROM vectors_gone WHERE id <= ?", (record["gone_seen"],))
    for stale in os.listdir(dfd):
        if stale.startswith(_PREFIX) and stale.endswith(_SUFFIX) and stale != name:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(stale, dir_fd=dfd)
    log.info("nearest-neighbour graph " + what, vectors=len(index), file=name)
    return what


def _new_index(Index: Any, dim: int) -> Any:
    return Index(ndim=dim, metric="hamming", dtype="b1", connectivity=CONNECTIVITY,
                 expansion_add=EXPANSION_ADD, expansion_search=EXPANSION_SEARCH)


def binary_code(np: Any, vectors: Any) -> Any:
    """The graph's code of each row of ``vectors``: its signs (above 0: 1), packed."""
    return np.packbits(vectors > 0, axis=-1)


def _rows(db: Any, docs: list[int]) -> list[tuple[int, bytes]]:
    return [(int(d), v) for d, v in db.execute(
        f"SELECT doc, vec FROM vectors WHERE doc IN ({','.join('?' * len(docs))})", docs)]


def _batches(db: Any, after: int, first: list[tuple[int, bytes]], dim: int) -> Any:
    """The vectors past ``after`` in batches (``first`` before them), damaged rows left
    out."""
    sizes = (2 * dim, 4 * dim)
    if first:
        yield first
    while True:
        rows = db.execute("SELECT doc, vec FROM vectors WHERE doc > ? ORDER BY doc LIMIT ?",
                          (after, _GRAPH_BATCH)).fetchall()
        if not rows:
            return
        after = rows[-1][0]
        batch = [(int(d), v) for d, v in rows if isinstance(v, bytes) and len(v) in sizes]
        if batch:
            yield batch


def delete_graph(home: Path) -> None:
    """Remove a home's graph files (they are made again when due; the lock file stays,
    as a writer may hold it)."""
    for name in safefs.listdir(home, ".memoir"):
        if name == META_FILE or (name.startswith(_PREFIX)
                                              and name.endswith(_SUFFIX)):
            safefs.unlink(home, f".memoir/{name}")
