"""The final table printed after a run, and the JSON file written beside it."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import memoir
from bench._measure import REPO_ROOT, Figure

__all__ = ["format_value", "machine", "table", "write_json"]


def format_value(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit in ("ms", "MB"):
        return f"{value:,.1f} {unit}"
    if unit == "share" or (abs(value) < 10 and value != int(value)):
        return f"{value:.2f} {unit}"  # a share, a recall: 0.66, not "1"
    return f"{value:,.0f} {unit}"


def _verdict(figure: Figure) -> str:
    passed = figure.passed
    if passed is None:
        return "n/a" if figure.target is not None else ""
    return "PASS" if passed else "FAIL"


def table(figures: list[Figure], errors: dict[str, str]) -> str:
    """A plain-text table: one row per figure, then one per benchmark that failed to run."""
    header = ("benchmark", "figure", "memoir", "baseline", "ratio", "target", "")
    rows = [header]
    for f in figures:
        ratio = f"{f.ratio:.2f}x" if f.ratio is not None else "-"
        rows.append((
            f.bench, f.name, format_value(f.value, f.unit),
            format_value(f.baseline_value, f.unit), ratio,
            f.target.describe(f.unit) if f.target else "", _verdict(f),
        ))
    for bench, error in errors.items():
        rows.append((bench, f"ERROR: {error.splitlines()[-1][:80]}", "", "", "", "", "ERROR"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = []
    for n, row in enumerate(rows):
        cells = [
            cell.rjust(widths[i]) if i in (2, 3, 4) else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _git(*args: str) -> str:
    try:
        proc = subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, text=True,
                              check=False, timeout=10)
    except OSError:
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


def _git_commit() -> str | None:
    """The commit measured, with ``+dirty`` when memoir/ has uncommitted changes.

    ``MEMOIR_BENCH_COMMIT`` names it instead, for a run from an exported tree.
    """
    if os.environ.get("MEMOIR_BENCH_COMMIT"):
        return os.environ["MEMOIR_BENCH_COMMIT"]
    commit = _git("rev-parse", "--short", "HEAD")
    if not commit:
        return None
    return commit + ("+dirty" if _git("status", "--porcelain", "--", "memoir") else "")


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    return {
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "memoir": memoir.__version__,
        "commit": _git_commit(),
        # Other work on the machine skews fsync-bound figures most; keep the load with them.
        "loadavg": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
    }


def write_json(path: Path, figures: list[Figure], errors: dict[str, str],
               *, quick: bool, seconds: dict[str, float],
               started_load: list[float] | None) -> None:
    data = {
        "generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "quick": quick,
        "machine": machine(),
        "loadavg_at_start": started_load,
        "seconds": {k: round(v, 1) for k, v in seconds.items()},
        "figures": [f.as_json() for f in figures],
        "errors": errors,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
