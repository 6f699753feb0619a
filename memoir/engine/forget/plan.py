"""What a forget selects (see :mod:`memoir.engine.forget.carry`): the records whose
payloads hold the text, or that belong to the entry, skill, session or run named, and
the transcript bodies; read from the journal's lines without changing anything."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memoir import lazyre
from memoir.errors import NotFoundError, ValidationError
from memoir.events.codec import (
    Decoder,
    hash_of_line,
    line_hash_ok,
    payload_digest,
    payload_span,
    tombstone,
)
from memoir.events.memory import EntryAdded, EntryRemoved, EntryReplaced
from memoir.events.sessions import TurnRecorded
from memoir.journal.interface import (
    Journal,
    LineAccess,
    Progress,
    SharedBodies,
    StoredLine,
    Tombstoning,
)
from memoir.journal.transcripts import FOLDER as TRANSCRIPTS
from memoir.journal.transcripts import line_hash

if TYPE_CHECKING:
    from memoir.engine.engine import Engine

__all__ = ["ForgetPlan", "forgettable", "forms_of", "holds", "journal_lines", "plan_forget"]


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
    #: ``<seq>:<target>:<entry id>:added|replaced`` of the memory records among them.
    marks: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.records and not self.bodies


#: How deep JSON inside JSON is searched: a tool call's arguments (a JSON document)
#: are a string inside a message, itself a string inside a record or a body.
_NESTING = 3


#: A run of letters and digits in a forgotten text that names nothing but it: at least
#: 6 characters that change between letters and digits at least twice ("KEYQ7ZX",
#: "AbCd9eF1"), which words and versions ("sha256", "python311", "ipv6") do not.
_DISTINCT = lazyre.compile(r"[A-Za-z0-9]{6,}")
_SWITCH = lazyre.compile(r"(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])")


def pieces_of(text: str) -> list[str]:
    """The runs of ``text`` that alone give it away (see :data:`_DISTINCT`): a reviewer
    that saved a fragment of a secret — a key block's first line cut at its dashes, a
    token without its prefix — saved one of them."""
    found = {run for run in _DISTINCT.findall(text)
             if run != text and len(_SWITCH.findall(run)) >= 2}
    return sorted(found)


def forms_of(text: str) -> list[bytes]:
    """The byte forms ``text`` takes in memoir's files: as is (and with its blanks
    collapsed), and as a JSON string inside JSON strings up to :data:`_NESTING` deep,
    each level with non-ASCII kept or escaped as ``\\uXXXX`` (a quote, a backslash or
    a newline in the text changes at every level); and its distinctive pieces
    (:func:`pieces_of`), which read the same at every level."""
    # Its words with each run of blanks as one space, too: a summary or a log line
    # flattens a multi-line text that way.
    forms = {text, " ".join(text.split())}
    level = set(forms)
    for _depth in range(_NESTING):
        level = {json.dumps(t, ensure_ascii=ascii)[1:-1] for t in level
                 for ascii in (False, True)}
        forms |= level
    forms |= set(pieces_of(text))
    return sorted((f.encode("utf-8") for f in forms if f), key=len, reverse=True)


def holds(data: bytes, forms: Sequence[bytes]) -> bool:
    return any(form in data for form in forms)


def forgettable(journal: Journal) -> Tombstoning:
    """``journal`` as one whose stored lines can be read and whose payloads can be
    tombstoned; else memoir forget cannot cover it (nothing was changed)."""
    if not isinstance(journal, LineAccess) or not isinstance(journal, Tombstoning):
        raise ValidationError(f"memoir forget does not cover the {journal.kind} journal at "
                              f"{journal.where()}; nothing was changed")
    return journal


def journal_lines(engine: Engine) -> Iterator[StoredLine]:
    """Every record's stored line (with its byte offset in a journal file, else -1)."""
    journal = forgettable(engine.journal)
    assert isinstance(journal, LineAccess)
    # Searched only: a line the forget then changes is checked by the backend against
    # the digest the plan took from it.
    return journal.read_lines(checked=False)


def plan_forget(engine: Engine, selector: str, value: str, *, target: str | None = None,
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
    journal = forgettable(engine.journal)
    if not journal.can_forget():
        raise ValidationError(f"{engine.journal.where()}: the role may not forget; run "
                              "memoir forget as a role granted UPDATE (line) ON "
                              "memoir_records and UPDATE ON memoir_transcripts "
                              "(docs/postgres.md); nothing was changed")
    plan = ForgetPlan(selector=selector, needles=needles)
    forms = [f for n in needles for f in forms_of(n)]
    prev = b""
    head = engine.head
    for seq, offset, line in journal_lines(engine):
        if progress is not None and seq % 50_000 == 0:
            progress("searching", seq, head)
        before, prev = prev, hash_of_line(line)
        span = payload_span(line)
        in_payload = span is not None and holds(line[span[0]:span[1]], forms)
        if not in_payload and seq not in entry_seqs:
            if holds(line, forms):
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
        if not line_hash_ok(before, probe) and not journal.tombstones_whole_hashed:
            # Hashed over its whole body (before the payload digest): a file journal
            # lists it beside itself (<journal>.forgotten); a database cannot yet.
            plan.refused[seq] = ("written before the payload digest: a tombstone would "
                                 "change its hash")
            continue
        plan.records[seq] = _type_of(line)
        kind = {"memory.entry_added": "added", "memory.entry_replaced": "replaced"}.get(
            plan.records[seq])
        if kind is not None:
            try:
                entry = json.loads(payload)
                plan.marks.append(f"{seq}:{entry['target']}:{entry['entry_id']}:{kind}")
            except (ValueError, KeyError, TypeError):
                pass
        plan.places[seq] = (offset + span[0] if offset >= 0 else -1, len(payload),
                            payload_digest(payload).decode())
    shared = journal.bodies_holding(forms) if isinstance(journal, SharedBodies) and forms \
        else []
    plan.bodies = list(dict.fromkeys([*bodies, *shared, *(ref for ref, _body in
                                                          _bodies(engine.home, forms))]))
    return plan


def _type_of(line: bytes) -> str:
    start = line.find(b'"type":"')
    return line[start + 8:line.find(b'"', start + 8)].decode("utf-8", "replace") \
        if start >= 0 else "?"


def _entry_texts(engine: Engine, entry_id: str, target: str | None) -> tuple[list[str], set[int]]:
    """Every text memory entry ``entry_id`` held, and the seqs of its records: one pass
    over the journal's lines, decoding only those that name the entry."""
    texts: list[str] = []
    seqs: set[int] = set()
    probe = b'"entry_id":' + json.dumps(entry_id).encode()
    decoder = Decoder()
    for seq, _offset, line in journal_lines(engine):
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


def _session_parts(engine: Engine, session_id: str) -> tuple[set[int], list[str]]:
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


def _run_records(engine: Engine, run: str) -> set[int]:
    """Every record a run wrote."""
    seqs = {e.seq for e in engine.events() if e.run == run}
    if not seqs:
        raise NotFoundError(f"no run {run!r} in the journal; `memoir runs` lists them")
    return seqs


def _skill_texts(engine: Engine, name: str, path: str | None) -> tuple[list[str], set[int]]:
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
                if holds(body, forms) and not body.startswith(b'{"forgotten":'):
                    yield f"{pack.stem}:{offset}:{len(body)}:{line_hash(body)}", body
                offset += len(raw)
