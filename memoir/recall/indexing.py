"""The search index's write side: what each session event puts in ``search.db``
(:mod:`memoir.recall.index` owns the file, its schema and its reading)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from memoir.errors import NotFoundError, ValidationError
from memoir.events.sessions import (
    SessionEnded,
    SessionStarted,
    SessionSummarized,
    TurnRecorded,
)
from memoir.events.types import Event
from memoir.journal.transcripts import TranscriptStore
from memoir.messages import message_text
from memoir.recall.vectors import forget_vector

#: The characters of a turn kept to be the next turn's neighbour.
_KEEP = 4000
#: Sessions whose pending rows a sync holds before it writes them.
_BATCH = 10_000


def apply_events(db: sqlite3.Connection, store: TranscriptStore,
                 events: Iterable[Event]) -> int:
    """Index session events, in journal order; how many."""
    count, pending = 0, Pending({}, {})
    with store.reading():  # each pack opened once for the lot
        for event in events:
            apply_event(db, store, event, pending)
            count += 1
            if len(pending.turns) >= _BATCH:
                pending.write(db)
    pending.write(db)
    return count


@dataclass
class Pending:
    """What a sync writes once per session and batch, not once per turn: a session's
    turn columns (its last turn, last activity, first message) and its last turn's text
    (the next turn's neighbour)."""

    turns: dict[str, tuple[int, str, str | None]]
    last: dict[str, tuple[int, str]]

    def write(self, db: sqlite3.Connection) -> None:
        db.executemany("INSERT OR REPLACE INTO last_turns VALUES (?, ?, ?)",
                       [(sid, turn, text) for sid, (turn, text) in self.last.items()])
        db.executemany("UPDATE sessions SET turns = ?, last_active = max(last_active, ?), "
                       "first_message = coalesce(first_message, ?) WHERE session_id = ?",
                       [(*row, sid) for sid, row in self.turns.items()])
        self.turns.clear()
        self.last.clear()


def apply_event(db: sqlite3.Connection, store: TranscriptStore, event: Event,
                pending: Pending) -> None:
    """Index one session event."""
    data = event.data
    if isinstance(data, SessionStarted):
        db.execute("INSERT OR IGNORE INTO sessions (session_id, started_at, last_active, "
                   "platform) VALUES (?, ?, ?, ?)",
                   (data.session_id, data.started_at or event.ts,
                    data.started_at or event.ts, data.platform))
    elif isinstance(data, SessionEnded):
        db.execute("UPDATE sessions SET ended_at = ? WHERE session_id = ?",
                   (data.ended_at or event.ts, data.session_id))
    elif isinstance(data, SessionSummarized):
        db.execute("UPDATE sessions SET summary = ?, tags = ? WHERE session_id = ?",
                   (data.summary, " ".join(data.tags), data.session_id))
        # A session's summary is replaced by rowid (an FTS5 column cannot be looked
        # up without scanning every document).
        old = db.execute("SELECT doc FROM summary_docs WHERE session_id = ?",
                         (data.session_id,)).fetchone()
        if old is not None:
            db.execute("DELETE FROM docs WHERE rowid = ?", (old[0],))
            forget_vector(db, old[0])
        cursor = db.execute("INSERT INTO docs VALUES (?, ?, 'summary', NULL, NULL)",
                            (f"{data.summary}\n{' '.join(data.tags)}", data.session_id))
        db.execute("INSERT OR REPLACE INTO summary_docs VALUES (?, ?)",
                   (data.session_id, cursor.lastrowid))
    elif isinstance(data, TurnRecorded):
        at = next((m.at for m in data.messages if m.at), None) or event.ts
        wanted = [m for m in data.messages if m.role in ("user", "assistant")]
        try:
            bodies = store.get_many([m.ref for m in wanted])
        except (NotFoundError, ValidationError, ValueError):
            bodies = []  # a lost or damaged body: the turn is indexed without it
        first = None
        said = []
        for ref, body in zip(wanted, bodies, strict=False):
            text = message_text(body)
            if text.strip():
                said.append(text)
                if ref.role == "user" and first is None:
                    first = text
        if said:
            # One document per turn: its messages, then the turn before it in the
            # same session (what "it" and "that" point to), so a question finds the
            # exchange, by words and by meaning (docs/recall.md).
            own = "\n".join(said)
            before = pending.last.get(data.session_id) or db.execute(
                "SELECT turn, text FROM last_turns WHERE session_id = ?",
                (data.session_id,)).fetchone()
            window = own if before is None or before[0] != data.turn - 1 \
                else f"{own}\n{before[1]}"
            db.execute("INSERT INTO docs VALUES (?, ?, 'turn', ?, NULL)",
                       (window, data.session_id, data.turn))
            pending.last[data.session_id] = (data.turn, own[:_KEEP])
        prior = pending.turns.get(data.session_id)
        pending.turns[data.session_id] = (data.turn, at, first) if prior is None else (
            data.turn, max(prior[1], at), first if prior[2] is None else prior[2])
