"""Forgetting: removing content for good while the journal still verifies (the
mechanics; ``memoir forget`` comes through :mod:`memoir.oversight.forget`).

Every record's hash covers a digest of its payload, not the payload
(:mod:`memoir.events.codec`), so a payload can be replaced by a tombstone carrying that
digest and the chain still holds.  :func:`plan_forget` finds what a selector names —
``text`` (every record whose payload holds the text, every transcript body that holds
it) or ``entry`` (a memory entry through all its versions, and then every text those
versions held) — and :func:`forget` removes it, in this order:

1. a ``journal.forgotten`` record is appended (which seqs, their payload digests,
   which bodies, the selector, the reason; never the content): the forget is decided;
2. each selected record's payload is overwritten in place by its tombstone, padded
   with spaces to the same length (so every offset, checkpoint position and hash stays
   valid), and the journal is synced;
3. each selected transcript body is overwritten in place by a ``[forgotten]`` message
   of the same length;
4. the caches that hold folded text (checkpoints and memory snapshots, kept prompts,
   the search index) are deleted, the state is folded again, and the projected files
   are written again;
5. any other file under the home that still holds the text (a ``.bak`` drift copy, a
   curator report, an archived skill, a hand-edited file) has it replaced by
   ``[forgotten]``.

Steps 2-5 are idempotent: :func:`finish_forgets` completes a forget that was
interrupted after step 1 from the record alone (``memoir forget --finish``).  A record
whose payload is too short to hold a tombstone, or whose envelope (not its payload)
holds the text, is reported, not changed.  Records of a journal written before the
payload digest cannot be tombstoned without changing their hash: they are refused with
that reason.  The PostgreSQL journal is not covered yet (refused with a clear error).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memoir.engine.commit import Caller, Decision
from memoir.engine.private import Folder
from memoir.engine.prompts import PROMPTS, PromptCache
from memoir.engine.transcripts import FOLDER as TRANSCRIPTS
from memoir.engine.transcripts import line_hash as _hash
from memoir.errors import MemoirError, NotFoundError, ValidationError
from memoir.events.codec import (
    Decoder,
    Forgotten,
    hash_of_line,
    line_hash_ok,
    payload_digest,
    payload_span,
    tombstone,
)
from memoir.events.forget import ContentForgotten
from memoir.events.memory import EntryAdded, EntryRemoved, EntryReplaced
from memoir.events.sessions import TurnRecorded
from memoir.ids import short_id
from memoir.journal.interface import Progress
from memoir.projections.state import State

__all__ = ["ForgetInterrupted", "ForgetPlan", "finish_forgets", "forget", "plan_forget"]

#: What replaces forgotten text in files memoir does not rebuild.
MARK = "[forgotten]"
_SKIP_SCRUB = ("journal.jsonl", "config.yaml")


class ForgetInterrupted(MemoirError):
    """A forget stopped after it was journaled (Ctrl-C, a full disk): what it selected is
    partly removed; ``memoir forget --finish`` completes it from its record."""

    def __init__(self, run: str, cause: BaseException) -> None:
        why = type(cause).__name__ if isinstance(cause, KeyboardInterrupt) else \
            f"{type(cause).__name__}: {cause}"
        super().__init__(f"the forget (run {run}) was journaled and then interrupted "
                         f"({why}); part of it is done: `memoir forget --finish` completes "
                         "it")
        self.run = run


@dataclass
class ForgetPlan:
    """What a forget will remove (see the module docstring)."""

    selector: str
    #: The texts whose bytes must go (never journaled).
    needles: list[str]
    #: seq -> event type of the records whose payloads become tombstones.
    records: dict[int, str] = field(default_factory=dict)
    #: Transcript references of the bodies to blank.
    bodies: list[str] = field(default_factory=list)
    #: Records that hold the text but cannot be tombstoned, and why.
    refused: dict[int, str] = field(default_factory=dict)
    #: seq -> (byte offset of its payload in the journal file, payload size, digest).
    places: dict[int, tuple[int, int, str]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.records and not self.bodies


def _forms(text: str) -> list[bytes]:
    """The byte forms ``text`` takes in memoir's files: as is, and JSON-escaped (both
    with non-ASCII kept and escaped)."""
    forms = {text.encode("utf-8"), json.dumps(text, ensure_ascii=False)[1:-1].encode("utf-8"),
             json.dumps(text)[1:-1].encode("ascii")}
    return sorted((f for f in forms if f), key=len, reverse=True)


def _holds(data: bytes, forms: Sequence[bytes]) -> bool:
    return any(form in data for form in forms)


def _journal_path(engine: Any) -> Path:
    journal = engine.journal
    if journal.kind != "file":
        raise ValidationError(f"memoir forget does not cover a {journal.kind} journal yet "
                              "(issue 23); nothing was changed")
    return Path(journal.path)


def _lines(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """(seq, offset, line without its newline) of every whole line of the journal."""
    offset = 0
    seq = 0
    with open(path, "rb") as stream:
        for raw in stream:
            if not raw.endswith(b"\n"):
                return  # a torn tail: not a record
            seq += 1
            yield seq, offset, raw[:-1]
            offset += len(raw)


def plan_forget(engine: Any, selector: str, value: str, *, target: str | None = None,
                path: str | None = None, progress: Progress | None = None) -> ForgetPlan:
    """What forgetting ``selector`` ``value`` removes (nothing is changed).  ``progress``
    is told how the reading goes (phase "searching")."""
    bodies: list[str] = []
    if selector == "text":
        if len(value.strip()) < 4:
            raise ValidationError("give at least 4 characters of text to forget (a shorter "
                                  "text would match far more than you mean)")
        needles = [value]
        entry_seqs: set[int] = set()
    elif selector == "entry":
        needles, entry_seqs = _entry_texts(engine, value, target)
    elif selector == "session":
        needles, entry_seqs, bodies = [], *_session_parts(engine, value)
    elif selector == "run":
        needles, entry_seqs = [], _run_records(engine, value)
    elif selector == "skill":
        needles, entry_seqs = _skill_texts(engine, value, path)
    else:
        raise ValidationError(f"memoir forget --{selector} is not a selector")
    plan = ForgetPlan(selector=selector, needles=needles)
    forms = [f for n in needles for f in _forms(n)]
    prev = b""
    head = engine.head
    for seq, offset, line in _lines(_journal_path(engine)):
        if progress is not None and seq % 50_000 == 0:
            progress("searching", seq, head)
        before, prev = prev, hash_of_line(line)
        span = payload_span(line)
        in_payload = span is not None and _holds(line[span[0]:span[1]], forms)
        if not in_payload and seq not in entry_seqs:
            if _holds(line, forms):
                plan.refused[seq] = "the text is in the record's envelope, not its payload"
            continue
        if span is None:
            plan.refused[seq] = "not a record memoir can read"
            continue
        payload = line[span[0]:span[1]]
        if payload.rstrip(b" ").startswith(b'{"forgotten":'):
            continue  # forgotten already
        if len(payload) < len(tombstone(b"0" * 32)):
            plan.refused[seq] = "its payload is too short to hold a tombstone"
            continue
        probe = line[:span[0]] + tombstone(payload_digest(payload)) + line[span[1]:]
        if not line_hash_ok(before, probe):
            plan.refused[seq] = ("written before the payload digest: a tombstone would "
                                 "change its hash")
            continue
        plan.records[seq] = _type_of(line)
        plan.places[seq] = (offset + span[0], len(payload), payload_digest(payload).decode())
    plan.bodies = list(dict.fromkeys([*bodies, *(ref for ref, _body in
                                                 _bodies(engine.home, forms))]))
    return plan


def _type_of(line: bytes) -> str:
    start = line.find(b'"type":"')
    return line[start + 8:line.find(b'"', start + 8)].decode("utf-8", "replace") \
        if start >= 0 else "?"


def _entry_texts(engine: Any, entry_id: str, target: str | None) -> tuple[list[str], set[int]]:
    """Every text memory entry ``entry_id`` held, and the seqs of its records: one pass
    over the journal's lines, decoding only those that name the entry."""
    texts: list[str] = []
    seqs: set[int] = set()
    probe = b'"entry_id":' + json.dumps(entry_id).encode()
    decoder = Decoder()
    for seq, _offset, line in _lines(_journal_path(engine)):
        if probe not in line or b'"type":"memory.entry_' not in line:
            continue
        data = decoder.decode(line).data
        if not isinstance(data, EntryAdded | EntryReplaced | EntryRemoved) or \
                data.entry_id != entry_id or (target is not None and data.target != target):
            continue
        seqs.add(seq)
        for text in (getattr(data, "text", ""), getattr(data, "previous", "")):
            if text and text not in texts:
                texts.append(text)
    if not seqs:
        raise NotFoundError(f"no memory entry {entry_id!r}"
                            + (f" in {target}" if target else ""))
    return texts, seqs


def _session_parts(engine: Any, session_id: str) -> tuple[set[int], list[str]]:
    """The records that hold a conversation's text (its turns, with their failed tool
    calls, its summary, the context recalled into it, its reviews) and its bodies."""
    seqs: set[int] = set()
    bodies: list[str] = []
    for event in engine.events():
        data = event.data
        if isinstance(data, TurnRecorded) and data.session_id == session_id:
            seqs.add(event.seq)
            bodies += [m.ref for m in data.messages]
        elif (getattr(data, "session_id", None) == session_id and event.type in (
                "session.summarized", "session.context_recalled")) or \
                (event.session == session_id and event.type.startswith("review.")):
            seqs.add(event.seq)
    if not seqs:
        raise NotFoundError(f"no recorded conversation in session {session_id!r}")
    return seqs, bodies


def _run_records(engine: Any, run: str) -> set[int]:
    """Every record a run wrote."""
    seqs = {e.seq for e in engine.events() if e.run == run}
    if not seqs:
        raise NotFoundError(f"no run {run!r} in the journal; `memoir runs` lists them")
    return seqs


def _skill_texts(engine: Any, name: str, path: str | None) -> tuple[list[str], set[int]]:
    """Every text a skill's records held (of one file when ``path`` is given), and the
    seqs of those records."""
    texts: list[str] = []
    seqs: set[int] = set()
    key = f"skill:{name}"
    for event in engine.events():
        if key not in event.data.entities():
            continue
        file = getattr(event.data, "file", None) or ("SKILL.md" if hasattr(
            event.data, "content") else None)
        if path is not None and file != path:
            continue
        seqs.add(event.seq)
        for field_name in ("content", "previous", "new_string", "old_string"):
            text = getattr(event.data, field_name, None)
            if isinstance(text, str) and len(text.strip()) >= 8 and text not in texts:
                texts.append(text)
    if not seqs:
        raise NotFoundError(f"no skill {name!r}" + (f" file {path!r}" if path else ""))
    return texts, seqs


def _bodies(home: Path, forms: Sequence[bytes]) -> Iterator[tuple[str, bytes]]:
    """(reference, line) of every transcript body that holds one of ``forms``."""
    folder = home / TRANSCRIPTS
    if not folder.is_dir():
        return
    for pack in sorted(folder.glob("pack-*.jsonl")):
        if pack.is_symlink():
            continue
        offset = 0
        with open(pack, "rb") as stream:
            for raw in stream:
                body = raw.rstrip(b"\n")
                if _holds(body, forms) and not body.startswith(b'{"forgotten":'):
                    yield f"{pack.stem}:{offset}:{len(body)}:{_hash(body)}", body
                offset += len(raw)


def forget(engine: Any, plan: ForgetPlan, *, by: str = "user", reason: str = "",
           caches: Sequence[Callable[[Path], None]] = ()) -> tuple[str, ContentForgotten]:
    """Journal ``plan`` and carry it out (see the module docstring); returns the run and
    the record."""
    if plan.empty:
        raise NotFoundError("nothing matches: nothing was forgotten")
    _journal_path(engine)
    seqs = sorted(plan.records)
    record = ContentForgotten(seqs=seqs, digests=[plan.places[s][2] for s in seqs],
                              bodies=list(plan.bodies), selector=plan.selector,
                              reason=reason[:500])
    run = short_id("forget-")

    def decide(_state: State) -> Decision[None]:
        return Decision(events=[record])

    # The texts wait in a private file until every step is done, so an interrupted
    # forget can be finished (the journal record never holds them).
    pending = _pending_file(engine.home, run)
    pending.write(run, plan.needles)
    try:
        engine.commit(decide, by=Caller(actor=by, run=run, run_kind="forget",
                                        run_summary=f"forget ({plan.selector})"))
    except BaseException:
        pending.remove()  # not journaled: nothing was forgotten
        raise
    try:
        scrubbed = _carry_out(engine, record, plan.needles, caches, plan.places)
    except BaseException as exc:
        raise ForgetInterrupted(run, exc) from exc
    pending.remove()
    return run, ContentForgotten(seqs=record.seqs, digests=record.digests,
                                 bodies=record.bodies, selector=record.selector,
                                 reason=record.reason, files=scrubbed)


def finish_forgets(engine: Any, caches: Sequence[Callable[[Path], None]] = ()) -> int:
    """Carry out every journaled forget that was interrupted (its texts still wait in
    their private file, or its records and bodies are not all forgotten); a waiting file
    whose forget was never journaled is dropped (nothing was forgotten).  How many
    forgets were finished."""
    records = {e.run: e.data for e in engine.journal.read_family("journal.forgotten")
               if isinstance(e.data, ContentForgotten)}
    done = 0
    waiting = _PendingFile.all(engine.home)
    for run, pending in waiting.items():
        record = records.get(run)
        if record is not None:
            _carry_out(engine, record, pending.read(), caches)
            done += 1
        pending.remove()
    for run, record in records.items():
        if run not in waiting and _pending(engine, record):
            _carry_out(engine, record, [], caches)
            done += 1
    return done


_PENDING = ".memoir/forget-pending"


@dataclass
class _PendingFile:
    """The texts of a forget under way (``.memoir/forget-pending/<run>.json``, 0600)."""

    path: Path

    @classmethod
    def all(cls, home: Path) -> dict[str, _PendingFile]:
        folder = home / _PENDING
        if not folder.is_dir() or folder.is_symlink():
            return {}
        return {p.stem: cls(p) for p in sorted(folder.glob("forget-*.json"))
                if p.is_file() and not p.is_symlink()}

    def write(self, run: str, needles: Sequence[str]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({"run": run, "needles": list(needles)}, out)
            out.flush()
            os.fsync(out.fileno())

    def read(self) -> list[str]:
        try:
            value = json.loads(self.path.read_text(encoding="utf-8"))
            return [str(n) for n in value.get("needles", []) if isinstance(n, str)]
        except (OSError, ValueError, AttributeError):
            return []

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


def _pending_file(home: Path, run: str) -> _PendingFile:
    return _PendingFile(home / _PENDING / f"{run}.json")


def _pending(engine: Any, record: ContentForgotten) -> bool:
    wanted = set(record.seqs)
    if any(not isinstance(e.data, Forgotten) for e in engine.journal.read()
           if e.seq in wanted):
        return True
    return any(not _body_forgotten(engine.home, ref) for ref in record.bodies)


def _carry_out(engine: Any, record: ContentForgotten, needles: Sequence[str],
               caches: Sequence[Callable[[Path], None]],
               places: dict[int, tuple[int, int, str]] | None = None) -> int:
    """Steps 2-5 of the module docstring; returns how many other files were scrubbed.
    ``places``: where each payload is (from the plan), else the journal is read."""
    path = _journal_path(engine)
    if places is not None and set(places) == set(record.seqs):
        _tombstone_at(path, list(places.values()))
    else:
        _tombstone_records(path, dict(zip(record.seqs, record.digests, strict=True)))
    for ref in record.bodies:
        _blank_body(engine.home, ref)
    _refold(engine, caches, min(record.seqs) if record.seqs else None)
    return _scrub(engine.home, [f for n in needles for f in _forms(n)]) if needles else 0


def _tombstone_at(path: Path, places: Sequence[tuple[int, int, str]]) -> None:
    """Overwrite each payload (at a byte offset, of a size, with a digest) by its
    tombstone padded to the same length; a payload that is no longer the one planned
    (its digest differs) is left alone."""
    fd = os.open(path, os.O_RDWR)
    try:
        for offset, size, digest in places:
            stone = tombstone(digest.encode())
            current = os.pread(fd, size, offset)
            if len(stone) > size or current.rstrip(b" ") == stone or \
                    payload_digest(current).decode() != digest:
                continue
            os.pwrite(fd, stone + b" " * (size - len(stone)), offset)
        os.fsync(fd)
    finally:
        os.close(fd)


def _tombstone_records(path: Path, digests: dict[int, str]) -> None:
    """Overwrite each payload in place by its tombstone padded to the same length."""
    if not digests:
        return
    fd = os.open(path, os.O_RDWR)
    try:
        for seq, offset, line in _lines(path):
            digest = digests.get(seq)
            if digest is None:
                continue
            span = payload_span(line)
            if span is None:
                continue
            size = span[1] - span[0]
            stone = tombstone(digest.encode())
            if line[span[0]:span[1]].rstrip(b" ") == stone or len(stone) > size:
                continue
            os.pwrite(fd, stone + b" " * (size - len(stone)), offset + span[0])
        os.fsync(fd)
    finally:
        os.close(fd)


def _body_forgotten(home: Path, ref: str) -> bool:
    name, offset, length, _digest = ref.split(":")
    path = home / TRANSCRIPTS / f"{name}.jsonl"
    try:
        with open(path, "rb") as stream:
            stream.seek(int(offset))
            return stream.read(int(length)).startswith(b'{"forgotten":')
    except OSError:
        return True  # nothing left to blank


def _blank_body(home: Path, ref: str) -> None:
    """Overwrite one body in place by a ``[forgotten]`` message of the same length."""
    name, offset, length, _digest = ref.split(":")
    path = home / TRANSCRIPTS / f"{name}.jsonl"
    if path.is_symlink() or not path.is_file():
        return
    fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
    try:
        old = os.pread(fd, int(length), int(offset))
        if old.startswith(b'{"forgotten":'):
            return
        try:
            role = str(json.loads(old).get("role", "user"))[:20]
        except (ValueError, AttributeError):
            role = "user"
        blank = json.dumps({"forgotten": True, "role": role, "content": MARK},
                           separators=(",", ":")).encode()
        if len(blank) > len(old):
            blank = b'{"forgotten":true}'
        if len(blank) <= len(old):
            os.pwrite(fd, blank + b" " * (len(old) - len(blank)), int(offset))
            os.fsync(fd)
    finally:
        os.close(fd)


def _refold(engine: Any, caches: Sequence[Callable[[Path], None]], first: int | None
            ) -> None:
    """Drop the caches that hold folded text — the checkpoints and memory snapshots from
    ``first`` (the first forgotten seq) on, the kept prompts, and what ``caches`` drop
    (the search index) — fold the state again from the last checkpoint before it, and
    write the files."""
    live = engine.live
    with live.mutex:
        if first is not None:
            for seq in engine.checkpoints.seqs():
                if seq >= first:
                    engine.checkpoints.remove(seq)
            if live.snapshots is not None:
                for seq in live.snapshots.seqs():
                    if seq >= first:
                        live.snapshots.place.unlink(f"{seq:012d}.mpk")
            live.state = State()  # let the old state go before the new one is loaded
            live.reload()
    PromptCache(Folder(engine.home, PROMPTS)).clear()
    for drop in caches:
        drop(engine.home)
    engine.rewrite_files(lambda drifted: [d.path for d in drifted])
    engine.flush()


def _file_holds(path: Path, forms: Sequence[bytes], chunk: int = 1 << 20) -> bool:
    """Whether the file holds one of ``forms``, read a chunk at a time."""
    overlap = max(len(f) for f in forms) - 1
    tail = b""
    with open(path, "rb") as stream:
        while block := stream.read(chunk):
            window = tail + block
            if _holds(window, forms):
                return True
            tail = window[-overlap:] if overlap else b""
    return False


def _scrub(home: Path, forms: Sequence[bytes]) -> int:
    """Replace ``forms`` by the mark in every other file under the home (a cache under
    ``.memoir/`` is deleted instead); links are not followed.  How many files changed."""
    changed = 0
    mark = MARK.encode()
    for root, dirs, files in os.walk(home, followlinks=False):
        rel_root = Path(root).relative_to(home)
        dirs[:] = [d for d in dirs if not (Path(root) / d).is_symlink()]
        for name in files:
            path = Path(root) / name
            rel = (rel_root / name).as_posix()
            if rel in _SKIP_SCRUB or path.is_symlink() or not path.is_file() or \
                    rel.startswith((TRANSCRIPTS + "/", _PENDING + "/")):
                continue
            if not _file_holds(path, forms):
                continue
            if rel.startswith(".memoir/"):
                path.unlink()
            else:
                data = path.read_bytes()  # a file that holds the text: a report, a copy
                for form in forms:
                    data = data.replace(form, mark)
                tmp = path.with_name(f".{name}.forget")
                tmp.write_bytes(data)
                os.replace(tmp, path)
            changed += 1
    return changed
