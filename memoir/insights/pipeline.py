"""Seed 003's pipeline, the parts a caller drives: hints, ``memory_search``, candidates a
person accepts or rejects, and the scheduled pass that expires and demotes.

Counting and promotion happen when turns are recorded (:mod:`memoir.sessions.turns`); this
module reads the insights projection and journals the steps a person or the schedule
takes, each as a run you can revert.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from memoir import lazyre
from memoir.clock import parse_ts
from memoir.engine.caller import CallContext
from memoir.engine.commit import Caller, Decision
from memoir.engine.port import Home
from memoir.errors import ValidationError
from memoir.events.insights import (
    InsightAccepted,
    InsightCandidate,
    InsightDemoted,
    InsightExpired,
    InsightReferenced,
    InsightRejected,
)
from memoir.events.types import Event, Payload
from memoir.ids import short_id
from memoir.insights.signatures import signature
from memoir.lookup import resolve
from memoir.projections.insights import Insight
from memoir.projections.state import State
from memoir.skills.tools import skill_manage_call

__all__ = ["MEMORY_SEARCH_SCHEMA", "accept_candidate", "hint_for", "insight_rows", "maintain",
           "memory_search_tool", "reject_candidate", "search_insights"]

_WORD = lazyre.compile(r"[a-z0-9_]{2,}")


def hint_for(state: State, tool: str, error: str) -> str | None:
    """The hint for a tool error memoir has learned about (an insight or a candidate
    with its signature), or None."""
    found = state.insights.signatures.get(signature(tool, error))
    if found is None or found.state not in ("insight", "candidate", "accepted"):
        return None
    text = f"This {tool} error has happened {found.count} times before."
    if found.resolution:
        text += f" What resolved it: {found.resolution}"
    if found.skill:
        text += f" The skill '{found.skill}' covers it."
    return text


def _row(item: Insight) -> dict[str, Any]:
    return {"signature": item.signature, "tool": item.tool, "state": item.state,
            "count": item.count, "first_seen": item.first_seen, "last_seen": item.last_seen,
            "resolution": item.resolution, "references": item.references,
            "last_used": item.last_used, "example": item.example, "skill": item.skill}


def search_insights(state: State, query: str, top_k: int = 5) -> list[dict[str, Any]]:
    """Insights and error patterns matching ``query`` (shared words, weighted to
    insights), best first."""
    words = set(_WORD.findall(query.lower()))
    if not words:
        return []
    scored = []
    for item in state.insights.signatures.values():
        if item.state == "expired":
            continue
        text = f"{item.signature} {item.resolution or ''} {item.example}".lower()
        hits = sum(1 for w in words if w in text)
        if hits:
            weight = 2.0 if item.state in ("insight", "candidate", "accepted") else 1.0
            scored.append((hits / len(words) * weight, item))
    scored.sort(key=lambda kv: (-kv[0], kv[1].signature))
    return [{**_row(item), "score": round(score, 4)} for score, item in scored[:top_k]]


MEMORY_SEARCH_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "memory_search",
        "description": (
            "Search what memoir learned from past tool errors: error patterns seen before, "
            "how often, and what resolved them. Use it when a tool fails in a way that looks "
            "familiar, before trying fixes at random."),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "The error, or words from it."},
                "top_k": {"type": "integer", "minimum": 1, "maximum": 20,
                          "description": "How many results (default 5)."},
            },
            "required": ["query"],
        },
    },
}


def memory_search_tool(engine: Home, ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    query = args.get("query")
    top_k = args.get("top_k", 5)
    if not isinstance(query, str) or not query.strip():
        return {"success": False, "error": "'query' is required: the error or words from it."}
    if isinstance(top_k, bool) or not isinstance(top_k, int):
        return {"success": False, "error": "'top_k' must be an integer from 1 to 20."}
    thresholds = engine.config.insights

    def decide(state: State) -> Decision[list[dict[str, Any]]]:
        hits = search_insights(state, query, max(1, min(20, top_k)))
        events: list[Payload] = []
        for hit in hits:
            if hit["state"] != "insight":
                continue
            events.append(InsightReferenced(signature=hit["signature"], how="search"))
            if hit["references"] + 1 == thresholds.candidate_after:
                events.append(InsightCandidate(signature=hit["signature"],
                                               references=hit["references"] + 1))
        return Decision(events=events, result=hits)

    _events, hits = engine.commit(decide, by=ctx.caller(starts_run=False))
    return {"success": True, "results": hits}


def _one(state: State, prefix: str, wanted: str) -> Insight:
    pool = {k: v for k, v in state.insights.signatures.items() if v.state == wanted}
    key = resolve(prefix, pool, f"{wanted} signature")
    return pool[key]


def _skill_name(item: Insight) -> str:
    words = _WORD.findall(item.signature.lower().replace("<", " ").replace(">", " "))
    base = "-".join(w for w in words if w not in ("n", "q", "path", "hex", "id", "ts", "ip"))
    return (base[:56].strip("-") or "error") + "-fix"


def accept_candidate(engine: Home, prefix: str, *, name: str | None = None) -> tuple[str,
                                                                                     str]:
    """Create a skill from a candidate (``skill_manage`` create, as the person), with
    ``insight.accepted``, in one run; returns (run, skill name)."""
    item = _one(engine.state, prefix, "candidate")
    skill = name or _skill_name(item)
    run = short_id("candidate-")
    body = (f"# When {item.tool} fails like this\n\n"
            f"The error (seen {item.count} times):\n\n    {item.signature}\n\n"
            f"Example: {item.example}\n\n"
            f"What resolved it: {item.resolution or 'not observed yet; note it here'}\n")
    by = Caller(actor="user", run=run, run_kind="candidate",
                run_summary=f"accept candidate {item.signature[:60]}")
    result = skill_manage_call(engine, {
        "action": "create", "name": skill, "category": "errors",
        "content": f"---\nname: {skill}\ndescription: \"What to do when {item.tool} "
                   f"fails with this error.\"\n---\n{body}"}, by=by)
    if not result.get("success"):
        raise ValidationError(f"the skill could not be created: {result.get('error')}")
    engine.commit(lambda _s: Decision(events=[InsightAccepted(signature=item.signature,
                                                              skill=skill)]), by=by)
    return run, skill


def reject_candidate(engine: Home, prefix: str, reason: str = "") -> str:
    """Reject a candidate, as one run; returns the run."""
    item = _one(engine.state, prefix, "candidate")
    run = short_id("candidate-")
    engine.commit(lambda _s: Decision(events=[
        InsightRejected(signature=item.signature, reason=reason)]), by=Caller(
            actor="user", run=run, run_kind="candidate",
            run_summary=f"reject {item.signature[:60]}"))
    return run


def maintain(engine: Home, now: dt.datetime | None = None) -> tuple[str | None, list[Event]]:
    """The scheduled pass: signatures seen once and not within ``insights.expire_days``
    expire; insights unused for ``insights.demote_days`` are demoted.  One run (kind
    ``maintain``), or nothing when nothing is due."""
    when = now or engine.clock.now()
    config = engine.config.insights
    run = short_id("maintain-")

    def age(ts: str | None) -> float:
        try:
            return (when - parse_ts(ts)).total_seconds() / 86400 if ts else 0.0
        except ValueError:
            return 0.0

    def decide(state: State) -> Decision[None]:
        events: list[Payload] = []
        for item in sorted(state.insights.signatures.values(), key=lambda i: i.signature):
            if item.state == "seen" and item.count == 1 and age(item.last_seen) > \
                    config.expire_days:
                events.append(InsightExpired(signature=item.signature,
                                             last_seen=item.last_seen))
            elif item.state == "insight" and age(item.last_used or item.last_seen) > \
                    config.demote_days:
                events.append(InsightDemoted(signature=item.signature,
                                             last_used=item.last_used or item.last_seen))
        return Decision(events=events, summary=(
            f"{sum(isinstance(e, InsightExpired) for e in events)} expired, "
            f"{sum(isinstance(e, InsightDemoted) for e in events)} demoted"))

    events, _ = engine.commit(decide, by=Caller(actor="system", run=run, run_kind="maintain"))
    return (run if events else None), events


def insight_rows(state: State) -> list[dict[str, Any]]:
    """Every signature memoir counts, most seen first."""
    items = sorted(state.insights.signatures.values(), key=lambda i: (-i.count, i.signature))
    return [_row(i) for i in items]
