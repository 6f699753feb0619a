"""Checkpoints: projection state saved with the journal position it was folded from.

A checkpoint records ``(seq, byte offset after that record, that record's hash)``.
Opening a home loads the newest checkpoint and asks the journal whether the record
ending at that offset really is that seq with that hash; a checkpoint that does not
match is ignored and the state is folded from the start (never trusted blindly).

Each file starts with a 32-byte BLAKE2b digest of the rest, keyed with the home's key
when one is configured (see :mod:`memoir.engine.seals`): a file whose digest does not
match is ignored.  Without a key the digest catches damage, not a forger, who can
recompute it; ``memoir verify --deep`` folds the journal and compares every
checkpoint with it.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from memoir.engine.materializer import atomic_write
from memoir.logs import get_logger
from memoir.projections.lazy import LazyDict
from memoir.projections.state import RunInfo, SessionInfo, State

__all__ = ["Checkpoint", "CheckpointStore", "History"]

log = get_logger("memoir.checkpoint")
FORMAT = 4
_DIGEST = 32


class Checkpoint(msgspec.Struct):
    """``<seq>.mpk``: the state without its sessions and runs, and where it was taken."""

    format: int
    seq: int
    offset: int
    hash: str
    state: State


class RawHistory(msgspec.Struct):
    """A ``<seq>.history`` with its entries left undecoded (one is decoded on demand)."""

    seq: int
    hash: str
    sessions: dict[str, msgspec.Raw]
    runs: dict[str, msgspec.Raw]


class History(msgspec.Struct):
    """``<seq>.history``: the sessions and runs of the same checkpoint, kept apart so
    that opening a home with a long history reads only the small part (see
    :mod:`memoir.projections.lazy`)."""

    seq: int
    hash: str
    sessions: dict[str, SessionInfo]
    runs: dict[str, RunInfo]


Replay = Callable[[int], State]


class CheckpointStore:
    """Checkpoint files in ``<home>/.memoir/checkpoints/<seq>.mpk``.

    Retention: the newest three, plus one per 100,000 seqs so that ``state(seq)`` for an
    old seq never replays more than that many records.
    """

    KEEP_RECENT = 3
    KEEP_EVERY = 100_000

    def __init__(self, folder: Path, *, key: bytes | None = None) -> None:
        self.folder = folder
        self.key = key
        self._encoder = msgspec.msgpack.Encoder()
        self._decoder = msgspec.msgpack.Decoder(Checkpoint)
        self._history = msgspec.msgpack.Decoder(History)
        self._raw_history = msgspec.msgpack.Decoder(RawHistory)
        self._session = msgspec.msgpack.Decoder(SessionInfo)
        self._run = msgspec.msgpack.Decoder(RunInfo)

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

    def load(self, seq: int, *, replay: Replay | None = None) -> Checkpoint | None:
        """The checkpoint at ``seq``, its sessions and runs left to decode on first read.

        ``replay(seq)`` folds the journal up to ``seq``; it stands in for a history file
        that has gone missing or does not match (another process pruned it, say).
        """
        try:
            cp = self._decoder.decode(self._open(self.folder / f"{seq}.mpk"))
        except (OSError, msgspec.DecodeError, msgspec.ValidationError) as exc:
            log.warning("checkpoint.unreadable", seq=seq, error=str(exc))
            return None
        if cp.format != FORMAT or cp.seq != seq or cp.state.seq != seq:
            return None
        box: list[History] = []

        def history() -> History:
            if not box:
                box.append(self._load_history(cp, replay))
            return box[0]

        raw_box: list[RawHistory | None] = []

        def raw() -> RawHistory | None:
            # One entry of an old session or run, without decoding the others (the
            # whole history is decoded only when something iterates it).
            if not raw_box:
                try:
                    found = self._raw_history.decode(self._open(self.folder /
                                                                f"{seq}.history"))
                    raw_box.append(found if found.seq == seq and found.hash == cp.hash
                                   else None)
                except (OSError, msgspec.DecodeError, msgspec.ValidationError):
                    raw_box.append(None)
            return raw_box[0]

        def one(field: str, decoder: Any) -> Any:
            def get(key: str) -> Any:
                got = raw()
                if got is None:  # no readable history file: the full load replays
                    return getattr(history(), field).get(key)
                data = getattr(got, field).get(key)
                return None if data is None else decoder.decode(data)

            return get

        cp.state.sessions = LazyDict(lambda: history().sessions, one("sessions", self._session))
        cp.state.runs = LazyDict(lambda: history().runs, one("runs", self._run))
        return cp

    def _load_history(self, cp: Checkpoint, replay: Replay | None) -> History:
        try:
            found = self._history.decode(self._open(self.folder / f"{cp.seq}.history"))
            if found.seq == cp.seq and found.hash == cp.hash:
                return found
            problem = "does not match its checkpoint"
        except (OSError, msgspec.DecodeError, msgspec.ValidationError) as exc:
            problem = str(exc)
        if replay is None:
            raise OSError(f"checkpoint {cp.seq}: history unreadable ({problem})")
        log.warning("checkpoint.history_replayed", seq=cp.seq, reason=problem)
        state = replay(cp.seq)
        state.load_history()
        return History(seq=cp.seq, hash=cp.hash, sessions=dict(state.sessions),
                       runs=dict(state.runs))

    def _digest(self, payload: bytes) -> bytes:
        return hashlib.blake2b(payload, digest_size=_DIGEST, key=self.key or b"").digest()

    def _sealed(self, payload: bytes) -> bytes:
        return self._digest(payload) + payload

    def _open(self, path: Path) -> bytes:
        """The payload of a checkpoint file whose digest matches (OSError otherwise)."""
        data = path.read_bytes()
        payload = data[_DIGEST:]
        if len(data) < _DIGEST or not hmac.compare_digest(data[:_DIGEST],
                                                          self._digest(payload)):
            raise OSError(f"{path.name}: its digest does not match its content (damaged, "
                          "edited, or saved with another key)")
        return payload

    def best(self, at_most: int | None = None) -> list[int]:
        """Checkpoint seqs to try, newest first, not beyond ``at_most``."""
        return [s for s in reversed(self.seqs()) if at_most is None or s <= at_most]

    def save(self, state: State, offset: int) -> None:
        state.load_history()
        history = History(seq=state.seq, hash=state.hash, sessions=state.sessions,
                          runs=state.runs)
        # History first: a checkpoint file never exists without the history it needs.
        atomic_write(self.folder / f"{state.seq}.history",
                     self._sealed(self._encoder.encode(history)))
        core = msgspec.structs.replace(state, sessions={}, runs={})
        cp = Checkpoint(format=FORMAT, seq=state.seq, offset=offset, hash=state.hash,
                        state=core)
        atomic_write(self.folder / f"{state.seq}.mpk", self._sealed(self._encoder.encode(cp)))
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
                self._remove(s)

    def remove(self, seq: int) -> None:
        """Remove the checkpoint at ``seq`` (and its history)."""
        self._remove(seq)

    def _remove(self, seq: int) -> None:
        (self.folder / f"{seq}.mpk").unlink(missing_ok=True)
        (self.folder / f"{seq}.history").unlink(missing_ok=True)

    def clear(self) -> None:
        for s in self.seqs():
            self._remove(s)
