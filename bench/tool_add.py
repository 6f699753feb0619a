"""Durable ``memory`` adds through ``Session.call_tool`` vs Hermes's ``MemoryStore.add``.

Both sides do the same work as ``bench/hermes_baseline.py`` describes: distinct 60-char
entries, the default 2,200-char limit, adds in windows of as many entries as fit (34),
the store emptied between windows (untimed; memoir empties it with one batch ``remove``
call).  memoir runs with its default durability ("always": one fsync per add); Hermes
fsyncs its rewritten file on every add.  Both write to the same file system (``.bench``).

fsync speed on this disk varies from second to second, so rounds alternate memoir and
Hermes, with 1, 4 and 8 threads, and the medians are compared.  With several threads
memoir uses one shared ``Memoir`` handle and one session per thread (its commits share
fsyncs: group commit); Hermes uses one shared ``MemoryStore`` (no in-process mutex; its
per-call ``flock`` serializes the threads).  Both sides start the threads per window.
"""

from __future__ import annotations

import shutil
import threading
import time
from typing import Any

from bench._hermes import measure_hermes_add
from bench._measure import Context, Figure, Target, median, scratch_dir
from bench.hermes_baseline import adds_per_window, entry_text
from memoir.api import Memoir
from memoir.sessions.session import Session

NAME = "tool_add"
THREAD_COUNTS = (1, 4, 8)


class _MemoirAdds:
    """memoir's side of the windowed add benchmark, on one home."""

    def __init__(self, home: Memoir, sessions: list[Session]) -> None:
        self.home = home
        self.sessions = sessions
        self.next_entry = 10_000_000  # distinct from anything the Hermes side writes
        self.window = adds_per_window()

    def _add_all(self, session: Session, texts: list[str], out: list[dict[str, Any]]) -> None:
        for text in texts:
            out.append(session.call_tool("memory", {"action": "add", "target": "memory",
                                                    "content": text}))

    def _window(self, count: int, threads: int) -> float:
        texts = [entry_text(self.next_entry + k) for k in range(count)]
        self.next_entry += count
        results: list[dict[str, Any]] = []
        if threads == 1:
            started = time.perf_counter()
            self._add_all(self.sessions[0], texts, results)
            elapsed = time.perf_counter() - started
        else:
            workers = [
                threading.Thread(target=self._add_all,
                                 args=(self.sessions[k], texts[k::threads], results))
                for k in range(threads)
            ]
            started = time.perf_counter()
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            elapsed = time.perf_counter() - started
        refused = [r for r in results if r.get("message") != "Entry added."]
        if refused or len(results) != count:
            raise RuntimeError(f"a memoir add was not applied: {refused[:1]}")
        # Empty the store again (untimed), as the Hermes side empties its file.
        removed = self.sessions[0].call_tool("memory", {
            "target": "memory",
            "operations": [{"action": "remove", "old_text": t} for t in texts],
        })
        if not removed.get("success"):
            raise RuntimeError(f"could not empty the memoir store: {removed}")
        return elapsed

    def measure(self, adds: int, threads: int) -> float:
        """Adds per second over ``adds`` adds in windows."""
        seconds = 0.0
        remaining = adds
        while remaining > 0:
            count = min(self.window, remaining)
            seconds += self._window(count, threads)
            remaining -= count
        return adds / seconds


def run(ctx: Context) -> list[Figure]:
    window = adds_per_window()
    adds = window * ctx.pick(2, 10)
    rounds = ctx.pick(2, 5)
    folder = scratch_dir(ctx, NAME)
    home = Memoir(folder / "home")
    sessions = [home.start_session() for _ in range(max(THREAD_COUNTS))]
    side = _MemoirAdds(home, sessions)
    rates: dict[str, list[float]] = {
        f"{who}{t}": [] for t in THREAD_COUNTS for who in ("memoir", "hermes")
    }
    hermes_note = ""
    try:
        side.measure(window, 1)  # warm-up, not counted
        for r in range(rounds):
            for threads in THREAD_COUNTS:
                rates[f"memoir{threads}"].append(side.measure(adds, threads))
            if ctx.hermes_python is not None:
                for threads in THREAD_COUNTS:
                    result = measure_hermes_add(ctx.hermes_python, adds, directory=folder,
                                                threads=threads)
                    rates[f"hermes{threads}"].append(float(result["adds_per_s"]))
                    hermes_note = str(result.get("hermes_version", ""))
            ctx.log(f"  round {r + 1}/{rounds}: " + ", ".join(
                f"{k} {v[-1]:,.0f}/s" for k, v in rates.items() if v))
    finally:
        home.close()
        shutil.rmtree(folder, ignore_errors=True)

    def baseline(key: str) -> float | None:
        return median(rates[key]) if rates[key] else None

    common = {"adds_per_round": adds, "rounds": rounds, "entry_chars": len(entry_text(0)),
              "char_limit": 2200, "hermes_version": hermes_note or None}
    figures = []
    for threads in THREAD_COUNTS:
        label = "1 thread" if threads == 1 else f"{threads} threads, shared handle"
        figures.append(Figure(
            bench=NAME,
            name=f"Session.call_tool memory add, durable, {label}",
            value=median(rates[f"memoir{threads}"]),
            unit="adds/s",
            better="higher",
            baseline_name=f"Hermes MemoryStore.add, {threads} thread(s)",
            baseline_value=baseline(f"hermes{threads}"),
            target=Target("ratio", ">=", 3.0),
            notes={**common, "memoir_rates": [round(x, 1) for x in rates[f"memoir{threads}"]],
                   "hermes_rates": rates[f"hermes{threads}"]},
        ))
    return figures
