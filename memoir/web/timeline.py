"""The web view's timeline: runs newest first, read from the journal's end.

A page walks the journal backwards (:meth:`Home.events` with ``reverse``) and stops
once it holds a page of items or has read :data:`SCAN_BUDGET` records, so the first
page of a journal of any length costs what that page holds, not a fold.  An item is a
run (every event of it, by the run's record in the state) or, for a record outside
any run (an agent's tool call, a session starting), that record alone.  The next page
starts below the lowest seq read: a run whose last event is at or above it was on an
earlier page.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import msgspec

from memoir.clock import format_ts, parse_moment
from memoir.engine.port import Home
from memoir.errors import NotFoundError, ValidationError
from memoir.events.present import event_row, summary
from memoir.events.types import Event
from memoir.oversight.audit import diff_span
from memoir.projections.sessions import RunInfo
from memoir.projections.state import State

__all__ = ["Filters", "item_detail", "timeline", "who"]

#: Records one page request reads at most before it answers with what it found.
SCAN_BUDGET = 20_000
#: Records a run's page lists at most (an import can hold thousands).
MAX_RECORDS = 500
#: The records whose summary says what a run changed.
CHANGES = ("memory.", "skill.", "insight.", "write.", "curator.paused", "curator.resumed")
#: Records that say nothing a person audits unless asked for: usage telemetry.
TELEMETRY = frozenset({"skill.viewed", "skill.used", "session.turn_recorded",
                       "session.context_recalled", "insight.referenced"})


@dataclass(frozen=True)
class Filters:
    """What a timeline request keeps (every field optional)."""

    actor: str | None = None
    kind: str | None = None
    session: str | None = None
    since: str | None = None  # a timestamp, as the journal writes them
    until: str | None = None
    text: str | None = None
    telemetry: bool = False

    @classmethod
    def parse(cls, query: dict[str, str], now: Any) -> Filters:
        """From a request's query parameters; dates as a person writes them."""
        def moment(name: str) -> str | None:
            value = (query.get(name) or "").strip()
            if not value:
                return None
            try:
                return format_ts(parse_moment(value, now))
            except ValueError as exc:
                raise ValidationError(f"{name}: {exc}") from None

        def text(name: str) -> str | None:
            value = (query.get(name) or "").strip()
            return value or None

        return cls(actor=text("actor"), kind=text("kind"), session=text("session"),
                   since=moment("since"), until=moment("until"), text=text("q"),
                   telemetry=query.get("all") in ("1", "true", "on"))


def who(actor: str, platform: str | None, *, client: str | None = None,
        kind: str | None = None) -> str:
    """Who an actor is, for people: a person, an agent (through an MCP client or Hermes,
    when its session's platform, the record's ``client`` or a mirror run says so), a
    reviewer, the curator, memoir itself."""
    if actor == "user":
        return "person"
    if actor.startswith("reviewer"):
        return "reviewer"
    if actor == "curator":
        return "curator"
    if actor == "system":
        return "memoir"
    if client == "hermes" or kind == "mirror" or (platform or "").startswith("hermes"):
        return "Hermes"
    if platform == "mcp" or client:
        return f"MCP client {client}" if client and client != "unknown" else "MCP client"
    return actor


def _platform(state: State, session: str | None) -> str | None:
    info = state.sessions.get(session) if session else None
    return info.platform if info is not None else None


def _client(event: Event) -> str | None:
    return (event.meta or {}).get("client")


def _run_item(info: RunInfo, state: State, client: str | None = None) -> dict[str, Any]:
    return {"id": info.id, "run": info.id, "kind": info.kind or "run", "actor": info.actor,
            "who": who(info.actor, _platform(state, info.session), client=client,
                       kind=info.kind),
            "ts": info.started_at, "session": info.session, "first_seq": info.first_seq,
            "last_seq": info.last_seq, "events": info.events,
            "summary": info.summary.split("\n")[0], "reverted_by": info.reverted_by,
            "reverts": info.reverts}


def _loose_item(event: Event, state: State) -> dict[str, Any]:
    return {"id": f"seq-{event.seq}", "run": None, "kind": event.type.split(".")[0],
            "actor": event.actor,
            "who": who(event.actor, _platform(state, event.session), client=_client(event)),
            "ts": event.ts, "session": event.session, "first_seq": event.seq,
            "last_seq": event.seq, "events": 1, "summary": summary(event),
            "reverted_by": None, "reverts": None, "type": event.type}


def _keeps(item: dict[str, Any], f: Filters) -> bool:
    if f.actor is not None and f.actor not in (item["actor"], item["who"]):
        return False
    if f.kind is not None and item["kind"] != f.kind:
        return False
    if f.session is not None and not (item["session"] or "").startswith(f.session):
        return False
    ts = item["ts"][:26]
    if f.since is not None and ts < f.since[:26]:
        return False
    return f.until is None or ts <= f.until[:26]


def _says(item: dict[str, Any], needle: str) -> bool:
    """Whether the item's own row shows ``needle`` (casefolded)."""
    row = " ".join(str(item.get(k) or "") for k in ("id", "summary", "kind", "actor", "who",
                                                   "change"))
    return needle in row.casefold()


def _mentions(event: Event, needle: str) -> bool:
    """Whether a record's type, actor or data hold ``needle`` (casefolded): what
    ``memoir log --grep`` searches, so the timeline finds every run a log finds."""
    text = f"{event.type} {event.actor} {msgspec.json.encode(event.data).decode()}"
    return needle in text.casefold()


def timeline(home: Home, *, before: int | None = None, limit: int = 50,
             filters: Filters = Filters(), budget: int | None = None) -> dict[str, Any]:
    """A page of the timeline: items newest first, from records below ``before``
    (default: the head).  ``next`` is where the following page starts (None: the
    journal's start was reached); ``scanned`` how many records this page read (at most
    ``budget``, default :data:`SCAN_BUDGET`).

    A text filter (``q``) keeps an item whose row shows the words or any of whose
    records holds them in its type, actor or data — a review or curator run is found
    by what it saved, not only by its summary.  A run whose matching record lies below
    the records a page reads is not on that page."""
    budget = SCAN_BUDGET if budget is None else budget
    state = home.state
    head = state.seq
    until = head if before is None else min(before - 1, head)
    needle = filters.text.casefold() if filters.text is not None else None
    shown: list[dict[str, Any]] = []  # every item kept so far, in order
    hits = 0
    waiting: dict[str, dict[str, Any]] = {}  # runs kept but for the text, by run id
    seen: set[str] = set()
    listed: dict[str, dict[str, Any]] = {}
    scanned = 0
    following: int | None = None
    for event in home.events(reverse=True, until=until):
        if hits >= limit or scanned >= budget:
            following = event.seq + 1  # this record is the next page's first
            break
        if filters.since is not None and event.ts[:26] < filters.since[:26]:
            break  # records are appended in time order: nothing older can match
        scanned += 1
        if event.run is not None:
            if event.run in seen:
                item = listed.get(event.run)
                if item is not None and event.type.startswith(CHANGES) and \
                        event.type not in TELEMETRY:
                    item["change"] = summary(event)  # the run's first change shown
                if needle is not None and event.run in waiting and _mentions(event, needle):
                    waiting.pop(event.run)["_hit"] = True
                    hits += 1
                continue
            seen.add(event.run)
            info = state.runs.get(event.run)
            if info is None or (before is not None and info.last_seq >= before):
                continue
            item = _run_item(info, state, _client(event))
            if event.type.startswith(CHANGES):
                item["change"] = summary(event)
        else:
            if event.type in TELEMETRY and not filters.telemetry:
                continue
            item = _loose_item(event, state)
        if not _keeps(item, filters):
            continue
        item["_hit"] = needle is None or _says(item, needle) or _mentions(event, needle)
        shown.append(item)
        if item["run"] is not None:
            listed[item["run"]] = item
            if not item["_hit"]:
                waiting[item["run"]] = item
        hits += item["_hit"]
    items = [item for item in shown if item.pop("_hit")]
    return {"head": head, "items": items, "scanned": scanned, "next": following}


def item_detail(home: Home, item_id: str) -> dict[str, Any]:
    """A run (or a record outside runs, ``seq-N``): what it is, the unified diff of
    every projected file it changed, and its records."""
    state = home.state
    if item_id.startswith("seq-") and item_id[4:].isdigit():
        seq = int(item_id[4:])
        event = home.record(seq)
        if event is None:
            raise NotFoundError(f"no record at seq {seq} (the head is {state.seq})")
        item = _loose_item(event, state)
        records = [event]
    else:
        info = state.runs.get(item_id)
        if info is None:
            raise NotFoundError(f"no run {item_id!r} in this journal")
        records = list(itertools.islice(home.events(run=item_id, after=info.first_seq - 1,
                                                    until=info.last_seq), MAX_RECORDS))
        item = _run_item(info, state, _client(records[0]) if records else None)
    first, last = item["first_seq"], item["last_seq"]
    diffs = diff_span(home, first - 1, last)
    return {**item, "files": [{"path": path, "diff": text} for path, text in diffs.items()],
            "records": [event_row(e) for e in records]}
