"""``memoir forget`` on a large home (issue 23): forgetting a text that one record and one
recorded message hold, and one memory entry, on a copy of the benchmark corpus
(100,000 events with ``--quick``, 1,000,000 without), each in a fresh ``memoir``
process with its wall time and peak RSS; and memory-tool writes (an add, then its
remove) on that home before and after a forget.

* Baseline for the forgets: ``Decoder().decode`` of every line of the same journal
  (``bench/rebuild.py``'s), timed in this run: a forget reads the journal once to plan,
  so it cannot be much faster than reading and decoding it.
* Targets (the issue's): ``forget --text`` under 60 s and 300 MB on 1,000,000 events; one
  entry under 5 s; writes after a forget as fast as before (ratio at least 0.8).
"""

from __future__ import annotations

import json
import os
import secrets
import time
from pathlib import Path
from typing import Any

from bench._corpus import copy_home, ensure_corpus
from bench._measure import Context, Figure, Target, median, scratch_dir
from bench.rebuild import decode_all, run_child
from memoir.api import Memoir

NAME = "forget"


def _forget(home: Path, *args: str) -> dict[str, Any]:
    """Run ``memoir forget ARGS -y --json`` in a fresh process (``bench._child``, which
    reads its peak RSS from its own address space): its result, seconds and peak RSS."""
    child = run_child("cli-rss", "--home", str(home), "--json", "forget", *args, "-y")
    if child["exit"] not in (0, None):
        raise RuntimeError(f"memoir forget {' '.join(args)} failed (exit {child['exit']})")
    return {"result": json.loads(child["stdout"]), "seconds": child["seconds"],
            "rss_mb": child["maxrss_mb"]}


def _adds(home: Path, count: int, tag: str) -> float:
    """Memory-tool writes per second: ``count`` adds, each removed right after (the
    corpus's memory is near its limit), every write acknowledged."""
    with Memoir(home) as handle, handle.start_session() as session:
        started = time.perf_counter()
        for k in range(count):
            text = f"Bench note {tag} {k} about the build."
            for args in ({"action": "add", "content": text},
                         {"action": "remove", "old_text": text}):
                result = session.call_tool("memory", {"target": "memory", **args})
                if not result["success"]:
                    raise RuntimeError(f"a write was refused: {result.get('error')}")
        return 2 * count / (time.perf_counter() - started)


def run(ctx: Context) -> list[Figure]:
    corpus = ensure_corpus(ctx.work, ctx.pick(100_000, 1_000_000), ctx.log)
    # The corpus's memory is near its limits: room for the entries this adds.
    os.environ["MEMOIR_MEMORY_CHAR_LIMIT"] = os.environ["MEMOIR_USER_CHAR_LIMIT"] = "20000"
    folder = scratch_dir(ctx, NAME)
    home = copy_home(corpus, folder / "home")
    marker = f"LEAKED-{secrets.token_hex(6)}"
    with Memoir(home) as handle, handle.start_session() as session:
        for target, content in (("memory", f"The build host is {marker}."),
                                ("user", "Lives at 12 Elm Street.")):
            added = session.call_tool("memory", {"action": "add", "target": target,
                                                 "content": content})
            if not added["success"]:
                raise RuntimeError(f"could not add to {target}: {added.get('error')}")
        session.record_turn([{"role": "user", "content": f"Use {marker} for the build."},
                             {"role": "assistant", "content": "Done."}])
        entry = next(e.id for e in handle.state.memory.target("user").entries
                     if "Elm" in e.text)
    events = Memoir(home, readonly=True, lazy=True)
    head = events.head
    events.close()
    decode_rates = []
    for _ in range(ctx.pick(2, 3)):
        started = time.perf_counter()
        decode_all(home / "journal.jsonl")
        decode_rates.append(head / (time.perf_counter() - started))
    decode_seconds = head / median(decode_rates)
    count = ctx.pick(100, 300)
    before = _adds(home, count, "before")
    text = _forget(home, "--text", marker)
    ctx.log(f"  forget --text: {text['seconds']:.1f} s, {text['rss_mb']:.0f} MB, "
            f"{len(text['result']['records'])} record(s), {text['result']['bodies']} body(ies)")
    one = _forget(home, "--entry", entry)
    ctx.log(f"  forget --entry: {one['seconds']:.1f} s, {one['rss_mb']:.0f} MB")
    after = _adds(home, count, "after")
    ctx.log(f"  adds: {before:,.0f}/s before, {after:,.0f}/s after; decode of the journal "
            f"{decode_seconds:.1f} s")
    return [
        Figure(bench=NAME, name=f"forget --text on {head:,} events, fresh process",
               value=text["seconds"], unit="s", better="lower",
               baseline_name="Decoder().decode of every line of the same journal",
               baseline_value=decode_seconds, target=Target("value", "<", 60.0),
               notes={"rss_mb": round(text["rss_mb"], 1),
                      "records": len(text["result"]["records"]),
                      "bodies": text["result"]["bodies"]}),
        Figure(bench=NAME, name="peak RSS of forget --text", value=text["rss_mb"], unit="MB",
               better="lower", target=Target("value", "<", 300.0)),
        Figure(bench=NAME, name=f"forget --entry on {head:,} events, fresh process",
               value=one["seconds"], unit="s", better="lower",
               baseline_name="Decoder().decode of every line of the same journal",
               baseline_value=decode_seconds, target=Target("value", "<", 5.0),
               notes={"rss_mb": round(one["rss_mb"], 1)}),
        Figure(bench=NAME, name="memory-tool writes after a forget", value=after,
               unit="writes/s", better="higher", baseline_name="the same writes before it",
               baseline_value=before, target=Target("ratio", ">=", 0.8)),
    ]
