"""How fast the ``memoir`` command starts: ``memoir --version`` against a bare Python that
imports the CLI's own two libraries, ``python -c "import click, msgspec"``.

Agents and MCP clients start memoir often, so a command must load only what it needs.
Method: rounds alternate between the two, each a fresh process; medians of wall time.
Also timed for contrast: ``memoir log --limit 3`` on a small home (opens it).
"""

from __future__ import annotations

import subprocess
import sys
import time

from bench._measure import Context, Figure, Target, median, scratch_dir

NAME = "cli_start"


def _run(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def run(ctx: Context) -> list[Figure]:
    rounds = ctx.pick(7, 21)
    python = sys.executable
    memoir_cmd = [python, "-m", "memoir"]
    home = scratch_dir(ctx, NAME) / "home"
    subprocess.run([*memoir_cmd, "--home", str(home), "init"], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([*memoir_cmd, "--home", str(home), "memory", "add", "a note"], check=True,
                   stdout=subprocess.DEVNULL)
    version, bare, log = [], [], []
    for r in range(rounds):
        version.append(_run([*memoir_cmd, "--version"]))
        bare.append(_run([python, "-c", "import click, msgspec"]))
        log.append(_run([*memoir_cmd, "--home", str(home), "log", "--limit", "3"]))
        if r == 0 or r == rounds - 1:
            ctx.log(f"  round {r + 1}/{rounds}: --version {version[-1] * 1000:.0f} ms, "
                    f"bare {bare[-1] * 1000:.0f} ms, log {log[-1] * 1000:.0f} ms")
    base = median(bare) * 1000
    return [
        Figure(NAME, "memoir --version, fresh process", median(version) * 1000, "ms", "lower",
               baseline_name='python -c "import click, msgspec"', baseline_value=base,
               target=Target("ratio", "<", 2.5)),
        Figure(NAME, "memoir log --limit 3 (small home), fresh process", median(log) * 1000,
               "ms", "lower", baseline_name='python -c "import click, msgspec"',
               baseline_value=base),
    ]
