"""Opening a large home and rendering a session's prompt, in a fresh process.

The home is a copy of the cached corpus (``bench/_corpus.py``) on which ``rebuild()`` ran
once in setup, so a checkpoint sits at the head, as after normal operation.  Every run is
a new interpreter (``python -m bench._child``) timed from just before ``memoir.open`` to
just after ``prompt_blocks()``; imports are reported apart.  Runs:

* a new session: ``open`` + ``start_session()`` (one durable append) + ``prompt_blocks()``;
* an existing session: the one the previous run started, re-opened with
  ``session(id)``: its pinned seq is at the head;
* the corpus's last session, pinned a few events before the newest checkpoint (for
  contrast: its state must be folded from an older checkpoint);
* a new session on a copy of the home without checkpoints: a full replay (contrast).

Baseline: Hermes putting the same memory in a new session's prompt, i.e. a cold
``MemoryStore().load_from_disk()`` and both ``format_for_system_prompt`` calls on the
MEMORY.md and USER.md memoir projected, in a fresh Hermes process, imports excluded.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from bench._corpus import copy_home, ensure_corpus
from bench._hermes import measure_hermes_load
from bench._measure import Context, Figure, Target, median, scratch_dir
from bench.rebuild import run_child
from memoir.api import Memoir

NAME = "cold_open"


def _ms(results: list[dict[str, Any]], key: str = "seconds") -> float:
    return median([r[key] * 1000 for r in results])


def _sessions_near(home: Path, events: int, count: int) -> list[str]:
    """Sessions started at evenly spaced points of the journal (the first after each)."""
    marks = [events * (i + 1) // (count + 1) for i in range(count)]
    found: list[str] = []
    with open(home / "journal.jsonl", "rb") as lines:
        for seq, line in enumerate(lines, 1):
            if len(found) < len(marks) and seq >= marks[len(found)] and \
                    b'"session.started"' in line:
                found.append(json.loads(line)["data"]["session_id"])
                if len(found) == len(marks):
                    break
    return found


def run(ctx: Context) -> list[Figure]:
    corpus = ensure_corpus(ctx.work, ctx.pick(100_000, 1_000_000), ctx.log)
    runs = ctx.pick(3, 5)
    folder = scratch_dir(ctx, NAME)
    try:
        home = copy_home(corpus, folder / "home")
        with Memoir(home) as handle:
            handle.rebuild()  # a checkpoint at the head and the projected files
        new: list[dict[str, Any]] = []
        again: list[dict[str, Any]] = []
        hermes: list[dict[str, Any]] = []
        for r in range(runs):
            new.append(run_child("open-new", str(home)))
            again.append(run_child("open-existing", str(home), new[-1]["session"]))
            if ctx.hermes_python is not None:
                hermes.append(measure_hermes_load(ctx.hermes_python, home / "memories",
                                                  directory=folder))
            ctx.log(f"  run {r + 1}/{runs}: new session {new[-1]['seconds'] * 1000:.1f} ms, "
                    f"existing {again[-1]['seconds'] * 1000:.1f} ms"
                    + (f", Hermes load {hermes[-1]['seconds'] * 1000:.1f} ms" if hermes else ""))
        old = [run_child("open-existing", str(home), corpus.meta["last_session"])
               for _ in range(ctx.pick(1, 3))]
        ctx.log(f"  corpus's last session: {_ms(old):.1f} ms")
        # Sessions pinned long ago whose kept prompt is gone (a restored backup, a
        # cleared cache): each one's first reopen renders its blocks again.
        oldest = _sessions_near(home, corpus.events, ctx.pick(3, 5))
        shutil.rmtree(home / ".memoir" / "prompts", ignore_errors=True)
        ancient = [run_child("open-existing", str(home), sid) for sid in oldest]
        ctx.log("  old sessions, no kept prompt: " + ", ".join(
            f"{r['pinned_seq']:,} {r['seconds'] * 1000:.1f} ms" for r in ancient))
        bare = copy_home(corpus, folder / "bare", checkpoints=False)
        replay = [run_child("open-new", str(bare))]
        ctx.log(f"  no checkpoint (full replay): {_ms(replay):.1f} ms")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    base = _ms(hermes) if hermes else None
    base_name = "Hermes cold load_from_disk + render of the same files"
    common = {"events": corpus.events, "runs": runs,
              "import_ms": round(_ms(new, "import_seconds"), 1),
              "hermes_import_ms": round(_ms(hermes, "import_seconds"), 1) if hermes else None}
    return [
        Figure(
            bench=NAME, name="open + start_session + prompt_blocks (checkpoint at head)",
            value=_ms(new), unit="ms", better="lower", baseline_name=base_name,
            baseline_value=base, target=Target("value", "<", 50),
            notes={**common, "open_only_ms": round(_ms(new, "open_seconds"), 1),
                   "maxrss_mb": median([r["maxrss_mb"] for r in new]),
                   "ms": [round(r["seconds"] * 1000, 1) for r in new]},
        ),
        Figure(
            bench=NAME, name="open + existing session (pinned at head) + prompt_blocks",
            value=_ms(again), unit="ms", better="lower", baseline_name=base_name,
            baseline_value=base, target=Target("value", "<", 50),
            notes={"open_only_ms": round(_ms(again, "open_seconds"), 1),
                   "ms": [round(r["seconds"] * 1000, 1) for r in again]},
        ),
        Figure(
            bench=NAME, name="open + corpus's last session (pinned before newest checkpoint)",
            value=_ms(old), unit="ms", better="lower", baseline_name=base_name,
            baseline_value=base,
            notes={"pinned_seq": corpus.meta["last_session_seq"],
                   "ms": [round(r["seconds"] * 1000, 1) for r in old]},
        ),
        Figure(
            bench=NAME, name="open + an old session, prompt not kept (renders it again)",
            value=_ms(ancient), unit="ms", better="lower", baseline_name=base_name,
            baseline_value=base, target=Target("value", "<", 50),
            notes={"pinned_seqs": [r["pinned_seq"] for r in ancient],
                   "ms": [round(r["seconds"] * 1000, 1) for r in ancient]},
        ),
        Figure(
            bench=NAME, name="open + start_session + prompt_blocks, no checkpoint (full replay)",
            value=_ms(replay), unit="ms", better="lower", baseline_name=base_name,
            baseline_value=base, notes={"maxrss_mb": replay[0]["maxrss_mb"]},
        ),
    ]
