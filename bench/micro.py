"""Microbenchmarks that say where the time of the big benchmarks goes.

Each is nanoseconds per operation (median of 5 loops, collector paused), with a
reference measured in the same run where one makes sense; the ratio is memoir's time
over the reference's, so below 1 is faster.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable

import msgspec

from bench._hermes import measure_hermes_scan
from bench._measure import Context, Figure, per_op_ns, scratch_dir
from memoir.engine.materializer import Materializer
from memoir.events.codec import GENESIS, Decoder, encode_record
from memoir.events.memory import EntryAdded, EntryReplaced, LimitsSet
from memoir.events.types import Event, Payload
from memoir.journal import FileJournal
from memoir.projections.memory import FILE_NAMES, file_text, render_block
from memoir.projections.state import State
from memoir.threats import first_threat_message

NAME = "micro"
# A benign 100-character entry, the typical size of a memory note.
SCAN_TEXT = ("User prefers concise answers; the repo builds with make and tests run under "
             "pytest -q in CI, daily.")[:100].ljust(100, ".")


def _event(seq: int, data: Payload) -> tuple[Event, bytes]:
    line, digest = encode_record(
        seq=seq, id="0190aabbccdd" + "0" * 20, ts="2026-11-22T02:28:00.123456+00:00",
        actor="agent", session="s-0123456789ab", run=None, causation=None, more=0, data=data,
        prev=b"0" * 32,
    )
    event = Event(seq=seq, id="0190aabbccdd" + "0" * 20, ts="2026-11-22T02:28:00.123456+00:00",
                  type=data.TYPE, v=data.VERSION, actor="agent", session="s-0123456789ab",
                  more=0, data=data, hash=digest.decode())
    return event, line


def _full_state() -> State:
    """A state whose MEMORY.md is nearly full (20 entries of ~100 chars)."""
    state = State()
    state.apply(_event(1, LimitsSet(memory=2200, user=1375))[0])
    for i in range(20):
        text = f"{SCAN_TEXT[:90]} #{i:03d}"
        state.apply(_event(2 + i, EntryAdded(target="memory", entry_id=f"e-{i:012x}",
                                             text=text))[0])
    return state


def run(ctx: Context) -> list[Figure]:
    budget = 0.05 if ctx.quick else 0.2
    figures: list[Figure] = []

    def add(name: str, fn: Callable[[], object], base_name: str | None = None,
            base: Callable[[], object] | float | None = None, **notes: object) -> None:
        value = per_op_ns(fn, budget_s=budget)
        base_value = base if isinstance(base, float) or base is None else per_op_ns(
            base, budget_s=budget)
        figures.append(Figure(bench=NAME, name=name, value=value, unit="ns/op", better="lower",
                              baseline_name=base_name, baseline_value=base_value,
                              notes=dict(notes)))
        ctx.log(f"  {name}: {value:,.0f} ns")

    payload = EntryAdded(target="memory", entry_id="e-0123456789ab", text=SCAN_TEXT)
    event, line = _event(7, payload)

    def encode() -> object:
        return encode_record(
            seq=7, id=event.id, ts=event.ts, actor="agent", session="s-0123456789ab", run=None,
            causation=None, more=0, data=payload, prev=GENESIS,
        )

    add("encode + hash one record", encode, "msgspec.json.encode of the same Event",
        lambda: msgspec.json.encode(event), line_bytes=len(line))
    decoder = Decoder()
    add("decode one line", lambda: decoder.decode(line),
        "msgspec.json.decode of the line (untyped)", lambda: msgspec.json.decode(line))

    state = _full_state()
    target = state.memory.memory.entries[10]
    replace, _ = _event(99, EntryReplaced(target="memory", entry_id=target.id, text=target.text,
                                          previous=target.text))
    add("fold one event (replace in a 20-entry target)", lambda: state.apply(replace))

    hermes_scan = None
    if ctx.hermes_python is not None:
        hermes_scan = float(measure_hermes_scan(ctx.hermes_python, SCAN_TEXT)["ns_per_scan"])
    assert first_threat_message(SCAN_TEXT) is None
    add("threat scan of a 100-char entry", lambda: first_threat_message(SCAN_TEXT),
        "Hermes _scan_memory_content, same text", hermes_scan)

    texts = state.memory.memory.texts()
    add("render the MEMORY prompt block (20 entries)",
        lambda: render_block("memory", texts, 2200))

    folder = scratch_dir(ctx, NAME)
    try:
        rel = f"memories/{FILE_NAMES['memory']}"
        versions = [file_text(texts).encode(), file_text(texts[1:]).encode()]
        (folder / "home").mkdir()  # a home exists before its files are written
        materializer = Materializer(folder / "home")  # configured as Memoir configures it
        synced = bool(getattr(materializer, "fsync", False))
        flip = [0]

        def materialize() -> object:
            flip[0] ^= 1
            return materializer.write({rel: versions[flip[0]]}, seq=flip[0])

        plain_path = folder / "plain" / "MEMORY.md"
        plain_path.parent.mkdir()

        def plain_write() -> object:
            flip[0] ^= 1
            tmp = plain_path.with_name(".MEMORY.md.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.write(fd, versions[flip[0]])
            if synced:
                os.fsync(fd)
            os.close(fd)
            os.replace(tmp, plain_path)
            return None

        sync_note = "fsync" if synced else "no fsync"
        add(f"materialize MEMORY.md (changed, {sync_note})", materialize,
            f"write temp file ({sync_note}) + os.replace of the same bytes", plain_write,
            file_bytes=len(versions[0]))

        journal = FileJournal(folder / "journal.jsonl", durability="never")
        lock_fd = os.open(folder / "plain.lock", os.O_RDWR | os.O_CREAT, 0o644)

        def journal_lock() -> object:
            with journal.locked():
                return None

        def raw_lock() -> object:
            fcntl.flock(lock_fd, fcntl.LOCK_EX)
            fcntl.flock(lock_fd, fcntl.LOCK_UN)
            return None

        add("FileJournal.locked() enter + exit (empty journal)", journal_lock,
            "fcntl.flock LOCK_EX + LOCK_UN on an open descriptor", raw_lock)
        journal.close()
        os.close(lock_fd)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return figures
