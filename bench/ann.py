"""Hybrid recall in a large home: the nearest-neighbour graph (issue 37 item 5).

The home: ``search.db`` in memoir's own layout with a million turn documents (100,000
with ``--quick``) in 100,000 sessions, written here directly (recording a million turns
through the journal would take most of an hour and measures nothing this benchmark is
about).  Each document is a chat turn built from templates (a question and an answer) with 12
more words drawn from a Zipf law (s = 1.1) over the 20,362 words of four letters or
more in the model's vocabulary — a real home's words are as skewed, and a corpus of a
few hundred template words would make every query word match a tenth of a million
documents; its vector is the real all-MiniLM-L6-v2 vector of one of 3,000 sentences the
documents are made from, mixed with a second one and a little noise, so the vectors
cluster as a real home's do without embedding a million texts.  A query is five words
of a template sentence and one drawn word.

* Building the graph from the stored vectors (``ann.maintain``, what a writer pays when
  a home passes 20,000 messages): messages per second (target >= 300), against
  decoding the same vectors from ``search.db`` alone.
* Hybrid ``session_search`` p95 over 200 queries in a fresh process (target <= 50 ms),
  against the same process's BM25-only search of the same index; and the process's RSS
  after them (target <= 600 MB), against the RSS of the exact search (the graph
  removed) of the same home — the design it replaces.
* Recall@10 of the graph's candidates after the exact rescoring, against the exact
  search's top ten (no target: the price of the graph, reported).
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import memoir
from bench._measure import Context, Figure, Target, scratch_dir
from memoir import semantic
from memoir.recall import vectors as ann
from memoir.recall.index import SearchIndex

NAME = "ann"
_THINGS = ["the nightly ETL job", "our staging database", "the payment service",
           "the React dashboard", "the CI pipeline", "the Kubernetes cluster",
           "my laptop's Docker setup", "the billing cron", "the search page",
           "the mobile app's login", "the data warehouse", "the email sender",
           "the GraphQL gateway", "the Terraform plan", "the Redis cache",
           "the sourdough starter", "my marathon plan", "the garden's tomato beds",
           "the quarterly tax return", "the wedding guest list", "the team offsite",
           "the podcast editing", "the kitchen renovation", "the Spanish lessons"]
_HAPPENINGS = ["keeps failing when", "got slow after", "started timing out since",
               "breaks only when", "was fixed by", "needs a review before",
               "leaks memory after", "logs a warning whenever", "was planned around",
               "went wrong after", "improved once", "cost twice as much after"]
_CAUSES = ["we upgraded to the new major release", "the batch size went above 5,000 rows",
           "someone rotated the API keys", "traffic doubled on Monday morning",
           "the disk filled with old images", "we switched the region to eu-west-1",
           "a flaky test retried three times", "the certificate expired overnight",
           "the feature flag was turned on", "the index on created_at was dropped",
           "the weather turned cold", "we moved the deadline to Friday",
           "the supplier changed the price list", "I started feeding it twice a day"]
_ANSWERS = ["Check the logs first and keep the change small.",
            "Roll back the last deploy and compare the configuration.",
            "Add a retry with backoff and an alert on the third failure.",
            "Write down what changed that day; it is usually the cause.",
            "Split the work into two steps and measure each one.",
            "Ask the owner before touching it again."]


_WORDS = [w for w in (Path(semantic.__file__).with_name("minilm_vocab.txt")
                      .read_text(encoding="utf-8").split())
          if len(w) >= 4 and w.isalpha() and w.islower()]


def _zipf(rng: Any, shape: tuple[int, ...]) -> Any:
    """Indexes into _WORDS drawn by a Zipf law (rank r with weight r ** -1.1)."""
    import numpy as np

    weights = np.arange(1, len(_WORDS) + 1, dtype=np.float64) ** -1.1
    return rng.choice(len(_WORDS), size=shape, p=weights / weights.sum())


def _sentences(count: int) -> list[str]:
    rng = random.Random(37)
    seen: dict[str, None] = {}
    while len(seen) < count:
        seen[f"{rng.choice(_THINGS).capitalize()} {rng.choice(_HAPPENINGS)} "
             f"{rng.choice(_CAUSES)}."] = None
    return list(seen)


def _populate(db: sqlite3.Connection, docs: int, pool: list[str], vectors: Any) -> None:
    import numpy as np

    rng = np.random.default_rng(5)
    sessions = docs // 10
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO sessions (session_id, started_at, last_active, platform, turns) "
        "VALUES (?, ?, ?, 'bench', 10)",
        [(f"s-{i:07d}", "2026-01-01T00:00:00Z", "2026-06-01T00:00:00Z")
         for i in range(sessions)])
    step = 50_000
    for start in range(0, docs, step):
        count = min(step, docs - start)
        first = rng.integers(0, len(pool), count)
        second = rng.integers(0, len(pool), count)
        mixed = vectors[first] + 0.35 * vectors[second] \
            + 0.02 * rng.standard_normal((count, vectors.shape[1])).astype(np.float32)
        mixed /= np.linalg.norm(mixed, axis=1, keepdims=True)
        half = mixed.astype(np.float16)
        answers = rng.integers(0, len(_ANSWERS), count)
        extra = _zipf(rng, (count, 12))
        rows = [(f"{pool[first[i]]} Also, {pool[second[i]].lower()}\n{_ANSWERS[answers[i]]} "
                 + " ".join(_WORDS[j] for j in extra[i]),
                 f"s-{(start + i) // 10:07d}", (start + i) % 10 + 1) for i in range(count)]
        db.executemany("INSERT INTO docs (rowid, text, session_id, kind, turn, role) "
                       "VALUES (?, ?, ?, 'turn', ?, NULL)",
                       [(start + i + 1, *row) for i, row in enumerate(rows)])
        db.executemany("INSERT INTO vectors VALUES (?, ?, ?)",
                       [(start + i + 1, rows[i][1], half[i].tobytes()) for i in range(count)])
    db.execute("INSERT OR REPLACE INTO meta VALUES ('vector_through', ?)", (str(docs),))
    db.execute("COMMIT")


def _home(ctx: Context, docs: int) -> tuple[Path, list[str]]:
    home = scratch_dir(ctx, NAME) / "home"
    home.mkdir(parents=True)
    (home / "config.yaml").write_text("reviewers:\n  mode: off\njournal:\n  durability: "
                                      "never\nepisodic:\n  semantic: on\n", encoding="utf-8")
    pool = _sentences(3_000)
    started = time.perf_counter()
    vectors = semantic.shared_encoder().encode(pool)
    ctx.log(f"  embedded the {len(pool):,} template sentences in "
            f"{time.perf_counter() - started:.0f} s")
    with memoir.open(home) as mem:
        index = SearchIndex(mem, mem.learning.transcripts)
        index.sync(embed=False)
        db = index._connect()
        db.execute("INSERT OR REPLACE INTO meta VALUES ('vector_model', ?)",
                   (semantic.shared_encoder().version,))
        started = time.perf_counter()
        _populate(db, docs, pool, vectors)
        ctx.log(f"  wrote {docs:,} turn documents and their vectors in "
                f"{time.perf_counter() - started:.0f} s")
        index.close()
    return home, pool


def _decode_all(path: Path) -> float:
    import numpy as np

    started = time.perf_counter()
    with sqlite3.connect(path) as db:
        after = 0
        while True:
            rows = db.execute("SELECT doc, vec FROM vectors WHERE doc > ? ORDER BY doc "
                              "LIMIT 20000", (after,)).fetchall()
            if not rows:
                break
            after = rows[-1][0]
            np.stack([np.frombuffer(v, dtype=np.float16).astype(np.float32)
                      for _d, v in rows])
    return time.perf_counter() - started


_CHILD = """
import json, random, statistics, sys, time
import memoir
from memoir.recall.index import SearchIndex
home, queries = sys.argv[1], json.loads(sys.argv[2])
mem = memoir.open(home, readonly=True)
index = SearchIndex(mem, mem.learning.transcripts)
started = time.perf_counter(); index.search(queries[0]); first = time.perf_counter() - started
times = {"hybrid": [], "bm25": []}
for query in queries:
    for recall in ("hybrid", "bm25"):
        t0 = time.perf_counter(); index.search(query, limit=5, recall=recall)
        times[recall].append(time.perf_counter() - t0)
near = index._vector_index()
db = index._connect()
tops = [[d for d, _s, _c in near.nearest(db, q, 10).found[:10]] for q in queries[:100]]
status = {l.split(":")[0]: int(l.split()[1]) for l in open("/proc/self/status")
          if l.startswith(("VmRSS", "RssAnon", "RssFile"))}
rss = status["VmRSS"]
p95 = {k: statistics.quantiles(v, n=100)[94] for k, v in times.items()}
print(json.dumps({"first": first, "p95": p95, "rss_mb": rss / 1024, "tops": tops,
                  "anon_mb": status.get("RssAnon", 0) / 1024,
                  "file_mb": status.get("RssFile", 0) / 1024,
                  "graph": near._graph is not None}))
"""


def _searches(home: Path, queries: list[str]) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(home), json.dumps(queries)],
                         capture_output=True, text=True, check=True,
                         env={**os.environ, "MEMOIR_DURABILITY": "never"})
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def run(ctx: Context) -> list[Figure]:
    if not (semantic.available() and ann.ann_available()):
        ctx.log("  skipped: needs the ann extra (usearch) and the semantic extra")
        return []
    docs = ctx.pick(100_000, 1_000_000)
    home, pool = _home(ctx, docs)
    folder = home / ".memoir"
    decode = _decode_all(folder / "search.db")
    encoder = semantic.shared_encoder()
    started = time.perf_counter()
    with sqlite3.connect(folder / "search.db", isolation_level=None) as db:
        what = ann.maintain(db, folder, encoder.version, encoder.dim)
    build = time.perf_counter() - started
    size = sum(f.stat().st_size for f in folder.glob("vectors-*.usearch"))
    ctx.log(f"  graph {what} over {docs:,} vectors in {build:.0f} s ({docs / build:,.0f}/s;"
            f" decoding them alone {decode:.1f} s); {size / 2**20:.0f} MB on disk")
    rng = random.Random(11)
    import numpy as np

    drawn = _zipf(np.random.default_rng(12), (200,))
    queries = [" ".join(rng.choice(pool).split()[:5]) + " " + _WORDS[drawn[i]]
               for i in range(200)]
    graph = _searches(home, queries)
    ann.delete_graph(home)
    exact = _searches(home, queries)
    hits = [len(set(g) & set(e)) / max(len(e), 1) for g, e in zip(graph["tops"],
                                                                 exact["tops"], strict=True)]
    recall = sum(hits) / len(hits)
    ctx.log(f"  graph: first search {graph['first']:.2f} s, hybrid p95 "
            f"{graph['p95']['hybrid'] * 1000:.1f} ms, BM25 {graph['p95']['bm25'] * 1000:.1f} "
            f"ms, RSS {graph['rss_mb']:.0f} MB ({graph['anon_mb']:.0f} anonymous, "
            f"{graph['file_mb']:.0f} file pages); exact: hybrid p95 "
            f"{exact['p95']['hybrid'] * 1000:.1f} ms, RSS {exact['rss_mb']:.0f} MB; "
            f"recall@10 of the graph {recall:.3f}")
    label = f"{docs:,} turn documents"
    return [
        Figure(NAME, f"graph build, {label}", docs / build, "messages/s", "higher",
               baseline_name="decoding the same vectors from search.db alone",
               baseline_value=docs / decode, target=Target("value", ">=", 300),
               notes={"graph_mb": round(size / 2**20)}),
        Figure(NAME, f"hybrid session_search p95 with the graph, {label}",
               graph["p95"]["hybrid"] * 1000, "ms", "lower",
               baseline_name="BM25-only search, same process",
               baseline_value=graph["p95"]["bm25"] * 1000,
               target=Target("value", "<=", 50),
               notes={"exact_hybrid_p95_ms": round(exact["p95"]["hybrid"] * 1000, 1),
                      "first_search_s": round(graph["first"], 2),
                      "recall_at_10_vs_exact": round(recall, 3),
                      "graph_used": graph["graph"]}),
        Figure(NAME, f"RSS after 400 searches with the graph, {label}", graph["rss_mb"],
               "MB", "lower", baseline_name="the same searches, exact (no graph)",
               baseline_value=exact["rss_mb"], target=Target("value", "<=", 600),
               notes={"anonymous_mb": round(graph["anon_mb"]),
                      "file_pages_mb": round(graph["file_mb"])}),
    ]
