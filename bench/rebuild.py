"""Full rebuild of a large journal vs merely decoding its lines, and the rebuild's peak RSS.

The journal is the cached corpus (``bench/_corpus.py``: 1,000,000 events, 100,000 with
``--quick``), copied to a scratch home.  Timed:

* ``Memoir.rebuild()`` on an open handle: reads every record, checks the hash chain,
  folds the state from scratch, renders and writes the projected files, saves a
  checkpoint.
* ``State().apply_all(FileJournal(path).read())`` on a journal object opened just
  before, which is what a tool without a handle would write (for contrast, no target).
* Baseline: ``Decoder().decode(line)`` for every line, read the way ``FileJournal``
  reads (``os.pread`` of 4 MiB chunks split on newlines), and nothing else.

Rounds alternate baseline and rebuild; medians reported.  Peak RSS is measured in
separate fresh subprocesses: one that opens the home and rebuilds, one that only decodes,
as the baseline.  The figure is the child's ``VmHWM`` (``/proc/self/status``):
``resource.getrusage(...).ru_maxrss`` is kept across ``execve`` on Linux, so a child
forked from this (large) runner would report at least the runner's own peak; it is
recorded in the notes all the same.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench._corpus import copy_home, ensure_corpus
from bench._measure import REPO_ROOT, Context, Figure, Target, median, scratch_dir
from memoir.api import Memoir
from memoir.events.codec import Decoder
from memoir.journal import FileJournal
from memoir.projections.state import State

NAME = "rebuild"
_CHUNK = 4 << 20  # what FileJournal reads at a time


def decode_all(path: Path) -> int:
    """Decode every line of ``path`` into events and drop them; returns the count."""
    decoder = Decoder()
    fd = os.open(path, os.O_RDONLY)
    try:
        count = 0
        offset = 0
        carry = b""
        while True:
            chunk = os.pread(fd, _CHUNK, offset)
            if not chunk:
                break
            offset += len(chunk)
            data = carry + chunk if carry else chunk
            lines = data.split(b"\n")
            carry = lines.pop()
            for line in lines:
                decoder.decode(line)
                count += 1
        return count
    finally:
        os.close(fd)


def run_child(*args: str, timeout: float = 900.0) -> dict[str, Any]:
    """Run ``python -m bench._child ARGS`` in a fresh interpreter; return its JSON line."""
    proc = subprocess.run(
        [sys.executable, "-m", "bench._child", *args], cwd=REPO_ROOT, capture_output=True,
        text=True, timeout=timeout, check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"bench._child {args[0]} failed: {proc.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def run(ctx: Context) -> list[Figure]:
    corpus = ensure_corpus(ctx.work, ctx.pick(100_000, 1_000_000), ctx.log)
    rounds = ctx.pick(1, 2)
    folder = scratch_dir(ctx, NAME)
    home_path = copy_home(corpus, folder / "home")
    events = corpus.events
    decode_rates: list[float] = []
    rebuild_rates: list[float] = []
    fresh_rates: list[float] = []
    try:
        handle = Memoir(home_path)  # anchored on the newest checkpoint: no replay here
        for r in range(rounds):
            gc.collect()
            started = time.perf_counter()
            assert decode_all(corpus.journal) == events
            decode_rates.append(events / (time.perf_counter() - started))

            gc.collect()
            started = time.perf_counter()
            handle.rebuild()
            rebuild_rates.append(events / (time.perf_counter() - started))
            assert handle.state.seq == events

            gc.collect()
            started = time.perf_counter()
            with FileJournal(home_path / "journal.jsonl") as journal:
                state = State().apply_all(journal.read())
            fresh_rates.append(events / (time.perf_counter() - started))
            assert state.seq == events
            del state
            ctx.log(f"  round {r + 1}/{rounds}: decode {decode_rates[-1]:,.0f}/s, "
                    f"rebuild {rebuild_rates[-1]:,.0f}/s, "
                    f"fresh read+fold {fresh_rates[-1]:,.0f}/s")
        sessions = len(handle.state.sessions)
        runs = len(handle.state.runs)
        handle.close()
        ctx.log("  peak RSS: rebuild in a fresh process")
        rss = run_child("rebuild-rss", str(home_path))
        ctx.log("  peak RSS: decode-only in a fresh process")
        rss_base = run_child("decode-rss", str(corpus.journal))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    decode = median(decode_rates)
    corpus_notes = {"events": events, "journal_bytes": corpus.meta["bytes"],
                    "sessions_in_state": sessions, "runs_in_state": runs, "rounds": rounds}
    return [
        Figure(
            bench=NAME, name=f"Memoir.rebuild() of {events:,} events", value=median(rebuild_rates),
            unit="events/s", better="higher",
            baseline_name="Decoder().decode of the same lines", baseline_value=decode,
            target=Target("ratio", ">=", 0.3),
            notes={**corpus_notes, "rebuild_rates": [round(x) for x in rebuild_rates],
                   "decode_rates": [round(x) for x in decode_rates]},
        ),
        Figure(
            bench=NAME, name="State().apply_all(FileJournal(path).read()), new journal object",
            value=median(fresh_rates), unit="events/s", better="higher",
            baseline_name="Decoder().decode of the same lines", baseline_value=decode,
            notes={"rates": [round(x) for x in fresh_rates]},
        ),
        Figure(
            bench=NAME, name="peak RSS of open + rebuild, fresh process", value=rss["maxrss_mb"],
            unit="MB", better="lower",
            baseline_name="peak RSS of decode-only, fresh process",
            baseline_value=rss_base["maxrss_mb"], target=Target("value", "<", 300),
            notes={"rebuild_seconds_in_child": rss["seconds"],
                   "decode_seconds_in_child": rss_base["seconds"],
                   "measure": "VmHWM of the child (ru_maxrss survives exec on Linux, so it "
                              "starts at the runner's own peak)",
                   "ru_maxrss_mb": rss["ru_maxrss_mb"],
                   "ru_maxrss_mb_baseline": rss_base["ru_maxrss_mb"]},
        ),
    ]
