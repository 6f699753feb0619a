"""One review: a backend reads a session's new turns and writes through the tools, as
one run, and the run is closed by a ``review.*`` event.

The backend gets a :class:`Review`: the turns to look at (message bodies from the
transcript store), a read-only view of the state at the head, and :meth:`Review.call`,
its only way to change anything.  ``call`` answers the four tools of a Hermes review
(``memory``, ``skills_list``, ``skill_view``, ``skill_manage``) through the same command
layer as any agent, as actor ``reviewer.memory`` (memory) or ``reviewer.skills``
(skills), every write in the review's run; any other tool is refused with Hermes's
message and the refusal is counted.  So a review can only emit events of whitelisted
kinds under its own run, and ``memoir revert RUN`` undoes it like any run.

What a review changed is summarised from its run's events (never from tool output), in
the modes of ``display.memory_notifications`` (spec §2.4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from memoir.engine.caller import CallContext
from memoir.engine.commit import Caller, Decision
from memoir.engine.port import Home
from memoir.events.memory import EntryAdded, EntryRemoved, EntryReplaced, WriteRejected
from memoir.events.reviews import ReviewCompleted, ReviewFailed, ReviewWriteLimitReached
from memoir.events.sessions import TurnRecorded
from memoir.events.skills import SkillContentSet, SkillCreated, SkillFileWritten, SkillPatched
from memoir.events.types import Event
from memoir.ids import short_id
from memoir.journal.transcripts import TranscriptStore
from memoir.messages import clip, content_text
from memoir.projections.state import State
from memoir.tools import DEFAULT_TOOLS, Toolset

__all__ = ["REVIEW_TOOLS", "Backend", "Review", "ReviewRequest", "run_review", "summarize",
           "turns_of"]

#: The tools whose calls change something (each success counts against the budget).
_WRITING_TOOLS = frozenset({"memory", "skill_manage"})
#: What a review may call (spec §2.2), by construction: nothing else exists for it.
REVIEW_TOOLS: Toolset = DEFAULT_TOOLS.only({"memory", "skills_list", "skill_view",
                                             "skill_manage"})


@dataclass(frozen=True)
class ReviewRequest:
    """A review of session ``session_id``'s turns ``from_turn``..``through_turn``."""

    session_id: str
    from_turn: int
    through_turn: int
    kinds: tuple[str, ...]  # "memory", "skills"
    trigger: str = "nudge"  # "nudge", "end", "manual"


@dataclass
class Review:
    """What a backend works with (see the module docstring)."""

    engine: Home
    request: ReviewRequest
    run: str
    #: The summary of the run's ``run.started`` (landed with its first write).
    summary: str
    #: The turns to review, oldest first: each a list of message dicts.
    turns: list[list[dict[str, Any]]]
    #: The state at the head when the review began (read-only).
    state: State
    refused: list[str] = field(default_factory=list)
    calls: int = 0
    #: Writes made (calls of memory or skill_manage that succeeded), and the most allowed.
    writes: int = 0
    max_writes: int = 10
    #: Writes refused because the review had made ``max_writes``.
    over_budget: int = 0
    _contexts: dict[str, CallContext] = field(default_factory=dict)

    def call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """Call one of :data:`REVIEW_TOOLS` as the review; never raises."""
        self.calls += 1
        if name not in REVIEW_TOOLS:
            self.refused.append(name)
            return {"success": False, "error": f"Background review denied non-whitelisted "
                                               f"tool: {name}. Only memory, skills_list, "
                                               "skill_view and skill_manage may be called."}
        actor = "reviewer.memory" if name == "memory" else "reviewer.skills"
        writing = name in _WRITING_TOOLS
        if writing and self.writes >= self.max_writes:
            return self._over_budget(actor)
        ctx = self._contexts.get(actor)
        if ctx is None:
            ctx = self._contexts[actor] = CallContext(
                actor=actor, session=self.request.session_id, run=self.run,
                run_kind="review", run_summary=self.summary)
        result = REVIEW_TOOLS.dispatch(self.engine, ctx, name, args)
        if writing and result.get("success"):
            self.writes += 1
        return result

    def _over_budget(self, actor: str) -> dict[str, Any]:
        """Refuse a write past ``max_writes``; the first refusal is journaled."""
        self.over_budget += 1
        if self.over_budget == 1:
            limit = ReviewWriteLimitReached(session_id=self.request.session_id,
                                            through_turn=self.request.through_turn,
                                            limit=self.max_writes)
            self.engine.commit(lambda _s: Decision(events=[limit]), by=Caller(
                actor=actor, session=self.request.session_id, run=self.run))
        return {"success": False, "error": f"This review has made the {self.max_writes} "
                                           "writes a review may make (reviewers.max_writes); "
                                           "no more are accepted. Stop here."}

    def user_texts(self) -> list[tuple[int, str]]:
        """(turn number, text) of every user message under review."""
        out = []
        for number, turn in zip(range(self.request.from_turn, self.request.through_turn + 1),
                                self.turns, strict=False):
            for message in turn:
                if message.get("role") == "user":
                    out.append((number, content_text(message.get("content"))))
        return out




class Backend(Protocol):
    """A reviewer: reads ``review.turns`` and writes with ``review.call``.  Raising
    fails the review (journaled with the reason; what it wrote before stays in its run)."""

    name: str

    def review(self, review: Review) -> None: ...


def turns_of(engine: Home, store: TranscriptStore, request: ReviewRequest
           ) -> list[list[dict[str, Any]]]:
    wanted = range(request.from_turn, request.through_turn + 1)
    refs: dict[int, list[str]] = {}
    # Newest first from the journal's end: the turns under review are recent ones.
    for event in engine.events(types=["session.turn_recorded"], session=request.session_id,
                               reverse=True):
        data = event.data
        assert isinstance(data, TurnRecorded)
        if data.turn in wanted:
            refs[data.turn] = [m.ref for m in data.messages]
        if data.turn <= request.from_turn:
            break
    return [store.get_many(refs[n]) for n in wanted if n in refs]


def run_review(engine: Home, store: TranscriptStore, request: ReviewRequest,
               backend: Backend, *, display: str = "on") -> list[Event]:
    """Run one review as one run; returns the run's events (the closing
    ``review.completed`` or ``review.failed`` last).  Never raises for a backend's
    failure: that is journaled."""
    run = short_id("review-")
    actor = "reviewer.skills" if request.kinds == ("skills",) else "reviewer.memory"
    what = "+".join(request.kinds)
    summary = (f"{backend.name} review of {what}, session {request.session_id} turns "
               f"{request.from_turn}-{request.through_turn} ({request.trigger})")
    reason = None
    review: Review | None = None
    # The run starts with its first write (run.started in the same append), or with
    # its closing event when it wrote nothing: one append fewer per review.
    try:
        review = Review(engine, request, run, summary, turns_of(engine, store, request),
                        engine.view(), max_writes=engine.config.reviewers.max_writes)
        backend.review(review)
    except Exception as exc:  # a backend's failure is a record, not a lost log line
        reason = f"{type(exc).__name__}: {exc}"[:500]
    info = dict.get(engine.state.runs, run)
    changed = [] if info is None else [
        e for e in engine.events(run=run, after=info.first_seq - 1) if e.type != "run.started"]
    text = summarize(changed, display)
    if review is not None and review.refused:
        text = (text + " · " if text else "") + \
            f"refused {len(review.refused)} call(s) of {', '.join(sorted(set(review.refused)))}"
    if review is not None and review.over_budget:
        text = (text + " · " if text else "") + \
            f"refused {review.over_budget} write(s) past reviewers.max_writes"
    close: ReviewCompleted | ReviewFailed
    if reason is None:
        close = ReviewCompleted(session_id=request.session_id, through_turn=request.through_turn,
                                kinds=request.kinds, backend=backend.name,
                                changes=len(changed), summary=text, trigger=request.trigger)
    else:
        close = ReviewFailed(session_id=request.session_id, through_turn=request.through_turn,
                             kinds=request.kinds, backend=backend.name, reason=reason,
                             trigger=request.trigger)
    engine.commit(lambda _s: Decision(events=[close]), by=Caller(
        actor=actor, session=request.session_id, run=run, run_kind="review",
        run_summary=summary))
    return list(engine.events(run=run, after=engine.state.runs[run].first_seq - 1))


_LABEL = {"memory": "Memory", "user": "User profile"}


def summarize(events: Sequence[Event], mode: str = "on") -> str:
    """What a review's events changed, for a person (spec §2.4): ``off`` → "", ``on`` →
    one line per kind of change, ``verbose`` → each change; deduplicated, joined by
    `` · ``."""
    if mode == "off":
        return ""
    lines: list[str] = []
    for event in events:
        data = event.data
        if isinstance(data, EntryAdded | EntryReplaced | EntryRemoved):
            label = _LABEL[data.target]
            if mode != "verbose":
                lines.append(f"{label} updated")
            elif isinstance(data, EntryAdded):
                lines.append(f"{label} ➕ {clip(data.text, 120)}")
            elif isinstance(data, EntryReplaced):
                lines.append(f"{label} ✏️ {clip(data.text, 120)}")
            else:
                lines.append(f"{label} ➖ {clip(data.previous, 60)}")
        elif isinstance(data, SkillCreated):
            lines.append(f"Skill '{data.name}' created")
        elif isinstance(data, SkillContentSet | SkillPatched | SkillFileWritten):
            how = "patched" if isinstance(data, SkillPatched) else "rewritten"
            lines.append(f"Skill '{data.name}' updated" if mode != "verbose" else
                         f"📝 Skill '{data.name}' {how}")
    refused = [e.data for e in events if isinstance(e.data, WriteRejected)]
    if refused:
        # What was refused and why, never the text (it may be hostile, or a secret).
        why = sorted({p for r in refused for p in r.pattern_ids} or {"a rule"})
        lines.append(f"Refused {len(refused)} write(s): {', '.join(why)}")
    return " · ".join(dict.fromkeys(lines))


