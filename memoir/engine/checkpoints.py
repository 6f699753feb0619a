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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from memoir.fs.folder import Folder
from memoir.logs import get_logger
from memoir.projections.lazy import LazyDict
from memoir.projections.state import RunInfo, SessionInfo, State

__all__ = ["Checkpoint", "CheckpointStore", "History"]

log = get_logger("memoir.checkpoint")
FORMAT = 6
_DIGEST = 32


#: The history of a checkpoint is kept in this many files, by a hash of each key, so
#: one old session is found by decoding a sixteenth of it.
_SHARDS = 16


def _shard(key: str) -> str:
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=1).hexdigest()[1]


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

    def __init__(self, folder: Path | Folder, *, key: bytes | None = None) -> None:
        self.place = Folder.of(folder)
        self.folder = self.place.path
        self.key = key
        self._encoder = msgspec.msgpack.Encoder()
        self._decoder = msgspec.msgpack.Decoder(Checkpoint)
        self._history = msgspec.msgpack.Decoder(History)
        self._raw_history = msgspec.msgpack.Decoder(RawHistory)
        self._session = msgspec.msgpack.Decoder(SessionInfo)
        self._run = msgspec.msgpack.Decoder(RunInfo)

    def seqs(self) -> list[int]:
        out = []
        for name in self.place.names():
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
            cp = self._decoder.decode(self._open(f"{seq}.mpk"))
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

        raw_shards: dict[str, RawHistory | None] = {}
        sharded: list[bool] = []  # found out on the first lookup, not on every load

        def raw(key: str) -> RawHistory | None:
            # The part of the history that holds ``key``: one entry of an old session
            # or run is found by decoding one shard, not the whole history (which is
            # decoded only when something iterates it).
            if not sharded:
                sharded.append(self._sharded(seq))
            name = f"{seq}.history.{_shard(key)}" if sharded[0] else f"{seq}.history"
            if name not in raw_shards:
                try:
                    found = self._raw_history.decode(self._open(name))
                    raw_shards[name] = found if found.seq == seq and found.hash == cp.hash \
                        else None
                except (OSError, msgspec.DecodeError, msgspec.ValidationError):
                    raw_shards[name] = None
            return raw_shards[name]

        def one(field: str, decoder: Any) -> Any:
            def get(key: str) -> Any:
                got = raw(key)
                if got is None:  # no readable history file: the full load replays
                    return getattr(history(), field).get(key)
                data = getattr(got, field).get(key)
                return None if data is None else decoder.decode(data)

            return get

        cp.state.sessions = LazyDict(lambda: history().sessions, one("sessions", self._session))
        cp.state.runs = LazyDict(lambda: history().runs, one("runs", self._run))
        return cp

    def _sharded(self, seq: int) -> bool:
        """Whether checkpoint ``seq``'s history is in shards (else one file, as saved
        before histories were sharded)."""
        return self.place.exists(f"{seq}.history.0")

    def _load_history(self, cp: Checkpoint, replay: Replay | None) -> History:
        try:
            if self._sharded(cp.seq):
                parts = [self._history.decode(self._open(f"{cp.seq}.history.{x:x}"))
                         for x in range(_SHARDS)]
                found = History(seq=cp.seq, hash=cp.hash, sessions={}, runs={})
                good = all(p.seq == cp.seq and p.hash == cp.hash for p in parts)
                # Back in the order they were recorded (a dict's order is the state's).
                found.sessions = dict(sorted(
                    (item for part in parts for item in part.sessions.items()),
                    key=lambda item: item[1].pinned_seq))
                found.runs = dict(sorted(
                    (item for part in parts for item in part.runs.items()),
                    key=lambda item: item[1].first_seq))
            else:
                found = self._history.decode(self._open(f"{cp.seq}.history"))
                good = found.seq == cp.seq and found.hash == cp.hash
            if good:
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

    def _open(self, name: str) -> bytes:
        """The payload of a checkpoint file whose digest matches (OSError otherwise)."""
        data = self.place.read(name)
        if data is None:
            raise FileNotFoundError(f"{name}: missing, or not a regular file")
        payload = data[_DIGEST:]
        if len(data) < _DIGEST or not hmac.compare_digest(data[:_DIGEST],
                                                          self._digest(payload)):
            raise OSError(f"{name}: its digest does not match its content (damaged, "
                          "edited, or saved with another key)")
        return payload

    def best(self, at_most: int | None = None) -> list[int]:
        """Checkpoint seqs to try, newest first, not beyond ``at_most``."""
        return [s for s in reversed(self.seqs()) if at_most is None or s <= at_most]

    def save(self, state: State, offset: int) -> None:
        state.load_history()
        shards = [History(seq=state.seq, hash=state.hash, sessions={}, runs={})
                  for _ in range(_SHARDS)]
        for sid, info in state.sessions.items():
            shards[int(_shard(sid), 16)].sessions[sid] = info
        for rid, run in state.runs.items():
            shards[int(_shard(rid), 16)].runs[rid] = run
        # History first: a checkpoint file never exists without the history it needs.
        for x, shard in enumerate(shards):
            self.place.write(f"{state.seq}.history.{x:x}",
                             self._sealed(self._encoder.encode(shard)))
        core = msgspec.structs.replace(state, sessions={}, runs={})
        cp = Checkpoint(format=FORMAT, seq=state.seq, offset=offset, hash=state.hash,
                        state=core)
        self.place.write(f"{state.seq}.mpk", self._sealed(self._encoder.encode(cp)))
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
        self.place.unlink(f"{seq}.mpk")
        self.place.unlink(f"{seq}.history")
        for x in range(_SHARDS):
            self.place.unlink(f"{seq}.history.{x:x}")

    def clear(self) -> None:
        for s in self.seqs():
            self._remove(s)
