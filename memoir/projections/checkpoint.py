"""Checkpoints: projection state saved with the journal position it was folded from.

A checkpoint records ``(seq, byte offset after that record, that record's hash)``.
Opening a home loads the newest checkpoint and asks the journal whether the record
ending at that offset really is that seq with that hash; a checkpoint that does not
match is ignored and the state is folded from the start (never trusted blindly).
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import structlog

from memoir.projections.materializer import atomic_write
from memoir.projections.state import State

__all__ = ["Checkpoint", "CheckpointStore"]

log = structlog.get_logger("memoir.checkpoint")
FORMAT = 1


class Checkpoint(msgspec.Struct):
    format: int
    seq: int
    offset: int
    hash: str
    state: State


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
        return cp

    def best(self, at_most: int | None = None) -> list[int]:
        """Checkpoint seqs to try, newest first, not beyond ``at_most``."""
        return [s for s in reversed(self.seqs()) if at_most is None or s <= at_most]

    def save(self, state: State, offset: int) -> None:
        cp = Checkpoint(format=FORMAT, seq=state.seq, offset=offset, hash=state.hash, state=state)
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
