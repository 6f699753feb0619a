"""The learning loop's costs (issue 10's targets), each against a same-run baseline.

* ``record_turn`` latency with reviews in the background (every turn makes a review
  due: ``memory.nudge_interval: 1``) against ``record_turn`` with reviewers off; p99 of
  per-call wall times, rounds alternating; target ≤ 1.5x.  Durability "always" for both.
* The rule reviewer over a 200-turn session (user messages from the labelled corpus,
  so it finds things and writes them): turns reviewed per second, target ≥ 1,000;
  baseline: :func:`memoir.reviewers.rules.extract` alone over the same texts.  The
  semantic reviewer (``reviewers.backend: auto``'s choice where the semantic extra is
  in use) over the same session, model loaded: target ≥ 200 turns/s; baseline: the
  rule reviewer.  The record_turn figure runs with the reviewer ``auto`` picks.
* Rebuilding a home whose journal holds recorded turns: a journal of 100,000 memory
  events, and the same with 100,000 ``session.turn_recorded`` events added (4 messages
  each; their bodies are not in the journal, and the transcript store is absent:
  rebuild must not read it).  Figure: ``Memoir.rebuild()`` time per memory event with
  the turns, against without.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

import memoir
from bench._corpus import _Writer
from bench._measure import Context, Figure, Target, median, scratch_dir
from memoir import semantic
from memoir.events.memory import EntryAdded, EntryRemoved
from memoir.events.sessions import MessageRef, SessionStarted, TurnRecorded
from memoir.events.types import Payload
from memoir.reviewers.review import Backend, Review, ReviewRequest
from memoir.reviewers.rules import RulesBackend, extract
from memoir.reviewers.semantic import SemanticBackend

NAME = "learning"
CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "review_corpus.jsonl"


def _texts() -> list[str]:
    return [json.loads(line)["text"] for line in CORPUS.read_text(encoding="utf-8").splitlines()]


def _turn(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}, {"role": "assistant", "content": "Noted."}]


def _latencies(home: Path, mode: str, texts: list[str], n: int,
               idle_ms: float = 250) -> list[float]:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(
        f"memory:\n  nudge_interval: 1\nreviewers:\n  mode: {mode}\n"
        f"  review_on_end: false\n  idle_ms: {idle_ms}\n", encoding="utf-8")
    out = []
    with memoir.open(home) as mem:
        session = mem.start_session()
        for i in range(n):
            turn = _turn(texts[i % len(texts)])
            started = time.perf_counter()
            session.record_turn(turn)
            out.append(time.perf_counter() - started)
    return out


def _p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98]


def _record_turn(ctx: Context) -> Figure:
    texts = _texts()
    n = ctx.pick(100, 300)
    background: list[float] = []
    off: list[float] = []
    beside: list[float] = []
    for r in range(ctx.pick(2, 4)):
        base = scratch_dir(ctx, f"{NAME}-turns-{r}")
        off += _latencies(base / "off", "off", texts, n)
        background += _latencies(base / "bg", "background", texts, n)
        beside += _latencies(base / "beside", "background", texts, n, idle_ms=0)
        ctx.log(f"  round {r + 1}: p99 background {_p99(background) * 1000:.2f} ms, "
                f"off {_p99(off) * 1000:.2f} ms, reviews running beside (idle_ms 0) "
                f"{_p99(beside) * 1000:.2f} ms")
    return Figure(NAME, "record_turn p99, reviews in background (a review due every turn)",
                  _p99(background) * 1000, "ms", "lower",
                  baseline_name="record_turn p99, reviewers off",
                  baseline_value=_p99(off) * 1000, target=Target("ratio", "<", 1.5001),
                  notes={"reviewer": "semantic" if semantic.available() else "rules",
                         "median_background_ms": median(background) * 1000,
                         "median_off_ms": median(off) * 1000, "calls": len(off),
                         "p99_reviews_beside_ms": _p99(beside) * 1000})


def _review_rate(ctx: Context, backend: Backend, turns: list[list[dict[str, Any]]],
                 label: str) -> float:
    """Turns per second of one review over ``turns`` (writes included), median of runs."""
    rates = []
    for r in range(ctx.pick(3, 5)):
        home = scratch_dir(ctx, f"{NAME}-{label}-{r}")
        (home / "config.yaml").write_text("reviewers:\n  mode: off\n", encoding="utf-8")
        with memoir.open(home) as mem:
            session = mem.start_session()
            session.record_turn([m for t in turns for m in t])
            review = Review(mem, ReviewRequest(session.id, 1, len(turns), ("memory",)),
                            "bench", "bench", turns, mem.view())
            started = time.perf_counter()
            backend.review(review)
            rates.append(len(turns) / (time.perf_counter() - started))
    return median(rates)


def _reviewers(ctx: Context) -> list[Figure]:
    texts = _texts()
    turns = [_turn(texts[i % len(texts)]) for i in range(200)]
    extracted: list[float] = []
    for _ in range(ctx.pick(3, 5)):
        started = time.perf_counter()
        for t in turns:
            extract(t[0]["content"])
        extracted.append(200 / (time.perf_counter() - started))
    rules = _review_rate(ctx, RulesBackend(), turns, "rules")
    ctx.log(f"  rule review {rules:,.0f} turns/s, extract alone "
            f"{median(extracted):,.0f} turns/s")
    figures = [Figure(NAME, "rule reviewer over a 200-turn session (writes included)",
                      rules, "turns/s", "higher",
                      baseline_name="rules.extract alone over the same texts",
                      baseline_value=median(extracted), target=Target("value", ">=", 1000))]
    if semantic.available():
        backend = SemanticBackend()
        backend.findings("Load the model first.")
        meaning = _review_rate(ctx, backend, turns, "semantic")
        ctx.log(f"  semantic review {meaning:,.0f} turns/s (model loaded)")
        figures.append(Figure(NAME, "semantic reviewer over a 200-turn session (writes "
                              "included, model loaded)", meaning, "turns/s", "higher",
                              baseline_name="the rule reviewer", baseline_value=rules,
                              target=Target("value", ">=", 200)))
    return figures


def _journal(path: Path, memory_events: int, turns: int) -> int:
    rng = random.Random(7)
    writer = _Writer(path, rng)
    writer.append([SessionStarted(session_id="s-bench")], actor="agent", session="s-bench")
    turn = 0
    per = max(1, turns // max(memory_events // 2, 1))
    for i in range(memory_events // 2):
        entry = f"e-{i:012x}"
        payloads: list[Payload] = [
            EntryAdded(target="memory", entry_id=entry, text=f"fact {i} " + "x" * 60),
            EntryRemoved(target="memory", entry_id=entry, previous=f"fact {i} " + "x" * 60,
                         position=0)]
        writer.append(payloads, actor="agent", session="s-bench")
        for _ in range(per):
            if turn >= turns:
                break
            turn += 1
            refs = tuple(MessageRef(role=role, ref=f"pack-000001:{turn * 400}:100:{'0' * 32}")
                         for role in ("user", "assistant", "tool", "assistant"))
            writer.append([TurnRecorded(session_id="s-bench", turn=turn, messages=refs)],
                          actor="agent", session="s-bench")
    writer.finish()
    return turn


def _rebuild(ctx: Context) -> Figure:
    memory_events = ctx.pick(20_000, 100_000)
    plain = scratch_dir(ctx, f"{NAME}-plain")
    with_turns = scratch_dir(ctx, f"{NAME}-turns")
    _journal(plain, memory_events, 0)
    recorded = _journal(with_turns, memory_events, memory_events)
    timings: dict[str, list[float]] = {"plain": [], "turns": []}
    for _ in range(ctx.pick(2, 3)):
        for name, home in (("plain", plain), ("turns", with_turns)):
            with memoir.open(home) as mem:
                started = time.perf_counter()
                mem.rebuild()
                timings[name].append(time.perf_counter() - started)
    per_plain = median(timings["plain"]) / memory_events * 1e6
    per_turns = median(timings["turns"]) / memory_events * 1e6
    ctx.log(f"  rebuild: {per_turns:.2f} us per memory event with {recorded:,} turns, "
            f"{per_plain:.2f} without")
    return Figure(NAME, f"rebuild per memory event, {memory_events:,} memory events + "
                  f"{recorded:,} recorded turns", per_turns, "us", "lower",
                  baseline_name="the same without the turns", baseline_value=per_plain,
                  notes={"rebuild_s_with_turns": median(timings["turns"]),
                         "rebuild_s_without": median(timings["plain"])})


def run(ctx: Context) -> list[Figure]:
    return [_record_turn(ctx), *_reviewers(ctx), _rebuild(ctx)]
