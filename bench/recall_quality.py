"""How well recall finds what was said (issue 37), on sets written apart from the ranking.

The sets are ``tests/data/recall_sets/`` (made by ``tests/data/recall_sets_source.py``):
24 long multi-session chats with 659 questions (kinds ``single``, ``update``,
``temporal``, ``multi``), one haystack of 240 agent work sessions with 179 questions by
identifier, error text or description, and 240 questions about nothing any session
discusses.  Each haystack is a real home: its sessions recorded through the public API
with their dates, searched through :class:`~memoir.recall.index.SearchIndex` as of a
week after the last session.

Figures, per set and per query kind: recall@1/3/5/10 (a question counts when one of its
answering sessions is among the first k; ``all@10`` when every one is) for BM25 alone,
the embeddings alone and hybrid (the last two with the semantic extra), against a plain
SQLite FTS5 table over the same messages (default tokenizer, the question's words
OR-ed, ranked by ``bm25()``) measured in the same run; the share of off-topic questions
for which a prompt recalls nothing; search p95.  ``--quick`` takes 8 of the 24 chats.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
import statistics
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import memoir
from bench._measure import Context, Figure, Target, scratch_dir
from memoir import semantic
from memoir.recall.index import SearchIndex

NAME = "recall_quality"
SETS = Path(__file__).resolve().parent.parent / "tests" / "data" / "recall_sets"
KS = (1, 3, 5, 10)


def load(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in
            (SETS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]


def build_home(home: Path, haystack: dict[str, Any], *, semantic_setting: str) -> dt.datetime:
    """A home holding ``haystack``'s sessions; the moment its questions are asked."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(
        "reviewers:\n  mode: off\njournal:\n  durability: never\nepisodic:\n"
        f"  semantic: {semantic_setting}\n", encoding="utf-8")
    last = dt.datetime.min.replace(tzinfo=dt.UTC)
    with memoir.open(home) as mem:
        for session in haystack["sessions"]:
            began = dt.datetime.fromisoformat(session["started_at"].replace("Z", "+00:00"))
            with mem.start_session(session_id=session["id"],
                                   started_at=session["started_at"]) as live:
                for i, (user, assistant) in enumerate(session["turns"]):
                    at = (began + dt.timedelta(minutes=2 * i)).isoformat()
                    live.record_turn([{"role": "user", "content": user, "timestamp": at},
                                      {"role": "assistant", "content": assistant,
                                       "timestamp": at}])
            last = max(last, began)
    return last + dt.timedelta(days=7)


def plain_fts5(haystack: dict[str, Any]) -> sqlite3.Connection:
    """The baseline: one row per message, the default tokenizer."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE m USING fts5(body, session UNINDEXED)")
    db.executemany("INSERT INTO m VALUES (?, ?)",
                   [(text, s["id"]) for s in haystack["sessions"] for turn in s["turns"]
                    for text in turn])
    return db


def plain_search(db: sqlite3.Connection, question: str, k: int) -> list[str]:
    words = " OR ".join(f'"{w}"' for w in re.findall(r"\w+", question.casefold()))
    top: list[str] = []
    if not words:
        return top
    for (session,) in db.execute("SELECT session FROM m WHERE m MATCH ? ORDER BY bm25(m)",
                                 (words,)):
        if session not in top:
            top.append(session)
        if len(top) == k:
            break
    return top


class Tally:
    """Hits per (mode, kind) at each k, and search times per mode."""

    def __init__(self) -> None:
        self.hits: dict[tuple[str, str], list[list[bool]]] = defaultdict(list)
        self.times: dict[str, list[float]] = defaultdict(list)

    def add(self, mode: str, kind: str, answers: Iterable[str], found: list[str]) -> None:
        wanted = set(answers)
        row = [bool(wanted & set(found[:k])) for k in KS]
        row.append(wanted <= set(found[:10]))
        self.hits[(mode, kind)].append(row)
        self.hits[(mode, "all")].append(row)

    def recall(self, mode: str, kind: str = "all", k: int = 5) -> float:
        rows = self.hits.get((mode, kind), [])
        column = KS.index(k) if k in KS else len(KS)
        return sum(r[column] for r in rows) / len(rows) if rows else float("nan")

    def count(self, mode: str, kind: str = "all") -> int:
        return len(self.hits.get((mode, kind), []))

    def kinds(self) -> list[str]:
        return sorted({kind for _mode, kind in self.hits})


def evaluate(home: Path, haystack: dict[str, Any], questions: list[dict[str, Any]],
             now: dt.datetime, modes: Iterable[str], tally: Tally) -> None:
    """Ask ``questions`` of the home in each mode, and of the plain FTS5 table."""
    plain = plain_fts5(haystack)
    for q in questions:
        tally.add("fts5", q["kind"], q["answers"], plain_search(plain, q["question"], 10))
    with memoir.open(home) as mem:
        index = SearchIndex(mem, mem.learning.transcripts)
        index.sync()
        for mode in modes:
            index.search("warm up", limit=10, now=now, recall=mode)
            for q in questions:
                started = time.perf_counter()
                hits = index.search(q["question"], limit=10, now=now, recall=mode)
                tally.times[mode].append(time.perf_counter() - started)
                tally.add(mode, q["kind"], q["answers"], [h.session for h in hits])
                prompt = index.search(q["question"], limit=3, now=now, recall=mode,
                                      floor=True)
                tally.add(f"{mode}+floor", q["kind"], q["answers"],
                          [h.session for h in prompt])
        index.close()


def offtopic_silent(home: Path, questions: list[dict[str, Any]], now: dt.datetime,
                    mode: str, limit: int = 5) -> list[bool]:
    """Per question: nothing recalled, as a prompt recalls (the relevance floor)."""
    out = []
    with memoir.open(home) as mem:
        index = SearchIndex(mem, mem.learning.transcripts)
        for q in questions:
            out.append(not index.search(q["question"], limit=limit, now=now, recall=mode,
                                        floor=True))
        index.close()
    return out


def run(ctx: Context) -> list[Figure]:
    hybrid = semantic.available()
    modes = ["bm25", "dense", "hybrid"] if hybrid else ["bm25"]
    if not hybrid:
        ctx.log("  the semantic extra is not installed: BM25 only")
    chats = load("longchat")[: ctx.pick(8, 24)]
    chat_questions = load("longchat_questions")
    offtopic = load("offtopic_questions")
    root = scratch_dir(ctx, NAME)
    sets = {"longchat": Tally(), "agent": Tally()}
    silent: dict[str, list[bool]] = defaultdict(list)
    started = time.perf_counter()
    for haystack in [*chats, *load("agent")]:
        name = haystack["haystack"]
        home = root / name
        now = build_home(home, haystack, semantic_setting="on" if hybrid else "off")
        if name == "agent":
            asked = load("agent_questions")
            evaluate(home, haystack, asked, now, modes, sets["agent"])
            continue
        asked = [q for q in chat_questions if q["haystack"] == name]
        evaluate(home, haystack, asked, now, modes, sets["longchat"])
        mine = [q for q in offtopic if q["haystack"] == name]
        for mode in modes:
            silent[mode] += offtopic_silent(home, mine, now, mode)
    ctx.log(f"  {len(chats)} chats and the agent sessions built and asked in "
            f"{time.perf_counter() - started:.0f} s")
    figures = []
    for set_name, tally in sets.items():
        for kind in tally.kinds():
            for mode in modes:
                cells = "  ".join(f"@{k} {tally.recall(mode, kind, k):.3f}" for k in KS)
                ctx.log(f"  {set_name:9} {kind:16} {mode:6} n={tally.count(mode, kind):4} "
                        f"{cells}  all@10 {tally.recall(mode, kind, 11):.3f}")
            ctx.log(f"  {set_name:9} {kind:16} {'fts5':6} n={tally.count('fts5', kind):4} "
                    + "  ".join(f"@{k} {tally.recall('fts5', kind, k):.3f}" for k in KS))
        best_part = max(tally.recall(m) for m in modes if m != "hybrid") \
            if hybrid else tally.recall("bm25")
        for mode in modes:
            figures.append(Figure(NAME, f"{set_name} recall@5, {mode}", tally.recall(mode),
                                  "share", "higher", baseline_name="plain FTS5",
                                  baseline_value=tally.recall("fts5"),
                                  target=Target("ratio", ">=", 1.0)))
        if hybrid:
            ctx.log(f"  {set_name}: hybrid {tally.recall('hybrid'):.3f} against its best "
                    f"part {best_part:.3f}")
    for set_name, tally in sets.items():
        for mode in modes:
            figures.append(Figure(NAME, f"{set_name} recall@3 as a prompt recalls, {mode}",
                                  tally.recall(f"{mode}+floor", k=3), "share", "higher",
                                  baseline_name="the same without the floor",
                                  baseline_value=tally.recall(mode, k=3),
                                  target=Target("ratio", ">=", 0.99)))
    for mode in modes:
        quiet = silent[mode]
        figures.append(Figure(NAME, f"off-topic questions recalling nothing, {mode}",
                              sum(quiet) / len(quiet), "share", "higher",
                              target=Target("value", ">=", 0.95)))
        times = sets["longchat"].times[mode] + sets["agent"].times[mode]
        figures.append(Figure(NAME, f"search p95, {mode}",
                              statistics.quantiles(times, n=20)[18] * 1000, "ms",
                              "lower", target=Target("value", "<", 30)))
    return figures
