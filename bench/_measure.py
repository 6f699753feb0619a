"""What a benchmark reports, and the timing primitives every benchmark shares.

A benchmark returns :class:`Figure` rows.  A figure is one measured number, optionally
with the baseline measured in the same run and a target.  ``ratio`` is always
``value / baseline`` in the figure's own unit, so for a rate (higher is better) a ratio
above 1 means memoir is faster, and for a time or a size (lower is better) a ratio
below 1 means memoir is smaller or faster; ``better`` says which way is good.
"""

from __future__ import annotations

import gc
import os
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "REPO_ROOT",
    "WORK_DIR",
    "Context",
    "Figure",
    "Target",
    "median",
    "no_gc",
    "per_op_ns",
    "scratch_dir",
]

#: The repository root; benchmarks run from here.
REPO_ROOT = Path(__file__).resolve().parent.parent
#: Gitignored working folder: the cached corpus, the Hermes venv, scratch homes.
WORK_DIR = REPO_ROOT / ".bench"


@dataclass(frozen=True)
class Target:
    """A goal from the issue: ``ratio >= 0.7``, ``value < 50`` (ms) and so on."""

    on: Literal["ratio", "value"]
    op: Literal[">=", "<"]
    threshold: float

    def met(self, figure: Figure) -> bool | None:
        measured = figure.ratio if self.on == "ratio" else figure.value
        if measured is None:
            return None
        return measured >= self.threshold if self.op == ">=" else measured < self.threshold

    def describe(self, unit: str) -> str:
        if self.on == "ratio":
            return f"{self.op} {self.threshold:g}x"
        return f"{self.op} {self.threshold:,g} {unit}"


@dataclass
class Figure:
    """One measured number, its same-run baseline and the target it is judged by."""

    bench: str
    name: str
    value: float
    unit: str
    better: Literal["higher", "lower"]
    baseline_name: str | None = None
    baseline_value: float | None = None
    target: Target | None = None
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if self.baseline_value is None or self.baseline_value == 0:
            return None
        return self.value / self.baseline_value

    @property
    def passed(self) -> bool | None:
        return None if self.target is None else self.target.met(self)

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["ratio"] = self.ratio
        out["passed"] = self.passed
        out["target"] = None if self.target is None else {
            **asdict(self.target), "text": self.target.describe(self.unit)
        }
        return out


@dataclass(frozen=True)
class Context:
    """Options every benchmark receives."""

    quick: bool
    work: Path
    hermes_python: str | None
    log: Callable[[str], None]

    def pick(self, quick: int, full: int) -> int:
        """``quick`` in a smoke run, else ``full``."""
        return quick if self.quick else full


def median(values: list[float]) -> float:
    return statistics.median(values)


@contextmanager
def no_gc() -> Iterator[None]:
    """Keep the cyclic collector out of a timed region (it runs between regions)."""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def per_op_ns(fn: Callable[[], object], *, budget_s: float = 0.2, repeats: int = 5) -> float:
    """Median nanoseconds per call of ``fn`` over ``repeats`` loops of ~``budget_s`` each."""
    number = 1
    while True:
        started = time.perf_counter()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter() - started
        if elapsed >= budget_s / 10 or number >= 1 << 24:
            break
        number *= 4
    number = max(1, int(number * (budget_s / max(elapsed, 1e-9))))
    samples = []
    with no_gc():
        for _ in range(repeats):
            started = time.perf_counter_ns()
            for _ in range(number):
                fn()
            samples.append((time.perf_counter_ns() - started) / number)
    return median(samples)


def scratch_dir(ctx: Context, name: str) -> Path:
    """An empty folder under ``.bench/tmp`` (same file system as the corpus)."""
    import shutil

    path = ctx.work / "tmp" / f"{name}-{os.getpid()}"
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path
