"""Measurements that need a fresh interpreter: ``python -m bench._child MODE ARGS``.

Each mode prints one JSON line.  Times are taken inside the process; imports are timed
separately and not included.

``rebuild-rss HOME``            open HOME, ``rebuild()``; peak RSS
``decode-rss JOURNAL``          decode every line of JOURNAL and nothing else; peak RSS
``cli-rss ARGS...``              run ``memoir ARGS`` in this process; its output, peak RSS
``open-new HOME``               ``memoir.open`` + ``start_session()`` + ``prompt_blocks()``
``open-existing HOME SESSION``  ``memoir.open`` + ``session(SESSION).prompt_blocks()``
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

_STARTED = time.perf_counter()


def _maxrss_mb() -> float:
    """This process's peak RSS in MiB.

    On Linux ``ru_maxrss`` survives ``execve``: a child forked from the (large) benchmark
    runner starts with the runner's peak.  ``VmHWM`` in ``/proc/self/status`` belongs to
    the new address space only, so it is used where it exists.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return _ru_maxrss_mb()


def _ru_maxrss_mb() -> float:
    # ru_maxrss is in KiB on Linux (bytes on macOS).
    scale = 1 if sys.platform == "darwin" else 1024
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20, 1)


def _open(home: str, session: str | None) -> dict[str, Any]:
    import memoir
    import memoir.api  # memoir loads its modules on first use; imports are timed apart

    imported = time.perf_counter()
    handle = memoir.open(home)
    opened = time.perf_counter()
    chosen = handle.start_session() if session is None else handle.session(session)
    blocks = chosen.prompt_blocks()
    done = time.perf_counter()
    out = {
        "seconds": round(done - imported, 6),
        "open_seconds": round(opened - imported, 6),
        "import_seconds": round(imported - _STARTED, 6),
        "session": chosen.id,
        "pinned_seq": chosen.pinned_seq,
        "head": handle.head,
        "block_chars": [len(b or "") for b in blocks.values()],
        "maxrss_mb": _maxrss_mb(),
    }
    handle.close()
    return out


def main(argv: list[str]) -> dict[str, Any]:
    mode, *args = argv
    if mode == "rebuild-rss":
        from memoir.api import Memoir

        handle = Memoir(args[0])
        started = time.perf_counter()
        handle.rebuild()
        seconds = time.perf_counter() - started
        handle.close()
        return {"seconds": round(seconds, 3), "maxrss_mb": _maxrss_mb(),
                "ru_maxrss_mb": _ru_maxrss_mb()}
    if mode == "decode-rss":
        from bench.rebuild import decode_all

        started = time.perf_counter()
        lines = decode_all(Path(args[0]))
        return {"seconds": round(time.perf_counter() - started, 3), "lines": lines,
                "maxrss_mb": _maxrss_mb(), "ru_maxrss_mb": _ru_maxrss_mb()}
    if mode == "cli-rss":
        import contextlib
        import io

        from memoir.cli import cli

        out = io.StringIO()
        started = time.perf_counter()
        with contextlib.redirect_stdout(out):
            code = cli.main(args, prog_name="memoir", standalone_mode=False)
        return {"seconds": round(time.perf_counter() - started, 3), "exit": code,
                "stdout": out.getvalue(), "maxrss_mb": _maxrss_mb()}
    if mode == "open-new":
        return _open(args[0], None)
    if mode == "open-existing":
        return _open(args[0], args[1])
    raise SystemExit(f"bench._child: unknown mode {mode!r}")


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
