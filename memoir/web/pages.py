"""What the web view's pages read: memory as of any point with its blame, skills and
curator passes, sessions, insights and pending writes.  Plain JSON values, built from
the same functions as the CLI's commands."""

from __future__ import annotations

from typing import Any

from memoir.api import Memoir
from memoir.clock import format_ts, parse_moment
from memoir.errors import NotFoundError, ValidationError
from memoir.events.memory import EntryAdded, EntryReplaced
from memoir.events.present import event_row
from memoir.insights.pipeline import insight_rows
from memoir.lookup import did_you_mean
from memoir.oversight.approvals import pending, pending_row
from memoir.oversight.audit import blame_skill
from memoir.projections.memory import TARGETS, usage_numbers
from memoir.projections.skills import SKILL_FILE
from memoir.prompt.blocks import enabled_targets, render_blocks
from memoir.recall.index import SearchIndex
from memoir.recall.tool import read_session
from memoir.skills.history import skill_history, skill_row
from memoir.skills.tools import unjournaled_skill_records
from memoir.web.timeline import who

__all__ = [
    "blame",
    "curator_passes",
    "insights",
    "memory",
    "pending_writes",
    "point",
    "session",
    "sessions",
    "skill",
    "skills",
    "usage_of",
]

#: Records a blame reads at most, newest first, before it names the rest as older.
BLAME_BUDGET = 200_000


def point(home: Memoir, seq: str | None, at: str | None) -> int:
    """The seq a request asks for: ``seq`` as given, the last record at or before the
    moment ``at`` (found by bisection: a record's seq is its position), else the head."""
    head = home.head
    if seq not in (None, ""):
        assert seq is not None
        if not seq.strip().isdigit():
            raise ValidationError(f"seq must be a number, not {seq!r}")
        value = int(seq)
        if value > head:
            raise NotFoundError(f"seq {value} is not in the journal (the head is {head})")
        return value
    if at in (None, ""):
        return head
    assert at is not None
    try:
        moment = format_ts(parse_moment(at, home.clock.now()))[:26]
    except ValueError as exc:
        raise ValidationError(f"at: {exc}") from None
    low, high = 0, head  # the answer lies in [low, high]
    while low < high:
        middle = (low + high + 1) // 2
        record = home.record(middle)
        if record is not None and record.ts[:26] <= moment:
            low = middle
        else:
            high = middle - 1
    return low


def memory(home: Memoir, seq: int) -> dict[str, Any]:
    """MEMORY.md and USER.md as of ``seq``: the entries and the prompt blocks a session
    pinned there saw (memory snapshots make any seq cheap)."""
    enabled = enabled_targets(home.config)
    entries, blocks, limits = home.at(seq, lambda state: ({
        target: [{"id": e.id, "text": e.text} for e in state.memory.target(target).entries]
        for target in TARGETS}, render_blocks(state, enabled),
        dict(state.memory.limits)))  # one view for all three
    return {"seq": seq, "head": home.head, "entries": entries,
            "chars": {t: sum(len(e["text"]) for e in entries[t]) for t in TARGETS},
            "usage": {t: usage_of([e["text"] for e in entries[t]], limits[t])
                      for t in TARGETS},
            "blocks": blocks}


def usage_of(texts: list[str], limit: int) -> dict[str, int]:
    """How full a target holding ``texts`` is, as the memory tool's results say it
    (:func:`memoir.projections.memory.usage_numbers`)."""
    chars, percent = usage_numbers(texts, limit)
    return {"chars": chars, "limit": limit, "percent": percent}


def blame(home: Memoir, target: str, seq: int) -> dict[str, Any]:
    """For each entry of ``target`` as of ``seq``: the record that last set its text,
    read from ``seq`` backwards; entries older than :data:`BLAME_BUDGET` records are
    reported as such rather than read for."""
    if target not in TARGETS:
        raise ValidationError(f"no memory target {target!r}; the targets are "
                              f"{', '.join(TARGETS)}")
    wanted = set(home.at(seq, lambda s: [e.id for e in s.memory.target(target).entries]))
    found: dict[str, dict[str, Any]] = {}
    sessions = home.state.sessions
    for read, event in enumerate(home.events(reverse=True, until=seq), 1):
        if not wanted - found.keys() or read > BLAME_BUDGET:
            break
        data = event.data
        if isinstance(data, EntryAdded | EntryReplaced) and data.target == target and \
                data.entry_id in wanted and data.entry_id not in found:
            info = sessions.get(event.session) if event.session else None
            found[data.entry_id] = {
                "seq": event.seq, "ts": event.ts, "actor": event.actor, "run": event.run,
                "session": event.session, "type": event.type,
                "who": who(event.actor, info.platform if info else None,
                           client=(event.meta or {}).get("client"))}
    return {"target": target, "seq": seq, "origins": found,
            "older": sorted(wanted - found.keys())}


def skills(home: Memoir) -> list[dict[str, Any]]:
    """Every skill the state knows, archived ones too, then the skills on disk not in
    the journal yet (placed in the home by hand, or in an external folder)."""
    records = home.state.skills.skills.values()
    return [*(skill_row(r) for r in sorted(records, key=lambda r: (r.category or "", r.name))),
            *(skill_row(r, journaled=False) for r in unjournaled_skill_records(home))]


def skill(home: Memoir, name: str) -> dict[str, Any]:
    """One skill: its row, its files, its history (each change with its diff) and the
    blame of its SKILL.md."""
    known = home.state.skills.skills
    record = known.get(name)
    if record is None:
        outside = {r.name: r for r in unjournaled_skill_records(home)}
        if name in outside:  # read from its folder: no history until its first change
            found = outside[name]
            files = {SKILL_FILE: found.content, **dict(sorted(found.files.items()))}
            return {**skill_row(found, journaled=False), "files": files, "history": [],
                    "blame": []}
        raise NotFoundError(f"no skill named {name!r}{did_you_mean(name, known)}")
    files = {SKILL_FILE: record.content, **dict(sorted(record.files.items()))}
    history = [v.__dict__ for v in skill_history(home, name, telemetry=False, patches=True)]
    lines = [{"text": text, "seq": o.seq, "actor": o.actor, "run": o.run, "ts": o.ts}
             for text, o in blame_skill(home, name)]
    return {**skill_row(record), "files": files, "history": history, "blame": lines}


def curator_passes(home: Memoir) -> list[dict[str, Any]]:
    """The curator's passes, newest first, each with what it reported and planned."""
    state = home.state
    out = []
    for info in sorted((r for r in state.runs.values() if r.kind == "curator"),
                       key=lambda r: -r.first_seq):
        records = list(home.events(run=info.id, after=info.first_seq - 1,
                                   until=info.last_seq))
        finished = next((e.data for e in records if e.type == "curator.run_finished"), None)
        plan = next((e.data for e in records if e.type == "curator.plan_accepted"), None)
        out.append({
            "run": info.id, "ts": info.started_at, "summary": info.summary,
            "reverted_by": info.reverted_by, "events": info.events,
            "report": getattr(finished, "report", {}) or {},
            "counts": getattr(finished, "counts", {}) or {},
            "consolidated": getattr(plan, "consolidations", []) if plan else [],
            "pruned": getattr(plan, "prunings", []) if plan else [],
            "changes": [event_row(e) for e in records if e.type.startswith("skill.")],
        })
    return out


def _index(home: Memoir, scratch: list[SearchIndex]) -> SearchIndex:
    if home.readonly:
        index = SearchIndex(home, home.learning.transcripts, scratch=True)
        scratch.append(index)
        return index
    return SearchIndex(home, home.learning.transcripts)


def sessions(home: Memoir, query: str | None, limit: int = 50) -> dict[str, Any]:
    """Recorded sessions, most recently active first, or those a search finds (the
    same episodic search as ``memoir sessions search``)."""
    kept: list[SearchIndex] = []
    index = _index(home, kept)
    try:
        if query:
            return {"query": query, "hits": [h.as_json() for h in index.search(
                query, limit=min(limit, 100))]}
        return {"query": None, "sessions": index.sessions(limit=limit)}
    finally:
        for scratch in kept:
            scratch.close()


def session(home: Memoir, session_id: str) -> dict[str, Any]:
    """A session: its whole transcript (tool calls and results too), the frozen
    prompt blocks it saw and what its reviews saved."""
    known = home.state.sessions
    if session_id not in known:
        raise NotFoundError(f"no session {session_id!r}{did_you_mean(session_id, known)}")
    info = known[session_id]
    read = read_session(home, session_id, tools=True, whole=True)
    blocks = home.session(session_id).prompt_blocks()
    reviews = []
    for run in sorted((r for r in home.state.runs.values()
                       if r.session == session_id and r.kind == "review"),
                      key=lambda r: r.first_seq):
        saved = [event_row(e) for e in home.events(run=run.id, after=run.first_seq - 1,
                                                   until=run.last_seq)
                 if e.type.startswith(("memory.", "skill.")) or e.type.startswith("review.")]
        reviews.append({"run": run.id, "actor": run.actor, "summary": run.summary,
                        "reverted_by": run.reverted_by, "records": saved})
    return {**read, "pinned_seq": info.pinned_seq, "actor": info.actor,
            "who": who(info.actor, info.platform), "blocks": blocks, "reviews": reviews}


def insights(home: Memoir) -> dict[str, Any]:
    """The error signatures memoir counts, and the skill candidates among them."""
    rows = insight_rows(home.state)
    return {"insights": rows,
            "candidates": [r for r in rows if r["state"] == "candidate"]}


def pending_writes(home: Memoir) -> list[dict[str, Any]]:
    """Writes held for the person's approval, oldest first."""
    return [pending_row(w) for w in pending(home)]
