"""One command appending 10,000 events: ``FileJournal.append`` and ``Memoir.commit``.

The events are memory entries added and removed again in pairs, so the folded state
stays as small as a real home's while every event still goes through the fold and the
projection.  Both paths use durability "always" (one fsync for the whole append).

Baseline, measured in the same rounds: the floor for durably writing those events —
``msgspec`` encoding the same 10,000 drafts as JSON lines, one ``os.write`` and one
``os.fsync`` to a file in the same folder.  Rounds alternate the three; medians reported.
"""

from __future__ import annotations

import os
import shutil
import time
from typing import Any

import msgspec

from bench._measure import Context, Figure, Target, median, no_gc, scratch_dir
from memoir.api import Memoir
from memoir.config import Config
from memoir.engine import Decision
from memoir.engine.commit import Caller
from memoir.events.memory import EntryAdded, EntryRemoved
from memoir.events.types import Draft, Payload
from memoir.journal import FileJournal
from memoir.projections.state import State

NAME = "bulk_append"
EVENTS = 10_000


def _payloads(round_no: int, n: int) -> list[Payload]:
    out: list[Payload] = []
    for i in range(n // 2):
        entry_id = f"e-{round_no:04x}{i:08x}"
        text = f"Bulk import {round_no}/{i}: the staging database is reached through bastion-2."
        out.append(EntryAdded(target="memory", entry_id=entry_id, text=text))
        out.append(EntryRemoved(target="memory", entry_id=entry_id, previous=text, position=0))
    return out


def run(ctx: Context) -> list[Figure]:
    rounds = ctx.pick(2, 5)
    folder = scratch_dir(ctx, NAME)
    journal = FileJournal(folder / "journal.jsonl", durability="always")
    config = Config.model_validate({"journal": {"durability": "always"}})
    home = Memoir(folder / "home", config=config)
    raw_fd = os.open(folder / "raw.jsonl", os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    encoder = msgspec.json.Encoder()
    journal_rates: list[float] = []
    commit_rates: list[float] = []
    raw_rates: list[float] = []
    commit_notes: dict[str, Any] = {}
    try:
        # Warm-up, not counted.
        warm = _payloads(9999, 200)
        journal.append([Draft(data=p, actor="import") for p in warm])
        home.commit(lambda _s: Decision(events=warm), by="import")
        for r in range(rounds):
            payloads = _payloads(r, EVENTS)
            drafts = [Draft(data=p, actor="import", run=f"r-{r:012x}") for p in payloads]

            with no_gc():
                started = time.perf_counter()
                events = journal.append(drafts)
                journal_s = time.perf_counter() - started
            assert len(events) == EVENTS

            def decide(_state: State, payloads: list[Payload] = payloads) -> Decision[None]:
                return Decision(events=payloads)

            with no_gc():
                started = time.perf_counter()
                events, _ = home.commit(decide, by=Caller(actor="import", run=f"r-{r:012x}"))
                commit_s = time.perf_counter() - started
            assert len(events) == EVENTS

            with no_gc():
                started = time.perf_counter()
                blob = encoder.encode_lines(drafts)
                os.write(raw_fd, blob)
                os.fsync(raw_fd)
                raw_s = time.perf_counter() - started

            journal_rates.append(EVENTS / journal_s)
            commit_rates.append(EVENTS / commit_s)
            raw_rates.append(EVENTS / raw_s)
            ctx.log(f"  round {r + 1}/{rounds}: journal.append {EVENTS / journal_s:,.0f}/s, "
                    f"Memoir.commit {EVENTS / commit_s:,.0f}/s, "
                    f"encode+write+fsync {EVENTS / raw_s:,.0f}/s")
        commit_notes["checkpoints_after_run"] = len(home.checkpoints.seqs())
    finally:
        journal.close()
        home.close()
        os.close(raw_fd)
        shutil.rmtree(folder, ignore_errors=True)
    baseline = median(raw_rates)
    common = {"events_per_append": EVENTS, "rounds": rounds}
    return [
        Figure(
            bench=NAME, name="FileJournal.append of 10,000 drafts", value=median(journal_rates),
            unit="events/s", better="higher",
            baseline_name="msgspec encode_lines + write + fsync", baseline_value=baseline,
            target=Target("value", ">=", 100_000),
            notes={**common, "rates": [round(x) for x in journal_rates]},
        ),
        Figure(
            bench=NAME, name="Memoir.commit, decide returns 10,000 payloads",
            value=median(commit_rates), unit="events/s", better="higher",
            baseline_name="msgspec encode_lines + write + fsync", baseline_value=baseline,
            target=Target("value", ">=", 100_000),
            notes={**common, **commit_notes, "rates": [round(x) for x in commit_rates]},
        ),
    ]
