"""Sessions: an agent's conversation, pinned to a journal position.

A session's prompt blocks are rendered from the state at its pinned seq, so they
stay identical while other writes land and can be rendered again, identically, at
any later time.  Tool calls go through the command layer with the session's call
context (its id and actor, what it was shown, what it holds, the per-turn
consolidation-failure count of spec §1.6).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any, Final, Literal, Protocol, TypedDict, cast, overload

from memoir.engine.caller import CallContext
from memoir.engine.commit import Caller, Decision
from memoir.engine.port import Home
from memoir.errors import ValidationError
from memoir.events.sessions import SessionEnded
from memoir.ids import short_id
from memoir.insights.pipeline import hint_for
from memoir.journal.transcripts import TranscriptStore
from memoir.memory.commands import memory_call
from memoir.projections.memory import TARGETS
from memoir.projections.state import State
from memoir.prompt.assemble import Procedural, Prompt, build_prompt, by_meaning
from memoir.prompt.blocks import Blocks, session_blocks
from memoir.recall.index import index_of
from memoir.recall.relevance import SkillScorer
from memoir.recall.tool import session_search_tool
from memoir.sessions.turns import RecordedTurns
from memoir.tools import DEFAULT_TOOLS, Toolset, failure_result
from memoir.tools.results import (
    MemoryReadResult,
    MemoryResult,
    MemorySearchResult,
    SessionSearchResult,
    SkillManageResult,
    SkillsListResult,
    SkillViewResult,
    ToolMessage,
)

__all__ = ["MemoryHit", "Recorder", "Session", "add_memory", "search_memory",
           "search_sessions"]

Args = dict[str, Any] | str | None
Target = Literal["memory", "user"]


class Recorder(Protocol):
    """Where a session records its turns (the handle's learning loop)."""

    def record(self, session_id: str, actor: str, tools: Collection[str],
               messages: Any) -> RecordedTurns: ...

    def ended(self, session_id: str) -> None: ...


def _call_parts(call: Any) -> tuple[str, str | None, Any]:
    """(id, function name, arguments) of a tool call given as a dict or an object."""
    def get(obj: Any, key: str) -> Any:
        return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)

    function = get(call, "function")
    name = get(function, "name") if function is not None else None
    return (str(get(call, "id") or ""), name if isinstance(name, str) else None,
            get(function, "arguments") if function is not None else None)


#: The tools a guest session answers; any other (memory, skill_manage, a host's own
#: tool) is answered with why it may not write.
_READING_TOOLS: Final = frozenset({"memory_read", "memory_search", "session_search",
                                   "skill_view", "skills_list"})


class Session:
    """A pinned session.  Create with :meth:`memoir.Memoir.start_session`.

    Like a Hermes agent's ``MemoryStore``, a session counts consolidation failures per
    turn (:meth:`new_turn` resets the count) and remembers the entries it last held
    per target, which Hermes answers from when a replace or remove lacks ``old_text``.
    ``tools`` is what :meth:`call_tool` answers (default: every tool).  ``meta``: facts
    about the caller (string keys and values) that every record the session writes
    carries, such as the MCP client behind it.
    """

    def __init__(
        self,
        engine: Home,
        session_id: str,
        pinned_seq: int,
        *,
        actor: str = "agent",
        blocks: Blocks | None = None,
        tools: Toolset = DEFAULT_TOOLS,
        recorder: Recorder | None = None,
        meta: Mapping[str, str] | None = None,
        guest: str | None = None,
    ) -> None:
        self.engine = engine
        #: Why this session writes nothing (:meth:`memoir.Memoir.guest_session`), or None.
        self.guest = guest
        self.id = session_id
        self.pinned_seq = pinned_seq
        self.actor = actor
        self.tools = tools
        self.context = CallContext(actor=actor, session=session_id,
                                   meta=dict(meta) if meta else None,
                                   records_reads=guest is None)
        self._blocks = blocks
        self._ended = False
        self._recorder = recorder
        self._procedural: Procedural | None = None

    def prompt_blocks(self) -> Blocks:
        """``{"memory": block | None, "user": block | None}`` frozen at the pinned seq."""
        if self._blocks is None:
            self._blocks = session_blocks(self.engine, self.id, self.pinned_seq,
                                          actor=self.actor)
        return dict(self._blocks)

    def standing_context(self) -> str:
        """The part of every prompt of this session that no message changes: the
        frozen MEMORY and USER blocks and the skills index, all at the pin ("" when the
        home holds none of them).  What a host that has no per-message prompt (an MCP
        server's instructions) gives the model."""
        if self._procedural is None:
            self._procedural = Procedural(self.engine.view(self.pinned_seq),
                                          by_meaning=by_meaning(self.engine.config))
        blocks = self.prompt_blocks()
        parts = (blocks.get("memory"), blocks.get("user"), self._procedural.index)
        return "\n\n".join(part for part in parts if part)

    def new_turn(self) -> None:
        """Mark the start of a user turn: resets the consolidation-failure counter."""
        self.context.new_turn()

    @overload
    def call_tool(  # type: ignore[overload-overlap]
            self, name: Literal["memory"], args: Args = None) -> MemoryResult: ...
    @overload
    def call_tool(  # type: ignore[overload-overlap]
            self, name: Literal["skill_manage"], args: Args = None) -> SkillManageResult: ...
    @overload
    def call_tool(  # type: ignore[overload-overlap]
            self, name: Literal["skills_list"], args: Args = None) -> SkillsListResult: ...
    @overload
    def call_tool(  # type: ignore[overload-overlap]
            self, name: Literal["skill_view"], args: Args = None) -> SkillViewResult: ...
    @overload
    def call_tool(  # type: ignore[overload-overlap]
            self, name: Literal["session_search"], args: Args = None) -> SessionSearchResult: ...
    @overload
    def call_tool(  # type: ignore[overload-overlap]
            self, name: Literal["memory_search"], args: Args = None) -> MemorySearchResult: ...
    @overload
    def call_tool(  # type: ignore[overload-overlap]
            self, name: Literal["memory_read"], args: Args = None) -> MemoryReadResult: ...
    @overload
    def call_tool(self, name: str, args: Args = None) -> dict[str, Any]: ...

    def call_tool(self, name: str, args: Args = None) -> Any:
        """Handle one agent tool call by name with Hermes-compatible arguments and results.

        ``args`` may be a dict or the JSON text an OpenAI-style tool call carries.  The
        result is typed per tool (:mod:`memoir.tools.results`) when ``name`` is a
        literal; it is a plain dict at run time.
        """
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except json.JSONDecodeError as exc:
                return {"error": f"Tool arguments are not valid JSON: {exc}", "success": False}
            except RecursionError as exc:
                return failure_result(name, exc)
        if args is None:
            args = {}
        if not isinstance(args, dict):
            return {"error": "Tool arguments must be a JSON object.", "success": False}
        # An argument sent as null is an argument not given (OpenAI's strict mode sends
        # null for every optional one; Hermes's tools read arguments with .get()).
        args = {key: value for key, value in args.items() if value is not None}
        if self.guest is not None and name in self.tools and name not in _READING_TOOLS:
            return {"error": f"The {name} call failed and changed nothing: {self.guest}.",
                    "success": False}
        return self.tools.dispatch(self.engine, self.context, name, args)

    def tool_result_message(self, tool_call: Any) -> ToolMessage:
        """Answer one tool call of an OpenAI-style assistant message and return the
        ``{"role": "tool", "tool_call_id": …, "content": …}`` message to append.

        ``tool_call`` is a dict (``{"id", "type": "function", "function": {"name",
        "arguments"}}``, as the chat-completions API returns it) or an SDK object with
        the same attributes.  The content is the result as JSON text.  Never raises: a
        malformed call gets an error result the model can read.
        """
        call_id, name, arguments = _call_parts(tool_call)
        if name is None:
            result: dict[str, Any] = {"error": "The tool call names no function.",
                                      "success": False}
        else:
            result = self.call_tool(name, arguments)
        return {"role": "tool", "tool_call_id": call_id,
                "content": json.dumps(result, ensure_ascii=False)}

    def tool_messages(self, message: Any) -> list[ToolMessage]:
        """The tool messages answering every tool call of an assistant ``message``
        (dict or SDK object), in order; empty when it makes none."""
        calls = message.get("tool_calls") if isinstance(message, dict) else \
            getattr(message, "tool_calls", None)
        return [self.tool_result_message(call) for call in calls or []]

    def prompt(self, message: str) -> Prompt:
        """The memory context for ``message``: the frozen MEMORY and USER blocks, the
        skills index and the skills relevant to the message (all at the pin), and the
        recalled past sessions, fenced, added to the user's message (journaled, so the
        prompt renders again exactly).  ``Prompt.system`` and ``Prompt.user_message``
        are the assembled texts; the other fields are the parts, for a host that places
        them itself.  See :mod:`memoir.prompt.assemble`."""
        if self._procedural is None:
            self._procedural = Procedural(self.engine.view(self.pinned_seq),
                                          by_meaning=by_meaning(self.engine.config))
        quiet = self.engine.readonly or self.guest is not None
        store = TranscriptStore.of(self.engine, readonly=quiet)
        return build_prompt(self.engine, store, self.id, self.pinned_seq, self.prompt_blocks(),
                            self._procedural, message, journal=not quiet)

    def tool_error_hint(self, tool: str, error: str) -> str | None:
        """What memoir learned about this tool error (seed 003): how often it happened
        and what resolved it, when its signature is an insight; else None.  Recording a
        turn that holds the error journals that the hint was shown."""
        return hint_for(self.engine.state, tool, error)

    def record_turn(self, messages: list[dict[str, Any]]) -> RecordedTurns:
        """Record one turn of the conversation (or several: a turn starts at each user
        message) as OpenAI chat-completions messages: the user's message, assistant
        messages with ``tool_calls``, ``tool`` results, the final reply.

        The bodies go to the transcript store, a ``session.turn_recorded`` event per
        turn to the journal; a review the turn makes due (Hermes's nudges) runs as
        ``reviewers.mode`` says, off this thread by default.  Returns what was recorded
        (turn numbers, reviews made due).  Bad messages raise :class:`ValidationError`
        and record nothing.
        """
        if self.guest is not None:
            raise ValidationError(f"a guest session records no turn: {self.guest}")
        if self._recorder is None:
            raise ValidationError("this session cannot record turns: open it with "
                                  "memoir.open(...).start_session() or .session(id)")
        recorded = self._recorder.record(self.id, self.actor, self.tools.names, messages)
        index = index_of(self.engine)
        if index.mode == "hybrid":
            index.sync_soon()  # the turn's embeddings, off this thread
        return recorded

    # -- typed helpers, for applications that are not tool loops ------------------------

    def add_memory(self, text: str, target: Target = "memory") -> MemoryResult:
        """Add an entry (the ``memory`` tool's ``add``, as this session's actor)."""
        return self.call_tool("memory", {"action": "add", "target": target, "content": text})

    def replace_memory(self, old_text: str, text: str, target: Target = "memory"
                       ) -> MemoryResult:
        """Replace the one entry holding ``old_text`` with ``text``."""
        return self.call_tool("memory", {"action": "replace", "target": target,
                                         "old_text": old_text, "content": text})

    def remove_memory(self, old_text: str, target: Target = "memory") -> MemoryResult:
        """Remove the one entry holding ``old_text``."""
        return self.call_tool("memory", {"action": "remove", "target": target,
                                         "old_text": old_text})

    def memory_entries(self, target: Target = "memory") -> list[str]:
        """The entries of ``target`` as they are now (this session's writes included;
        :meth:`prompt_blocks` is what the prompt froze)."""
        return self.engine.state.memory.target(target).texts()

    def search_sessions(self, query: str, limit: int = 3) -> SessionSearchResult:
        """Past sessions about ``query`` (the ``session_search`` tool)."""
        return self.call_tool("session_search", {"query": query, "limit": limit})

    def end(self, reason: str = "closed", *, at: str | None = None) -> None:
        """Journal the end of the session (once: ending it again does nothing); with
        ``reviewers.review_on_end``, a last review covers the turns not yet reviewed.
        ``at`` (ISO-8601): when the conversation really ended, for a history recorded
        after the fact (default: now)."""
        if self._ended:
            return
        record = SessionEnded(session_id=self.id, reason=reason, ended_at=at)  # checks ``at``
        self._ended = True
        if self.guest is not None:
            return  # it was never journaled
        def decide(state: State) -> Decision[bool]:
            info = state.sessions.get(self.id)
            if info is not None and info.ended_at is not None:
                return Decision(events=[], result=False)  # ended idle, and reviewed then
            return Decision(events=[record], result=True)

        _events, ended = self.engine.commit(
            decide, by=Caller(actor=self.actor, session=self.id, meta=self.context.meta))
        if ended and self._recorder is not None:
            self._recorder.ended(self.id)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        """Leaving a ``with`` block ends the session (``session.ended`` is journaled)."""
        self.end("closed" if exc[0] is None else "error")

    def __repr__(self) -> str:
        return f"Session(id={self.id!r}, pinned_seq={self.pinned_seq})"


# -- the handle's everyday calls ------------------------------------------------------------
# For an application that is not a tool loop (docs/api.md, "The everyday calls"): a
# person's memory write (actor ``user``, one run of kind ``api`` that ``memoir revert``
# undoes, with the memory tool's limits, threat scan and drift rules), and searches that
# need no session and journal nothing.  :class:`memoir.Memoir` exposes them.


class MemoryHit(TypedDict):
    """One memory entry found by :func:`search_memory`."""

    target: str
    id: str
    text: str
    #: TF-IDF cosine of the entry with the query (0 to 1).
    score: float


def add_memory(home: Home, text: str, target: Target = "memory") -> MemoryResult:
    """Add ``text`` to ``target`` as a person; the memory tool's result plus ``run``."""
    run = short_id("api-")
    result, _ = memory_call(home, {"action": "add", "target": target, "content": text},
                            by=Caller(actor="user", run=run, run_kind="api"))
    landed = run in home.state.runs
    return cast(MemoryResult, {**result, "run": run if landed else None})


def search_memory(home: Home, query: str, *, target: Target | None = None,
                  limit: int = 10) -> list[MemoryHit]:
    """The entries of MEMORY.md and USER.md (or of ``target``) that share a word that
    says something with ``query`` (function words do not count), best first: TF-IDF
    cosine, ties by target then file order."""
    if not isinstance(query, str) or not query.strip():
        raise ValidationError("search_memory needs a query: some words of the entry")
    if target is not None and target not in TARGETS:
        raise ValidationError(f"target must be one of {', '.join(TARGETS)}, not {target!r}")
    state = home.state
    entries = {(t, i): entry for t in ([target] if target else TARGETS)
               for i, entry in enumerate(state.memory.target(t).entries)}
    keys = {f"{t}:{i:06d}": (t, i) for t, i in entries}
    scored = SkillScorer({k: entries[v].text for k, v in keys.items()}).score(query)
    hits: list[MemoryHit] = []
    for key, score in scored[:max(1, limit)]:
        t, i = keys[key]
        hits.append({"target": t, "id": entries[t, i].id, "text": entries[t, i].text,
                     "score": round(score, 4)})
    return hits


def search_sessions(home: Home, query: str, *, limit: int = 3) -> SessionSearchResult:
    """Past sessions about ``query``: the ``session_search`` tool's result, asked by no
    session (none is left out, nothing is journaled)."""
    context = CallContext(actor="user", session=None, records_reads=False)
    args: dict[str, Any] = {"query": query, "limit": limit}
    return cast(SessionSearchResult, session_search_tool(home, context, args))
