"""Run memoir's benchmarks: ``python -m bench [--quick] [--only NAME[,NAME]]``.

Run from the repository root.  Every benchmark measures its baseline in the same run,
prints its figures as it goes, and a table closes the run; the results are also written
to ``bench/results/latest.json`` (gitignored).  See ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from bench import (
    ann,
    bulk_append,
    cli_audit,
    cli_start,
    cold_open,
    durable_append,
    forget,
    hermes_home,
    learning,
    mcp_roundtrip,
    micro,
    postgres,
    rebuild,
    recall,
    recall_quality,
    reviewer_styles,
    semantic,
    signing,
    tool_add,
    web_ui,
)
from bench._hermes import ensure_hermes_venv
from bench._measure import REPO_ROOT, WORK_DIR, Context, Figure
from bench._report import machine, table, write_json

BENCHMARKS: dict[str, ModuleType] = {
    module.NAME: module
    for module in (durable_append, bulk_append, rebuild, cold_open, tool_add, micro,
                   cli_start, cli_audit, learning, recall, mcp_roundtrip, hermes_home, postgres,
                   forget, semantic, reviewer_styles, web_ui, signing, recall_quality, ann)
}
#: Benchmarks that compare against Hermes Agent and so need its virtualenv.
NEEDS_HERMES = {cold_open.NAME, tool_add.NAME, micro.NAME}
DEFAULT_JSON = REPO_ROOT / "bench" / "results" / "latest.json"


def _log(message: str) -> None:
    print(message, flush=True)


def _hermes_python(args: argparse.Namespace, log: Callable[[str], None]) -> str | None:
    if args.no_hermes:
        return None
    if args.hermes_python:
        return str(args.hermes_python)
    try:
        return ensure_hermes_venv(WORK_DIR / "hermes-venv")
    except Exception as exc:  # any failure only drops the Hermes baselines
        log(f"warning: no Hermes Agent venv ({exc}); Hermes baselines are skipped")
        return None


def _profile_summary(profiler: cProfile.Profile, path: Path) -> str:
    """Save the profile to ``path`` and return its top functions by own time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    profiler.dump_stats(path)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(15)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench", description="Run memoir's benchmarks (see docs/benchmarks.md)."
    )
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: fewer rounds, a 100,000-event corpus")
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help=f"run only these (comma-separated or repeated): "
                             f"{', '.join(BENCHMARKS)}")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON,
                        help="where to write the results (default: bench/results/latest.json)")
    parser.add_argument("--hermes-python", default=None,
                        help="python of an existing Hermes Agent venv (else "
                             "$MEMOIR_HERMES_PYTHON, else one is made in .bench/hermes-venv)")
    parser.add_argument("--no-hermes", action="store_true", help="skip the Hermes baselines")
    parser.add_argument("--profile", action="store_true",
                        help="run each benchmark under cProfile (slower; figures are then "
                             "only indicative), print its top functions and keep "
                             ".bench/profiles/NAME.prof")
    parser.add_argument("--strict", action="store_true",
                        help="exit with status 1 when a target is missed")
    args = parser.parse_args(argv)

    names = [n.strip() for item in args.only for n in item.split(",") if n.strip()]
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
    selected = names or list(BENCHMARKS)

    info = machine()
    _log(f"memoir {info['memoir']} ({info['commit']}), Python {info['python']}, "
         f"{info['cpus']} CPUs, {info['platform']}" + (" [quick]" if args.quick else ""))
    load = info["loadavg"]
    if load and load[0] > 0.5 * (info["cpus"] or 1):
        _log(f"warning: load average {load[0]:.1f}: other work is running, and fsync-bound "
             "figures will be lower and noisier than on an idle machine")
    hermes = _hermes_python(args, _log) if NEEDS_HERMES.intersection(selected) else None
    ctx = Context(quick=args.quick, work=WORK_DIR, hermes_python=hermes, log=_log)

    figures: list[Figure] = []
    errors: dict[str, str] = {}
    seconds: dict[str, float] = {}
    for name in selected:
        _log(f"\n== {name}")
        started = time.perf_counter()
        profiler = cProfile.Profile() if args.profile else None
        try:
            if profiler is not None:
                found = profiler.runcall(BENCHMARKS[name].run, ctx)
            else:
                found = BENCHMARKS[name].run(ctx)
        except Exception:  # one broken benchmark must not hide the others
            errors[name] = traceback.format_exc()
            _log(errors[name])
        else:
            figures.extend(found)
        seconds[name] = time.perf_counter() - started
        if profiler is not None:
            _log(_profile_summary(profiler, WORK_DIR / "profiles" / f"{name}.prof"))
        _log(f"   ({seconds[name]:.1f} s)")

    _log("\n" + table(figures, errors))
    write_json(args.json, figures, errors, quick=args.quick, seconds=seconds,
               started_load=load)
    _log(f"\nresults written to {args.json}")
    if errors:
        return 1
    if args.strict and any(f.passed is False for f in figures):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
