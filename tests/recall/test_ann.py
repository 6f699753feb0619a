"""The nearest-neighbour graph of a large home (memoir.recall.vectors): built by a writer
once a home passes ANN_FROM vectors (lowered here), extended as turns come, proposing
candidates that are scored with their stored vectors, so it finds what the exact search
finds; a damaged, foreign or linked file is never used; float16 storage and the float32
vectors of earlier versions both read."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import memoir
from memoir.recall import vectors as ann
from memoir.recall.index import SearchIndex, delete_index
from tests.support.semantic import needs_semantic

pytestmark = [needs_semantic, pytest.mark.usefixtures("semantic_allowed"),
              pytest.mark.skipif(not ann.ann_available(), reason="the ann extra (usearch)")]

_TOPICS = ["postgres replication lag", "the css grid layout", "kubernetes pod evictions",
           "the nightly etl batch", "python packaging with hatch", "redis eviction policy",
           "terraform state locking", "oauth token refresh", "the garden compost heap",
           "a sourdough starter that will not rise", "a marathon training plan",
           "the tax return deadline"]


@pytest.fixture(autouse=True)
def _small(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")
    monkeypatch.setattr(ann, "ANN_FROM", 30)
    monkeypatch.setattr(ann, "EXTEND_AFTER", 10)


def _config(home: Path) -> None:
    (home / "config.yaml").write_text("reviewers:\n  mode: off\nepisodic:\n  semantic: on\n",
                                      encoding="utf-8")


def _talk(mem: memoir.Memoir, user: str, reply: str) -> str:
    with mem.start_session() as session:
        session.record_turn([{"role": "user", "content": user},
                             {"role": "assistant", "content": reply}])
        return session.id


def _home(home: Path, count: int = 48) -> dict[str, list[str]]:
    _config(home)
    ids: dict[str, list[str]] = {}
    with memoir.open(home) as mem:
        for i in range(count):
            topic = _TOPICS[i % len(_TOPICS)]
            ids.setdefault(topic, []).append(_talk(
                mem, f"Question {i} about {topic}: what should I check first?",
                f"For {topic}, start with what changed before run {i}."))
    return ids


def _meta(home: Path) -> dict[str, object]:
    return dict(json.loads((home / ".memoir" / ann.META_FILE).read_text()))


def _search(home: Path, query: str) -> list[str]:
    with memoir.open(home) as mem:
        index = SearchIndex(mem, mem.learning.transcripts)
        try:
            return [hit.session for hit in index.search(query, limit=5)]
        finally:
            index.close()


def test_a_large_home_searches_through_the_graph_and_finds_what_exact_search_finds(
        home: Path) -> None:
    ids = _home(home)
    with memoir.open(home) as mem:
        index = SearchIndex(mem, mem.learning.transcripts)
        found = [h.session for h in index.search("bread dough that does not rise", limit=5)]
        vectors = index._vector_index()
        assert vectors._graph is not None and vectors._graph.count == 48
        near = vectors.nearest(index._connect(), "bread dough that does not rise", 10)
        index.close()
    meta = _meta(home)
    assert meta["count"] == 48 and (home / ".memoir" / str(meta["file"])).is_file()
    assert set(found[:4]) == set(ids["a sourdough starter that will not rise"])
    delete_index(home)  # the graph goes with the index, and exact search gives the same
    assert not (home / ".memoir" / ann.META_FILE).exists()
    with memoir.open(home) as mem:
        index = SearchIndex(mem, mem.learning.transcripts)
        index.sync()
        graph_less = index._vector_index()
        db = index._connect()
        (home / ".memoir" / ann.META_FILE).unlink()  # searched exactly this time
        exact = graph_less.nearest(db, "bread dough that does not rise", 10)
        index.close()
    assert [d for d, _s, _c in near.found] == [d for d, _s, _c in exact.found]
    assert [round(c, 5) for _d, _s, c in near.found] == \
        [round(c, 5) for _d, _s, c in exact.found]


def test_turns_after_the_graph_are_found_and_then_added_to_it(home: Path) -> None:
    _home(home)
    first = _meta(home)
    with memoir.open(home) as mem:
        index = SearchIndex(mem, mem.learning.transcripts)
        late = _talk(mem, "When should I shear the llamas?", "Shear them in late spring.")
        index.sync()
        assert _meta(home) == first  # one new vector: searched beside the graph
        assert index.search("llama wool cutting season", limit=1)[0].session == late
        for i in range(10):
            _talk(mem, f"Another question about chess openings {i}", "Play e4.")
        index.search("llama wool cutting season")
        index.close()
    second = _meta(home)
    assert second["count"] == 59 and second["file"] != first["file"]
    assert not (home / ".memoir" / str(first["file"])).exists()  # the old one is removed
    assert _search(home, "llama wool cutting season")[0] == late


def test_a_replaced_vector_is_scored_as_it_is_now(home: Path) -> None:
    """A dropped document (a summary replaced, a vector forgotten) may still sit in the
    graph: its stored vector decides, and a missing one takes it out."""
    ids = _home(home)
    target = ids["oauth token refresh"][0]
    with sqlite3.connect(home / ".memoir" / "search.db") as db:
        db.execute("DELETE FROM vectors WHERE session_id = ?", (target,))
        db.execute("INSERT INTO meta VALUES ('vector_removals', '1') ON CONFLICT(key) DO "
                   "UPDATE SET value = CAST(value AS INTEGER) + 1")
    with memoir.open(home) as mem:
        index = SearchIndex(mem, mem.learning.transcripts)
        index.sync()
        near = index._vector_index().nearest(index._connect(), "oauth token refresh", 20)
        assert index._vector_index()._graph is not None
        index.close()
    assert target not in {sid for _d, sid, _c in near.found}


@pytest.mark.parametrize("damage", ["flip", "truncate", "foreign", "link"])
def test_a_graph_file_that_does_not_match_its_record_is_not_used(
        home: Path, tmp_path: Path, damage: str) -> None:
    ids = _home(home)
    meta = _meta(home)
    path = home / ".memoir" / str(meta["file"])
    data = bytearray(path.read_bytes())
    if damage == "flip":
        for at in range(200, len(data), 97):
            data[at] ^= 0x5A
        path.write_bytes(bytes(data))
    elif damage == "truncate":
        path.write_bytes(bytes(data[: len(data) // 2]))
    elif damage == "foreign":
        record = dict(meta, model="another-model/1")
        (home / ".memoir" / ann.META_FILE).write_text(json.dumps(record))
    else:
        outside = tmp_path / "outside.usearch"
        outside.write_bytes(bytes(data))
        path.unlink()
        path.symlink_to(outside)
    with memoir.open(home) as mem:
        index = SearchIndex(mem, mem.learning.transcripts)
        vectors = index._vector_index()
        db = index._connect()
        assert vectors._graph_of(db) is None  # refused before usearch maps it
        hits = index.search("bread dough that does not rise", limit=4)
        assert {h.session for h in hits} == set(ids["a sourdough starter that will not rise"])
        index.close()
    if damage == "link":
        assert outside.read_bytes() == bytes(data)  # never written through


def test_a_graph_that_cannot_be_written_never_fails_a_search(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The graph is derived: a full disk while saving it leaves no half-written file,
    and the searches go on exactly."""
    Index = ann.index_class()  # usearch is never loaded before onnxruntime (see there)

    def full(self: object, path: str) -> None:
        with open(path, "wb") as handle:
            handle.write(b"partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Index, "save", full)
    ids = _home(home)
    assert _search(home, "bread dough that does not rise")[0] in \
        ids["a sourdough starter that will not rise"]
    assert not any(n.endswith((".usearch", ".tmp")) or n == ann.META_FILE
                   for n in os.listdir(home / ".memoir"))


def test_usearch_is_never_loaded_before_onnxruntime() -> None:
    """Loaded the other way round the process dies (see ``index_class``)."""
    code = ("from memoir.recall import vectors\nvectors.index_class()\n"
            "import onnxruntime\nprint('alive')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "alive", out.stderr[-2000:]


def test_the_next_writer_rebuilds_a_damaged_graph(home: Path) -> None:
    _home(home)
    meta = _meta(home)
    path = home / ".memoir" / str(meta["file"])
    path.write_bytes(path.read_bytes()[:100])
    with memoir.open(home) as mem:
        for i in range(10):
            _talk(mem, f"A question about chess openings {i}", "Play the Italian.")
        index = SearchIndex(mem, mem.learning.transcripts)
        index.search("chess")
        assert index._vector_index()._graph is not None
        index.close()
    assert _meta(home)["count"] == 58


def test_vectors_are_stored_in_float16_and_float32_ones_still_read(home: Path) -> None:
    import numpy as np

    ids = _home(home, count=12)  # below the graph's threshold: exact search
    with sqlite3.connect(home / ".memoir" / "search.db") as db:
        rows = db.execute("SELECT doc, vec FROM vectors").fetchall()
        assert {len(v) for _d, v in rows} == {2 * 384}
        # What memoir wrote before: float32.  Widened, it reads the same.
        db.executemany("UPDATE vectors SET vec = ? WHERE doc = ?", [
            (np.frombuffer(v, dtype=np.float16).astype(np.float32).tobytes(), d)
            for d, v in rows[::2]])
    assert not (home / ".memoir" / ann.META_FILE).exists()
    found = _search(home, "bread dough that does not rise")
    assert found[0] in ids["a sourdough starter that will not rise"]


def test_float16_changes_a_cosine_by_less_than_a_thousandth() -> None:
    import numpy as np

    rng = np.random.default_rng(1)
    vectors = rng.standard_normal((2000, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    query = vectors[0] + 0.5 * vectors[1]
    query /= np.linalg.norm(query)
    exact = vectors @ query
    half = vectors.astype(np.float16).astype(np.float32) @ query
    assert float(np.abs(exact - half).max()) < 1e-3


def test_two_writers_build_one_graph(home: Path) -> None:
    """Two processes maintaining at once: one builds (the lock is never waited for),
    the other leaves it, and the graph is whole."""
    _config(home)
    with memoir.open(home) as mem:
        for i in range(40):
            _talk(mem, f"Question {i} about {_TOPICS[i % 12]}", "Look at the logs.")
        index = SearchIndex(mem, mem.learning.transcripts)
        index.sync(embed=True)
        index.close()
    ann.delete_graph(home)
    code = ("import sys, sqlite3\nfrom pathlib import Path\n"
            "from memoir.recall import vectors as ann\n"
            "from memoir import semantic\nann.ANN_FROM = 30\n"
            "folder = Path(sys.argv[1]) / '.memoir'\n"
            "enc = semantic.shared_encoder()\nsys.stdin.readline()\n"
            "db = sqlite3.connect(folder / 'search.db', isolation_level=None)\n"
            "print(ann.maintain(db, folder, enc.version, enc.dim))\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(home)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True) for _ in range(2)]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    results = sorted(proc.communicate(timeout=300)[0].strip() for proc in procs)
    assert results == ["None", "built"]
    meta = _meta(home)
    assert meta["count"] == 40
    graphs = [n for n in os.listdir(home / ".memoir") if n.endswith(".usearch")]
    assert graphs == [meta["file"]]
    assert ann.open_graph(home / ".memoir", str(_model()), 384) is not None


def _model() -> str:
    from memoir import semantic

    return semantic.shared_encoder().version


def test_a_graph_of_int8_vectors_is_not_used_and_the_next_writer_builds_codes(
        home: Path) -> None:
    """A graph written before the binary codes (``vectors.json`` without ``"codes"``) is
    searched around (exactly), then built again, coded, by the next writer."""
    _home(home)
    meta = _meta(home)
    assert meta["codes"] == ann.CODES == "b1"
    graph = ann.index_class().restore(str(home / ".memoir" / str(meta["file"])), view=True)
    assert "b1" in str(graph.dtype).lower() and "hamming" in str(graph.metric).lower()
    del meta["codes"]
    (home / ".memoir" / ann.META_FILE).write_text(json.dumps(meta), encoding="utf-8")
    with memoir.open(home, readonly=True) as mem:
        index = SearchIndex(mem, mem.learning.transcripts)
        assert index.search("bread dough")
        assert index._vector_index()._graph is None  # not ours: searched exactly
        index.close()
    with memoir.open(home) as mem:
        index = SearchIndex(mem, mem.learning.transcripts)
        index.search("bread dough")  # a writer builds it again before it searches
        assert index._vector_index()._graph is not None
        index.close()
    assert _meta(home)["codes"] == "b1"  # written again by this version


def test_a_binary_code_is_the_signs_of_the_vector_packed() -> None:
    import numpy as np

    vectors = np.array([[0.5, -0.1, 0.0, 2.0, -3.0, 0.01, -0.2, 0.3, 1.0]], dtype=np.float32)
    assert ann.binary_code(np, vectors).tolist() == [[0b10010101, 0b10000000]]


def test_a_graph_built_over_float16_and_float32_rows_keys_each_vector_to_its_document(
        home: Path) -> None:
    """A batch holding both widths is decoded width by width: every key of the graph must
    still hold its own document's code."""
    import numpy as np

    _home(home)
    ann.delete_graph(home)
    with sqlite3.connect(home / ".memoir" / "search.db") as db:
        rows = db.execute("SELECT doc, vec FROM vectors ORDER BY doc").fetchall()
        db.executemany("UPDATE vectors SET vec = ? WHERE doc = ?", [
            (np.frombuffer(v, dtype=np.float16).astype(np.float32).tobytes(), d)
            for d, v in rows[::3]])
        rows = db.execute("SELECT doc, session_id, vec FROM vectors ORDER BY doc").fetchall()
    with memoir.open(home) as mem:
        index = SearchIndex(mem, mem.learning.transcripts)
        index.search("chess")  # the writer builds the graph from the mixed rows
        graph = index._vector_index()._graph
        assert graph is not None and graph.count == len(rows)
        kept, matrix = ann.stored(np, rows, 384)
        assert len(kept) == len(rows)
        for (doc, _sid, _vec), vector in zip(kept, matrix, strict=True):
            assert graph.index.get(doc).tolist() == ann.binary_code(np, vector).tolist()
        index.close()
