"""Durable single-event appends: FileJournal (durability "always") vs raw write + fsync.

Method: rounds alternate between the two.  A memoir round appends ``n`` one-draft
appends (a realistic ``memory.entry_added`` from an agent session) to a journal; a raw
round then appends the very lines that memoir round wrote, one ``os.write`` + ``os.fsync``
each, to a second file opened the same way (``O_RDWR | O_APPEND``) in the same folder.
Both files grow by the same bytes, so the file system sees the same work.  The figure is
the median of the per-round rates; the ratio compares the two medians.
"""

from __future__ import annotations

import os
import shutil
import time

from bench._measure import Context, Figure, Target, median, no_gc, scratch_dir
from memoir.events.memory import EntryAdded
from memoir.events.types import Draft
from memoir.journal import FileJournal

NAME = "durable_append"
ENTRY = "The project builds with make; tests run under pytest -q in the venv."


def _drafts(start: int, n: int) -> list[Draft]:
    return [
        Draft(
            data=EntryAdded(target="memory", entry_id=f"e-{start + i:012x}",
                            text=f"{ENTRY} #{start + i}"),
            actor="agent",
            session="s-0123456789ab",
        )
        for i in range(n)
    ]


def _raw_round(fd: int, lines: list[bytes]) -> float:
    started = time.perf_counter()
    for line in lines:
        os.write(fd, line)
        os.fsync(fd)
    return time.perf_counter() - started


def run(ctx: Context) -> list[Figure]:
    n = ctx.pick(200, 1000)
    rounds = ctx.pick(3, 7)
    folder = scratch_dir(ctx, NAME)
    journal = FileJournal(folder / "journal.jsonl", durability="always")
    raw_fd = os.open(folder / "raw.jsonl", os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    memoir_rates: list[float] = []
    raw_rates: list[float] = []
    try:
        # Warm-up, not counted: first writes allocate blocks, first appends build decoders.
        for draft in _drafts(0, 20):
            journal.append([draft])
        os.write(raw_fd, b"x" * 300 + b"\n")
        os.fsync(raw_fd)
        seq = 20
        for r in range(rounds):
            drafts = _drafts(seq, n)
            seq += n
            start = journal.position()[1]
            with no_gc():
                started = time.perf_counter()
                for draft in drafts:
                    journal.append([draft])
                memoir_s = time.perf_counter() - started
            with open(journal.path, "rb") as fh:
                fh.seek(start)
                written = fh.read(journal.position()[1] - start)
            lines = [line + b"\n" for line in written.split(b"\n")[:-1]]
            assert len(lines) == n
            with no_gc():
                raw_s = _raw_round(raw_fd, lines)
            memoir_rates.append(n / memoir_s)
            raw_rates.append(n / raw_s)
            ctx.log(f"  round {r + 1}/{rounds}: memoir {n / memoir_s:,.0f}/s, "
                    f"raw {n / raw_s:,.0f}/s")
        line_bytes = len(lines[0])
    finally:
        journal.close()
        os.close(raw_fd)
        shutil.rmtree(folder, ignore_errors=True)
    per_round = [m / r for m, r in zip(memoir_rates, raw_rates, strict=True)]
    return [
        Figure(
            bench=NAME,
            name="FileJournal.append, 1 event, durability always",
            value=median(memoir_rates),
            unit="appends/s",
            better="higher",
            baseline_name="os.write + os.fsync of the same lines",
            baseline_value=median(raw_rates),
            target=Target("ratio", ">=", 0.7),
            notes={
                "appends_per_round": n,
                "rounds": rounds,
                "line_bytes": line_bytes,
                "memoir_rates": [round(x, 1) for x in memoir_rates],
                "raw_rates": [round(x, 1) for x in raw_rates],
                "median_of_per_round_ratios": round(median(per_round), 3),
            },
        )
    ]
