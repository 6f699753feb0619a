"""The ``session_search`` tool: the agent's episodic memory (spec §5.3, the modes that
make sense for memoir).

The mode follows from the arguments:

* **discover** (``query``): past sessions matching the query, best first (BM25 × recency,
  one hit per session, the caller's own session left out), each with its summary and a
  snippet of the matching text;
* **browse** (no query, no ``session_id``): the most recently active sessions;
* **read** (``session_id``): one session's summary and messages — all of them, or the
  first 20 and the last 10 with ``truncated: true``.

Never raises: bad arguments and unsearchable queries are error results.
"""

from __future__ import annotations

from typing import Any

from memoir.engine.caller import CallContext
from memoir.engine.port import Home
from memoir.errors import MemoirError, NotFoundError, ValidationError
from memoir.events.sessions import TurnRecorded
from memoir.journal.transcripts import TranscriptStore
from memoir.recall.index import index_of

__all__ = ["SESSION_SEARCH_SCHEMA", "read_session", "session_search_tool"]

SESSION_SEARCH_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "session_search",
        "description": (
            "Search your memory of past conversations with this user. Give a query to find "
            "the sessions that discussed something (decisions, fixes, files, commands, what "
            "the user said); give nothing to list the most recent sessions; give a "
            "session_id to read one. Use it when the user refers to earlier work "
            "(\"like last time\", \"the bug we fixed\") or when a past decision would "
            "help; it is cheaper than asking them again."),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string",
                          "description": "Words or a \"quoted phrase\" to look for."},
                "session_id": {"type": "string",
                               "description": "Read this session instead of searching."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 10,
                          "description": "How many sessions (default 3)."},
            },
            "required": [],
        },
    },
}

_READ_HEAD, _READ_TAIL = 20, 10


def _store(engine: Home) -> TranscriptStore:
    return TranscriptStore.of(engine, readonly=True)


def read_session(engine: Home, session_id: str, *, tools: bool = False,
                 whole: bool = False) -> dict[str, Any]:
    """A session's metadata, summary and messages (first 20 and last 10 when longer,
    every one with ``whole``).  ``tools``: also the assistant's tool calls and the tool
    results (for a person reading the session; the model's session_search keeps to
    what was said)."""
    info = engine.state.sessions.get(session_id)
    if info is None:
        raise NotFoundError(f"no session {session_id!r}")
    refs: list[tuple[int, str, str]] = []
    summary = ""
    for event in engine.events(session=session_id, types=["session.turn_recorded",
                                                           "session.summarized"]):
        data = event.data
        if isinstance(data, TurnRecorded):
            refs += [(data.turn, m.role, m.ref) for m in data.messages
                     if m.role in ("user", "assistant") or (tools and m.role == "tool")]
        else:
            summary = getattr(data, "summary", "") or summary
    truncated = not whole and len(refs) > _READ_HEAD + _READ_TAIL
    shown = refs[:_READ_HEAD] + refs[-_READ_TAIL:] if truncated else refs
    store = _store(engine)
    messages = []
    for turn, role, ref in shown:
        extra: dict[str, Any] = {}
        try:
            body = store.get(ref)
            content = body.get("content")
            if tools:
                extra = {k: body[k] for k in ("tool_calls", "tool_call_id", "name")
                         if body.get(k)}
        except (NotFoundError, ValidationError, ValueError) as exc:
            content = f"[message unavailable: {exc}]"
        messages.append({"turn": turn, "role": role, "content": content, **extra})
    return {"session_id": session_id, "started_at": info.started_at, "ended_at": info.ended_at,
            "platform": info.platform, "turns": info.turns, "summary": summary,
            "messages": messages, "truncated": truncated, "message_count": len(refs)}


def session_search_tool(engine: Home, ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    query = args.get("query")
    session_id = args.get("session_id")
    limit = args.get("limit", 3)
    if query is not None and not isinstance(query, str):
        return {"success": False, "error": "'query' must be a string."}
    if session_id is not None and not isinstance(session_id, str):
        return {"success": False, "error": "'session_id' must be a string."}
    if isinstance(limit, bool) or not isinstance(limit, int):
        return {"success": False, "error": "'limit' must be an integer from 1 to 10."}
    limit = max(1, min(10, limit))
    try:
        if session_id:
            return {"success": True, "mode": "read", **read_session(engine, session_id)}
        index = index_of(engine)
        if not query or not query.strip():
            browse = [s for s in index.sessions(limit=limit + 1) if s["session"] != ctx.session]
            return {"success": True, "mode": "browse", "sessions": browse[:limit]}
        hits = index.search(query, limit=limit, exclude=[ctx.session] if ctx.session else [])
    except MemoirError as exc:  # a missing session, a bad query, recall not set up
        return {"success": False, "error": str(exc)}
    summaries = index.summaries(h.session for h in hits)
    return {"success": True, "mode": "discover", "query": query, "results": [
        {"session_id": h.session, "when": h.last_active, "source": h.platform,
         "title": h.title, "score": h.score, "bm25": h.bm25, "semantic": h.semantic,
         "fused": h.fused, "coverage": h.coverage, "recall": h.recall, "matched": h.kind,
         "turn": h.turn,
         "snippet": h.snippet, "summary": summaries.get(h.session, "")} for h in hits]}
