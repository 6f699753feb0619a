"""Recall's costs (issue 11's targets), each against a same-run baseline.

The home: sessions of ``turns`` turns each (100,000 sessions / 1,000,000 turns in a full
run, 10,000 / 100,000 with ``--quick``), their messages in the transcript store, written
directly (``encode_record`` for the journal, as the corpus is; one pack for the bodies),
with a summary per session.  Texts are drawn from a vocabulary of 2,000 words so that
queries match many documents.

* Rebuilding the FTS index from the journal and the transcript store: turns per second
  (target ≥ 20,000), against decoding the same journal lines alone.
* ``session_search`` (discover mode) p95 over 200 two-word queries (target < 20 ms);
  baseline: a plain FTS5 ``MATCH … ORDER BY rank LIMIT 5`` on the same rows (target
  ≤ 1.5x of it).
* ``session.prompt(message)`` with 1,000 skills: p95 over 200 messages (target < 30 ms),
  against ``prompt_blocks()``.
* Recording a turn with a tool error against the same turn without (target ≤ 0.5 ms on
  top), medians over 300 calls each, durability ``never`` for both so the disk does not
  drown the difference.
"""

from __future__ import annotations

import json
import random
import sqlite3
import statistics
import time
from pathlib import Path

import memoir
from bench._corpus import _Writer
from bench._measure import Context, Figure, Target, median, scratch_dir
from memoir.events.sessions import MessageRef, SessionStarted, SessionSummarized, TurnRecorded
from memoir.events.types import Payload
from memoir.journal.transcripts import TranscriptStore
from memoir.recall.index import SearchIndex
from memoir.skills.tools import skill_manage_call

NAME = "recall"
_VOCAB = [f"w{i:04d}" for i in range(2000)]


def _sentence(rng: random.Random, n: int = 12) -> str:
    return " ".join(rng.choice(_VOCAB) for _ in range(n))


def _build(home: Path, sessions: int, turns: int, log: object) -> int:
    rng = random.Random(11)
    store = TranscriptStore.in_home(home, fsync=False)
    writer = _Writer(home, rng)
    total = 0
    for s in range(sessions):
        sid = f"s-{s:012x}"
        writer.append([SessionStarted(session_id=sid)], actor="agent", session=sid)
        bodies = []
        for _ in range(turns):
            bodies += [{"role": "user", "content": _sentence(rng)},
                       {"role": "assistant", "content": _sentence(rng, 20)}]
        refs = store.put(bodies)
        payloads: list[Payload] = []
        for t in range(turns):
            payloads.append(TurnRecorded(session_id=sid, turn=t + 1, messages=(
                MessageRef(role="user", ref=refs[2 * t]),
                MessageRef(role="assistant", ref=refs[2 * t + 1]))))
        payloads.append(SessionSummarized(session_id=sid, through_turn=turns,
                                          summary=_sentence(rng, 60)))
        writer.append(payloads, actor="agent", session=sid)
        total += turns
    writer.finish()
    return total


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[18]


def run(ctx: Context) -> list[Figure]:
    sessions = ctx.pick(10_000, 100_000)
    home = scratch_dir(ctx, NAME) / "home"
    home.mkdir(parents=True)
    (home / "config.yaml").write_text("reviewers:\n  mode: off\njournal:\n  durability: never\n"
                                      "episodic:\n  semantic: off\n",
                                      encoding="utf-8")
    started = time.perf_counter()
    turns = _build(home, sessions, 10, ctx.log)
    ctx.log(f"  built {sessions:,} sessions / {turns:,} turns in "
            f"{time.perf_counter() - started:.0f} s")
    figures: list[Figure] = []
    with memoir.open(home) as mem:
        index = SearchIndex(mem, mem.learning.transcripts)
        started = time.perf_counter()
        index.sync()
        build = time.perf_counter() - started
        started = time.perf_counter()
        for _event in mem.journal.read():
            pass
        decode = time.perf_counter() - started
        ctx.log(f"  index rebuild {turns / build:,.0f} turns/s; reading the journal alone "
                f"{turns / decode:,.0f} turns/s")
        figures.append(Figure(NAME, f"FTS index rebuild, {turns:,} turns", turns / build,
                              "turns/s", "higher", baseline_name="reading the same journal",
                              baseline_value=turns / decode, target=Target("value", ">=",
                                                                           20_000)))
        rng = random.Random(5)
        queries = [f"{rng.choice(_VOCAB)} {rng.choice(_VOCAB)}" for _ in range(200)]
        # Rounds alternate the two sides; each side's p95 per round, then the median
        # round (the disk cache and the machine's load move between rounds).
        ours_p95, raw_p95 = [], []
        db = sqlite3.connect(index.path)
        for r in range(ctx.pick(2, 3)):
            ours, raw = [], []
            for q in queries:
                t0 = time.perf_counter()
                index.search(q, limit=5)
                ours.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                db.execute("SELECT session_id FROM docs WHERE docs MATCH ? ORDER BY rank "
                           "LIMIT 5", (q,)).fetchall()
                raw.append(time.perf_counter() - t0)
            ours_p95.append(_p95(ours))
            raw_p95.append(_p95(raw))
            ctx.log(f"  round {r + 1}: session_search p95 {ours_p95[-1] * 1000:.2f} ms, raw "
                    f"FTS5 {raw_p95[-1] * 1000:.2f} ms")
        db.close()
        figures.append(Figure(NAME, f"session_search p95, {sessions:,} sessions",
                              median(ours_p95) * 1000, "ms", "lower",
                              baseline_name="FTS5 MATCH ... ORDER BY rank LIMIT 5",
                              baseline_value=median(raw_p95) * 1000,
                              target=Target("value", "<", 20)))
        for i in range(ctx.pick(200, 1000)):
            skill_manage_call(mem, {"action": "create", "name": f"skill-{i:04d}", "content":
                                    f"---\nname: skill-{i:04d}\ndescription: "
                                    f"{_sentence(rng, 8)}\n---\n{_sentence(rng, 80)}\n"}, by="user")
        session = mem.start_session()
        session.prompt("warm up")
        prompts, blocks = [], []
        for q in queries:
            t0 = time.perf_counter()
            session.prompt(q)
            prompts.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            session.prompt_blocks()
            blocks.append(time.perf_counter() - t0)
        ctx.log(f"  prompt p95 {_p95(prompts) * 1000:.1f} ms")
        figures.append(Figure(NAME, f"session.prompt p95, {len(mem.state.skills.skills):,} "
                              f"skills, {sessions:,} sessions", _p95(prompts) * 1000, "ms",
                              "lower", baseline_name="prompt_blocks()",
                              baseline_value=_p95(blocks) * 1000,
                              target=Target("value", "<", 30)))
    figures.append(_error_overhead(ctx))
    return figures


def _turn(error: bool, i: int) -> list[dict[str, object]]:
    result = {"success": False, "error": f"psql: could not connect to 10.0.0.{i % 250}:5432"} \
        if error else {"success": True}
    return [{"role": "user", "content": "run the migrations"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c", "type": "function",
                 "function": {"name": "terminal", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c", "content": json.dumps(result)},
            {"role": "assistant", "content": "done"}]


def _error_overhead(ctx: Context) -> Figure:
    times: dict[bool, list[float]] = {True: [], False: []}
    for r in range(ctx.pick(2, 3)):
        for error in (False, True):
            home = scratch_dir(ctx, f"{NAME}-errors-{r}-{error}")
            (home / "config.yaml").write_text("reviewers:\n  mode: off\njournal:\n"
                                              "  durability: never\nepisodic:\n"
                                              "  semantic: off\n", encoding="utf-8")
            with memoir.open(home) as mem:
                session = mem.start_session()
                for i in range(300):
                    turn = _turn(error, i)
                    t0 = time.perf_counter()
                    session.record_turn(turn)
                    times[error].append(time.perf_counter() - t0)
    extra = (median(times[True]) - median(times[False])) * 1000
    ctx.log(f"  record_turn with a tool error: +{extra:.3f} ms "
            f"({median(times[True]) * 1000:.3f} vs {median(times[False]) * 1000:.3f} ms)")
    return Figure(NAME, "record_turn with a tool error, on top of one without",
                  extra, "ms", "lower", baseline_name="record_turn without the error",
                  baseline_value=median(times[False]) * 1000,
                  target=Target("value", "<", 0.5001))
