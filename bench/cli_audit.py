"""The audit commands on a long journal with no checkpoint (issue 13's targets).

* ``memoir log --limit 3``: it reads the journal's end and folds nothing, so it costs
  about what starting the command costs.  Figure: its wall time minus ``memoir
  --version``'s (the process start, measured in the same rounds); target < 100 ms.
* ``memoir status``: it must fold the whole journal (no checkpoint to start from).
  Baseline: ``memoir verify`` on the same home (open, then read and check every record);
  target ≤ 1.5x.  Both are fresh processes; rounds alternate; medians.

The home is a copy of the cached corpus (``bench/_corpus.py``; 500,000 events, 100,000
with ``--quick``) without its checkpoints, and reading commands never save any.
"""

from __future__ import annotations

import subprocess
import sys
import time

from bench._corpus import copy_home, ensure_corpus
from bench._measure import Context, Figure, Target, median, scratch_dir

NAME = "cli_audit"


def _wall(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def run(ctx: Context) -> list[Figure]:
    events = ctx.pick(100_000, 500_000)
    corpus = ensure_corpus(ctx.work, events, ctx.log)
    home = copy_home(corpus, scratch_dir(ctx, NAME) / "home", checkpoints=False)
    memoir = [sys.executable, "-m", "memoir"]
    at = ["--home", str(home)]
    start, log, status, verify = [], [], [], []
    for r in range(ctx.pick(3, 5)):
        start.append(_wall([*memoir, "--version"]))
        log.append(_wall([*memoir, *at, "log", "--limit", "3"]))
        status.append(_wall([*memoir, *at, "status"]))
        verify.append(_wall([*memoir, *at, "verify"]))
        ctx.log(f"  round {r + 1}: --version {start[-1] * 1000:.0f} ms, log -n 3 "
                f"{log[-1] * 1000:.0f} ms, status {status[-1]:.2f} s, verify {verify[-1]:.2f} s")
    if (home / ".memoir" / "checkpoints").exists() and any(
            (home / ".memoir" / "checkpoints").iterdir()):
        raise AssertionError("a reading command saved a checkpoint")
    beyond = (median(log) - median(start)) * 1000
    return [
        Figure(NAME, f"memoir log --limit 3 beyond process start, {corpus.meta['events']:,} "
               "events, no checkpoint", beyond, "ms", "lower",
               baseline_name="memoir --version (process start)",
               baseline_value=median(start) * 1000, target=Target("value", "<", 100),
               notes={"log_ms": median(log) * 1000}),
        Figure(NAME, f"memoir status, {corpus.meta['events']:,} events, no checkpoint",
               median(status), "s", "lower", baseline_name="memoir verify (same home)",
               baseline_value=median(verify), target=Target("ratio", "<", 1.5001)),
    ]
