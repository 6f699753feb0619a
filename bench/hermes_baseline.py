"""Measure how fast Hermes Agent's own ``MemoryStore.add`` is on this machine.

A standalone script: run it with the Python of a virtualenv that has ``hermes-agent``
installed, not with memoir's venv. ``bench/_hermes.py`` drives it for the benchmark runner.

Method
------
Every timed call is a real, durable Hermes add: threat scan, exclusive ``flock`` on
``MEMORY.md.lock``, re-read and dedupe of the file, whole-file rewrite to a temp file,
``fsync``, atomic rename. The store keeps the default 2,200-char limit, so the file sizes
being rewritten are the ones Hermes users actually have.

Entries are distinct and exactly ``ENTRY_CHARS`` long. Adds run in windows of as many entries
as fit under the limit (34 at 60 chars: 34 * 60 + 33 * 3 delimiter chars = 2,139). Between
windows the file is emptied; that reset is not timed. Each window therefore times adds into a
file holding 0, 1, ..., 33 entries, the full range the default limit allows. One untimed
window runs first to warm caches and compile the threat regexes.

``--threads T`` splits each window's entries round-robin over T threads that add
concurrently to one shared ``MemoryStore`` (threads are started per window; the time
runs from before the first start to after the last join).  Hermes has no in-process
mutex, but every add opens its own descriptor on ``MEMORY.md.lock`` and ``flock``
excludes other descriptors even within one process, so concurrent adds are serialized;
each window checks that the file ends up with every entry.

Output: one JSON line ``{"adds", "seconds", "adds_per_s", "us_per_add", ...}`` where
``seconds`` is the sum of the timed windows only.

Two more modes, for memoir's benchmark runner:

``--load-from DIR``
    Copy ``DIR/MEMORY.md`` and ``DIR/USER.md`` into a fresh HERMES_HOME and time a cold
    ``MemoryStore().load_from_disk()`` plus both ``format_for_system_prompt`` calls (the
    work Hermes does to put memory in a new session's prompt), imports excluded.
``--scan-text TEXT``
    Nanoseconds per call of Hermes's write-time threat scan of TEXT.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ENTRY_CHARS = 60
DEFAULT_ADDS = 1000
# Hermes's own default for the ``memory`` target; keep it so file sizes are realistic.
MEMORY_CHAR_LIMIT = 2200
# Hermes joins entries with "\n§\n" and counts those three chars against the limit.
DELIMITER_CHARS = 3


def entry_text(i: int) -> str:
    """Return the i-th distinct benchmark entry, exactly ENTRY_CHARS long."""
    text = f"Fact {i:08d}: the build uses make, tests run under pytest"
    return text.ljust(ENTRY_CHARS, ".")[:ENTRY_CHARS]


def adds_per_window(limit: int = MEMORY_CHAR_LIMIT, entry_chars: int = ENTRY_CHARS) -> int:
    """How many entries fit under ``limit`` before the next add would be refused."""
    return (limit + DELIMITER_CHARS) // (entry_chars + DELIMITER_CHARS)


def measure(adds: int, directory: str | None = None, threads: int = 1) -> dict[str, Any]:
    """Time ``adds`` durable Hermes adds in a throwaway HERMES_HOME under ``directory``."""
    window = adds_per_window()
    with tempfile.TemporaryDirectory(prefix="hermes-bench-", dir=directory) as tmp:
        home = Path(tmp)
        # Hermes resolves its home from the environment on every call; set it before import.
        os.environ["HERMES_HOME"] = str(home)
        # Hermes lives in its own venv, so memoir's type checker cannot see it.
        from tools.memory_tool import MemoryStore, get_memory_dir  # type: ignore[import-not-found]

        store = MemoryStore(memory_char_limit=MEMORY_CHAR_LIMIT)
        store.load_from_disk()
        memory_file = get_memory_dir() / "MEMORY.md"

        def empty_store() -> None:
            # add() re-reads the file under its lock, so emptying the file resets the store.
            memory_file.write_text("", encoding="utf-8")

        next_entry = 0

        def add_all(texts: list[str], results: list[dict[str, Any]]) -> None:
            results.extend(store.add("memory", text) for text in texts)

        def run_window(count: int) -> float:
            nonlocal next_entry
            texts = [entry_text(next_entry + k) for k in range(count)]
            next_entry += count
            results: list[dict[str, Any]] = []
            if threads == 1:
                started = time.perf_counter()
                add_all(texts, results)
                elapsed = time.perf_counter() - started
            else:
                workers = [
                    threading.Thread(target=add_all, args=(texts[k::threads], results))
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
                raise SystemExit(f"hermes_baseline: an add was not applied: {refused[:1]}")
            on_disk = memory_file.read_text(encoding="utf-8").count("\n§\n") + 1
            if on_disk != count:
                raise SystemExit(f"hermes_baseline: {count} adds left {on_disk} entries")
            return elapsed

        run_window(window)  # warm-up, not counted
        seconds = 0.0
        remaining = adds
        while remaining > 0:
            empty_store()
            count = min(window, remaining)
            seconds += run_window(count)
            remaining -= count

    return {
        "adds": adds,
        "seconds": round(seconds, 6),
        "adds_per_s": round(adds / seconds, 1),
        "us_per_add": round(seconds / adds * 1e6, 1),
        "entry_chars": ENTRY_CHARS,
        "char_limit": MEMORY_CHAR_LIMIT,
        "adds_per_window": window,
        "threads": threads,
        "hermes_version": importlib.metadata.version("hermes-agent"),
    }


def measure_load(source: str, directory: str | None = None) -> dict[str, Any]:
    """Time a cold load of the memory files in ``source`` and the render of both blocks."""
    with tempfile.TemporaryDirectory(prefix="hermes-load-", dir=directory) as tmp:
        os.environ["HERMES_HOME"] = tmp
        memories = Path(tmp) / "memories"
        memories.mkdir()
        for name in ("MEMORY.md", "USER.md"):
            if (Path(source) / name).exists():
                shutil.copyfile(Path(source) / name, memories / name)
        started = time.perf_counter()
        from tools.memory_tool import MemoryStore  # type: ignore[import-not-found, unused-ignore]

        imported = time.perf_counter()
        store = MemoryStore(memory_char_limit=MEMORY_CHAR_LIMIT)
        store.load_from_disk()
        blocks = [store.format_for_system_prompt(t) for t in ("memory", "user")]
        done = time.perf_counter()
    return {
        "seconds": round(done - imported, 6),
        "import_seconds": round(imported - started, 6),
        "block_chars": [len(b or "") for b in blocks],
    }


def measure_scan(text: str) -> dict[str, Any]:
    """Nanoseconds per call of Hermes's write-time threat scan of ``text``."""
    from tools.memory_tool import _scan_memory_content  # type: ignore[import-not-found, unused-ignore]

    if _scan_memory_content(text) is not None:
        raise SystemExit("hermes_baseline: the scan text is flagged as a threat")
    number = 2000
    samples = []
    for _ in range(5):
        started = time.perf_counter_ns()
        for _ in range(number):
            _scan_memory_content(text)
        samples.append((time.perf_counter_ns() - started) / number)
    samples.sort()
    return {"ns_per_scan": round(samples[len(samples) // 2], 1), "chars": len(text)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time durable Hermes MemoryStore.add calls.")
    parser.add_argument("--adds", type=int, default=DEFAULT_ADDS, help="timed adds (N)")
    parser.add_argument(
        "--dir",
        default=None,
        help="make the temp HERMES_HOME here, e.g. on the filesystem memoir is measured on",
    )
    parser.add_argument("--threads", type=int, default=1, help="concurrent adding threads")
    parser.add_argument("--load-from", default=None,
                        help="time a cold load + render of the memory files in this folder")
    parser.add_argument("--scan-text", default=None, help="time the threat scan of this text")
    args = parser.parse_args(argv)
    if args.adds < 1:
        parser.error("--adds must be at least 1")
    if args.threads < 1:
        parser.error("--threads must be at least 1")
    # Keep stdout for the JSON line: anything Hermes prints goes to stderr.
    real_stdout = sys.stdout
    sys.stdout = sys.stderr
    try:
        if args.load_from is not None:
            result = measure_load(args.load_from, args.dir)
        elif args.scan_text is not None:
            result = measure_scan(args.scan_text)
        else:
            result = measure(args.adds, args.dir, args.threads)
    finally:
        sys.stdout = real_stdout
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
