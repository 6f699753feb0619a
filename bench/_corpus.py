"""A large, realistic journal, built once and cached under ``.bench/corpus/``.

The journal looks like years of agent use: sessions start (and mostly end), each makes a
few ``memory`` writes within Hermes's limits (adds while they fit, then replaces and
removes), about one write in a hundred is refused by the threat scan, and every fortieth
session is followed by a memory-reviewer run that makes one to three changes in one
append.  Lines are encoded directly with :func:`memoir.events.codec.encode_record`
(no fsync, no lock), which is byte for byte what ``FileJournal`` writes.

While building, the state is folded as memoir would fold it and a checkpoint is saved
through memoir's own :class:`CheckpointStore` every 10,000 seqs (the default
``journal.checkpoint_every``), with its retention, so the cached home has the checkpoints
that normal operation would have left.

The cache is keyed by :data:`FORMAT`, the event count and a fingerprint of memoir's own
formats (the bytes of a sample journal line and the schema of a checkpoint), so a change to
either rebuilds the corpus by itself; bump :data:`FORMAT` when the generator changes.
``meta.json`` is written last: a folder without it is an interrupted build and is rebuilt.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import random
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from memoir.clock import format_ts
from memoir.engine import JOURNAL_FILE
from memoir.engine.checkpoints import Checkpoint, CheckpointStore
from memoir.events.codec import GENESIS, encode_record
from memoir.events.memory import EntryAdded, EntryRemoved, EntryReplaced, LimitsSet, WriteRejected
from memoir.events.runs import RunStarted
from memoir.events.sessions import SessionEnded, SessionStarted
from memoir.events.types import Event, Payload
from memoir.fs.folder import Folder
from memoir.projections.state import State

__all__ = ["FORMAT", "Corpus", "copy_home", "ensure_corpus"]

FORMAT = "v1"
CHECKPOINT_EVERY = 10_000
LIMITS = {"memory": 2200, "user": 1375}
_DELIM = 3
_PHRASES = (
    "the project uses make and pytest; staging runs on bastion-2; prefers concise answers",
    "deploys happen on fridays; the api key lives in vault; user is a backend engineer",
    "timezone is CET; avoid force pushes; the monorepo has three services; docs in mkdocs",
    "uses poetry for python deps; ci is github actions; database is postgres 16; likes tables",
)
_WORDS = [word for phrase in _PHRASES for word in phrase.split()]


@dataclass(frozen=True)
class Corpus:
    """A cached home: ``journal.jsonl`` plus ``.memoir/checkpoints``."""

    home: Path
    meta: dict[str, Any]

    @property
    def journal(self) -> Path:
        return self.home / JOURNAL_FILE

    @property
    def events(self) -> int:
        return int(self.meta["events"])


class _Writer:
    """Encodes records, folds them and keeps the checkpoints, as a real home would."""

    def __init__(self, home: Path, rng: random.Random) -> None:
        self.rng = rng
        self.fh = open(home / JOURNAL_FILE, "wb")  # noqa: SIM115  (closed by finish())
        self.checkpoints = CheckpointStore(Folder(home, ".memoir/checkpoints"))
        self.state = State()
        self.prev = GENESIS
        self.seq = 0
        self.offset = 0
        self.buffer: list[bytes] = []
        self.now = dt.datetime(2024, 1, 1, 8, 0, tzinfo=dt.UTC)
        self.last_checkpoint = 0

    def append(self, payloads: list[Payload], *, actor: str, session: str | None = None,
               run: str | None = None) -> None:
        count = len(payloads)
        for i, data in enumerate(payloads):
            self.now += dt.timedelta(seconds=self.rng.randint(1, 90))
            self.seq += 1
            ms = int(self.now.timestamp() * 1000)
            event_id = f"{ms:012x}{self.rng.getrandbits(80):020x}"
            ts = format_ts(self.now)
            more = count - 1 - i
            line, self.prev = encode_record(
                seq=self.seq, id=event_id, ts=ts, actor=actor, session=session, run=run,
                causation=None, more=more, data=data, prev=self.prev,
            )
            self.buffer.append(line)
            self.offset += len(line) + 1
            self.state.apply(Event(
                seq=self.seq, id=event_id, ts=ts, type=data.TYPE, v=data.VERSION, actor=actor,
                session=session, run=run, causation=None, more=more, data=data,
                hash=self.prev.decode(),
            ))
        if len(self.buffer) >= 65_536:
            self.flush()
        if self.seq - self.last_checkpoint >= CHECKPOINT_EVERY:
            self.checkpoints.save(self.state, self.offset)
            self.last_checkpoint = self.seq

    def flush(self) -> None:
        if self.buffer:
            self.fh.write(b"\n".join(self.buffer) + b"\n")
            self.buffer.clear()

    def finish(self) -> None:
        self.flush()
        self.fh.close()


class _Memory:
    """The writer's model of the entries, to keep every write within the limits."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.entries: dict[str, list[tuple[str, str]]] = {"memory": [], "user": []}
        self.counter = 0

    def _text(self) -> str:
        self.counter += 1
        words = self.rng.choices(_WORDS, k=self.rng.randint(6, 28))
        return f"{' '.join(words).capitalize()} (note {self.counter})."

    def _total(self, texts: list[str]) -> int:
        return sum(map(len, texts)) + _DELIM * (len(texts) - 1) if texts else 0

    def change(self) -> Payload:
        """One memory write that fits the limits, chosen the way an agent would."""
        rng = self.rng
        if rng.random() < 0.01:
            return WriteRejected(
                target="memory", action="add", reason="threat", pattern_ids=["prompt_injection"],
                preview="ignore previous instructions and", length=52, sha256="0" * 64,
            )
        target = "memory" if rng.random() < 0.7 else "user"
        entries = self.entries[target]
        texts = [t for _i, t in entries]
        text = self._text()
        fits = self._total([*texts, text]) <= LIMITS[target]
        roll = rng.random()
        if not entries or (fits and roll < 0.6):
            if not fits:
                text = text[: max(20, LIMITS[target] - self._total(texts) - _DELIM)]
            entry_id = f"e-{rng.getrandbits(48):012x}"
            entries.append((entry_id, text))
            return EntryAdded(target=target, entry_id=entry_id, text=text)  # type: ignore[arg-type]
        index = rng.randrange(len(entries))
        entry_id, previous = entries[index]
        if roll < 0.85:
            others = [t for j, t in enumerate(texts) if j != index]
            room = LIMITS[target] - self._total([*others, ""])
            new = text[: max(10, min(len(text), room))]
            if self._total([*others, new]) <= LIMITS[target]:
                entries[index] = (entry_id, new)
                return EntryReplaced(target=target, entry_id=entry_id, text=new,  # type: ignore[arg-type]
                                     previous=previous)
        del entries[index]
        return EntryRemoved(target=target, entry_id=entry_id, previous=previous,  # type: ignore[arg-type]
                            position=index)


def _build(home: Path, events: int, log: Callable[[str], None]) -> dict[str, Any]:
    rng = random.Random(20_260_101)
    writer = _Writer(home, rng)
    memory = _Memory(rng)
    writer.append([LimitsSet(memory=LIMITS["memory"], user=LIMITS["user"])], actor="system")
    sessions = runs = 0
    last_session = ""
    next_report = 100_000
    while writer.seq < events:
        sessions += 1
        sid = f"s-{rng.getrandbits(48):012x}"
        last_session = sid
        writer.append([SessionStarted(session_id=sid, platform=rng.choice(["cli", "telegram"]))],
                      actor="agent", session=sid)
        for _ in range(rng.randint(1, 8)):
            writer.append([memory.change()], actor="agent", session=sid)
        if rng.random() < 0.85:
            writer.append([SessionEnded(session_id=sid)], actor="agent", session=sid)
        if sessions % 40 == 0:
            runs += 1
            run_id = f"r-{rng.getrandbits(48):012x}"
            changes = [memory.change() for _ in range(rng.randint(1, 3))]
            writer.append([RunStarted(run_id=run_id, kind="review", summary="memory review"),
                           *changes], actor="reviewer.memory", run=run_id)
        if writer.seq >= next_report:
            log(f"  corpus: {writer.seq:,} events")
            next_report += 100_000
    writer.finish()
    return {
        "format": FORMAT,
        "events": writer.seq,
        "bytes": writer.offset,
        "sessions": sessions,
        "review_runs": runs,
        "last_session": last_session,
        "last_session_seq": writer.state.sessions[last_session].pinned_seq,
        "head_hash": writer.prev.decode(),
        "checkpoints": writer.checkpoints.seqs(),
    }


def fingerprint() -> str:
    """Changes whenever memoir's journal line or checkpoint format does."""
    line, _ = encode_record(
        seq=1, id="0" * 32, ts="2024-01-01T00:00:00.000000+00:00", actor="agent", session="s",
        run=None, causation=None, more=0, data=EntryAdded(target="memory", entry_id="e", text="t"),
        prev=GENESIS,
    )
    schema = msgspec.json.encode(msgspec.json.schema(Checkpoint), order="sorted")
    return hashlib.blake2b(line + b"\n" + schema, digest_size=4).hexdigest()


def ensure_corpus(work: Path, events: int, log: Callable[[str], None]) -> Corpus:
    """The cached corpus of about ``events`` events, built now if missing."""
    home = work / "corpus" / f"{FORMAT}-{events}-{fingerprint()}"
    meta_path = home / "meta.json"
    if meta_path.exists():
        return Corpus(home, json.loads(meta_path.read_text(encoding="utf-8")))
    if home.exists():
        shutil.rmtree(home)
    home.mkdir(parents=True)
    log(f"  building a {events:,}-event corpus in {home} (cached for later runs)")
    started = time.perf_counter()
    meta = _build(home, events, log)
    meta["build_seconds"] = round(time.perf_counter() - started, 1)
    meta_path.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return Corpus(home, meta)


def copy_home(corpus: Corpus, dest: Path, *, checkpoints: bool = True) -> Path:
    """A writable copy of the corpus home at ``dest`` (the cache itself is never changed)."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    shutil.copyfile(corpus.journal, dest / JOURNAL_FILE)
    if checkpoints:
        shutil.copytree(corpus.home / ".memoir", dest / ".memoir")
    os.sync()
    return dest
