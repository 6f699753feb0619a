"""Checkpoints: projection state saved with the journal position it was folded from.

A checkpoint records ``(seq, byte offset after that record, that record's hash)``.
Opening a home loads the newest checkpoint and asks the journal whether the record
ending at that offset really is that seq with that hash; a checkpoint that does not
match is ignored and the state is folded from the start (never trusted blindly).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import msgspec
import structlog

from memoir.projections.lazy import LazyDict
from memoir.projections.materializer import atomic_write
from memoir.projections.state import RunInfo, SessionInfo, State

__all__ = ["Checkpoint", "CheckpointStore"]

log = structlog.get_logger("memoir.checkpoint")
FORMAT = 2


class Checkpoint(msgspec.Struct):
    """The file's shape.  ``state`` is the state without its sessions and runs, which
    are kept raw and decoded only when something reads them (see :mod:`lazy`)."""

    format: int
    seq: int
    offset: int
    hash: str
    state: State
    sessions: msgspec.Raw
    runs: msgspec.Raw


_SESSIONS = msgspec.msgpack.Decoder(dict[str, SessionInfo])
_RUNS = msgspec.msgpack.Decoder(dict[str, RunInfo])


def _lazy(raw: msgspec.Raw, decoder: msgspec.msgpack.Decoder[Any]) -> LazyDict[str, Any]:
    data = bytes(raw)
    return LazyDict(lambda: decoder.decode(data))


class CheckpointStore:
    """Checkpoint files in ``<home>/.memoir/checkpoints/<seq>.mpk``.

    Retention: the newest three, plus one per 100,000 seqs so that ``state(seq)`` for an
    old seq never replays more than that many records.
    """

    KEEP_RECENT = 3
    KEEP_EVERY = 100_000

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._encoder = msgspec.msgpack.Encoder()
        self._decoder = msgspec.msgpack.Decoder(Checkpoint)

    def seqs(self) -> list[int]:
        try:
            names = os.listdir(self.folder)
        except FileNotFoundError:
            return []
        out = []
        for name in names:
            stem, dot, ext = name.partition(".")
            if dot and ext == "mpk" and stem.isdigit():
                out.append(int(stem))
        return sorted(out)

    def load(self, seq: int) -> Checkpoint | None:
        try:
            cp = self._decoder.decode((self.folder / f"{seq}.mpk").read_bytes())
        except (OSError, msgspec.DecodeError, msgspec.ValidationError) as exc:
            log.warning("checkpoint.unreadable", seq=seq, error=str(exc))
            return None
        if cp.format != FORMAT or cp.seq != seq or cp.state.seq != seq:
            return None
        cp.state.sessions = _lazy(cp.sessions, _SESSIONS)
        cp.state.runs = _lazy(cp.runs, _RUNS)
        return cp

    def best(self, at_most: int | None = None) -> list[int]:
        """Checkpoint seqs to try, newest first, not beyond ``at_most``."""
        return [s for s in reversed(self.seqs()) if at_most is None or s <= at_most]

    def save(self, state: State, offset: int) -> None:
        state.load_history()
        core = msgspec.structs.replace(state, sessions={}, runs={})
        cp = Checkpoint(
            format=FORMAT, seq=state.seq, offset=offset, hash=state.hash, state=core,
            sessions=msgspec.Raw(self._encoder.encode(state.sessions)),
            runs=msgspec.Raw(self._encoder.encode(state.runs)),
        )
        atomic_write(self.folder / f"{state.seq}.mpk", self._encoder.encode(cp))
        self._prune()

    def _prune(self) -> None:
        seqs = self.seqs()
        keep = set(seqs[-self.KEEP_RECENT :])
        buckets: dict[int, int] = {}
        for s in seqs:
            buckets.setdefault(s // self.KEEP_EVERY, s)
        keep.update(buckets.values())
        for s in seqs:
            if s not in keep:
                (self.folder / f"{s}.mpk").unlink(missing_ok=True)

    def clear(self) -> None:
        for s in self.seqs():
            (self.folder / f"{s}.mpk").unlink(missing_ok=True)
