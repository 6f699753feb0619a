"""The learning loop of one handle: recorded turns, nudges, and the reviews they trigger.

:class:`Learning` joins the transcript store, :func:`memoir.sessions.turns.record_turns` and the
review queue.  A session records its turns through it; each recorded turn may make a
memory or skill review due (Hermes's counters, spec §2.1), which the queue runs as the
configuration says; when a session ends, a last review covers the turns no review has
seen (``reviewers.review_on_end``).  ``Memoir.flush()`` waits for the queued reviews,
``Memoir.close()`` drains them with a timeout.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Collection, Sequence
from typing import Any

from memoir.engine.commit import Caller, Decision
from memoir.engine.maintenance import idle_sessions
from memoir.engine.port import Home
from memoir.errors import ConfigError, NotFoundError, ValidationError
from memoir.events.sessions import SessionEnded, SessionSummarized
from memoir.events.types import Event
from memoir.journal.transcripts import TranscriptStore
from memoir.llm import LLMError, client_from_config
from memoir.logs import get_logger
from memoir.projections.sessions import IDLE
from memoir.projections.state import State
from memoir.recall.summary import summarize_turns
from memoir.reviewers.choice import backend_in_effect
from memoir.reviewers.llm import LLMBackend, llm_summary
from memoir.reviewers.queue import ReviewQueue
from memoir.reviewers.review import Backend, Review, ReviewRequest, run_review, turns_of
from memoir.reviewers.rules import RulesBackend
from memoir.reviewers.semantic import SemanticBackend
from memoir.sessions.turns import RecordedTurns, check_messages, record_turns, split_turns
from memoir.worker import Worker

__all__ = ["Learning", "RecordedTurns", "backend_in_effect"]

_log = get_logger("memoir.reviewers.loop")



class _Unavailable:
    """A reviewer that could not be set up: every review fails with the reason."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason

    def review(self, review: Review) -> None:
        raise ValidationError(self.reason)


def make_backend(engine: Home) -> Backend:
    """The reviewer ``reviewers.backend`` names (one that cannot be set up fails each
    review with the reason, journaled; under ``auto`` the rules stand in for a semantic
    reviewer that cannot be set up, with a warning logged)."""
    config = engine.config
    backend = backend_in_effect(config)
    if backend == "rules":
        return RulesBackend()
    if backend == "semantic":
        auto = config.reviewers.backend == "auto"
        try:
            return SemanticBackend(fallback=auto)
        except (ConfigError, OSError, ValueError, RuntimeError) as exc:
            if auto:
                _log.warning("semantic_reviewer_unavailable", error=str(exc))
                return RulesBackend()
            return _Unavailable("semantic", str(exc))
    try:
        client = client_from_config(config)
    except (ValidationError, ConfigError) as exc:
        return _Unavailable("llm", str(exc))
    return LLMBackend(client, max_iterations=config.reviewers.llm.max_iterations)


def _sweep_failed(exc: Exception, _retry_in: float | None) -> None:
    # The sweep goes on: the next pass tries again (a journal that refused, a lock).
    _log.warning("session.idle_sweep_failed", error=" ".join(str(exc).split())[:300])


class Learning:
    """See the module docstring."""

    def __init__(self, engine: Home) -> None:
        self.engine = engine
        self.transcripts = TranscriptStore.of(
            engine, fsync=engine.config.journal.durability != "never", readonly=engine.readonly)
        self.queue = ReviewQueue(engine, self.transcripts, lambda: make_backend(engine))
        self._submitted: dict[str, int] = {}
        self._lock = threading.Lock()
        self._sweeper: Worker | None = None

    def intervals(self, tools: Collection[str]) -> tuple[int, int]:
        """The nudge intervals in force for a session that has ``tools`` (spec §2.1: a
        counter runs only when its tool is available, memory only when a store is on)."""
        config = self.engine.config
        memory_on = config.memory.memory_enabled or config.memory.user_profile_enabled
        memory = config.memory.nudge_interval if "memory" in tools and memory_on else 0
        skills = config.skills.creation_nudge_interval if "skill_manage" in tools else 0
        return memory, skills

    def record(self, session_id: str, actor: str, tools: Collection[str],
               messages: Any, *, review: bool = True, at: str | None = None
               ) -> RecordedTurns:
        """Check, store and journal ``messages`` (one turn or several) of a session, and
        submit the reviews they made due.  ``at``: when turns without timestamps
        happened (an imported conversation's start)."""
        info = self.engine.state.sessions.get(session_id)
        if info is None:
            raise NotFoundError(f"no session {session_id!r}")
        turns = split_turns(check_messages(messages))
        if not turns:
            raise ValidationError("nothing to record: the list of messages is empty")
        memory, skills = self.intervals(tools)
        self.queue.touch(session_id)
        due = record_turns(self.engine, self.transcripts, session_id, turns, actor=actor,
                           memory_interval=memory, skill_interval=skills, at=at)
        if review:
            for turn, kinds in due:
                if kinds:
                    self.submit(session_id, turn, kinds, "nudge")
        return RecordedTurns(tuple(t for t, _ in due), tuple(due))

    def submit(self, session_id: str, through: int, kinds: tuple[str, ...],
               trigger: str) -> ReviewRequest | None:
        """Queue a review of the turns of ``session_id`` not yet submitted, up to
        ``through``."""
        with self._lock:
            info = self.engine.state.sessions.get(session_id)
            done = max(info.reviewed_through if info else 0, self._submitted.get(session_id, 0))
            if through <= done and trigger != "manual":
                return None
            request = ReviewRequest(session_id, min(done + 1, through), through, kinds, trigger)
            self._submitted[session_id] = max(done, through)
        self.queue.submit(request)
        return request

    def ended(self, session_id: str) -> None:
        """A session ended: journal its summary (``episodic.summaries``) and review what
        no review covered (``reviewers.review_on_end``)."""
        info = self.engine.state.sessions.get(session_id)
        if info is None or not info.turns:
            return
        if self.engine.config.episodic.summaries:
            self.summarize(session_id)
        if self.engine.config.reviewers.review_on_end:
            self.submit(session_id, info.turns, ("memory", "skills"), "end")

    def summarize(self, session_id: str) -> Event | None:
        """Journal a summary of the session's turns — by the configured LLM when the
        reviewers use one (200-400 words, seed 004), else (or when it fails) by the
        offline rules; None if there is no user text to summarise."""
        info = self.engine.state.sessions.get(session_id)
        if info is None or not info.turns:
            return None
        request = ReviewRequest(session_id, 1, info.turns, ())
        turns = turns_of(self.engine, self.transcripts, request)
        summary, tags = summarize_turns(turns)
        if not summary:
            return None
        source = "rules"
        if self.engine.config.reviewers.backend == "llm":
            try:
                summary = llm_summary(client_from_config(self.engine.config), turns)
                source = "llm"
            except (LLMError, ValidationError, ConfigError) as exc:
                _log.warning("summary.llm_failed", session=session_id, error=str(exc),
                             why="the offline summary is journaled instead")
        payload = SessionSummarized(session_id=session_id, through_turn=info.turns,
                                    summary=summary, tags=tags, source=source)
        events, _ = self.engine.commit(lambda _s: Decision(events=[payload]),
                                       by=Caller(actor="system", session=session_id))
        return events[0]

    def end_idle(self, now: dt.datetime | None = None, *, most: int | None = None
                 ) -> list[str]:
        """End the sessions with recorded turns and none for
        ``sessions.idle_timeout_minutes`` (a process that exited or crashed without
        ending them): ``session.ended`` with reason ``idle``, then their summary and end
        review; returns their ids.  Each is checked again under the journal's lock, so
        two processes sweeping at once end a session once.  A later turn of such a
        session opens it again (an idle end is a pause).  ``most``: end at most this
        many, the longest idle first (each journals a summary, which may ask a model)."""
        minutes = self.engine.config.sessions.idle_timeout_minutes
        if not minutes or self.engine.readonly:
            return []
        when = now or self.engine.clock.now()
        ended = []
        for sid in idle_sessions(self.engine.state, minutes, when)[:most]:
            def decide(state: State, sid: str = sid) -> Decision[bool]:
                if not idle_sessions(state, minutes, when, among=(sid,)):
                    return Decision(events=[], result=False)  # ended or used meanwhile
                return Decision(events=[SessionEnded(session_id=sid, reason=IDLE)],
                                result=True)

            _events, done = self.engine.commit(decide, by=Caller(actor="system",
                                                                 session=sid))
            if done:
                _log.info("session.ended_idle", session=sid)
                self.ended(sid)
                ended.append(sid)
        return ended

    def keep_ending_idle(self, every: float | None = None) -> None:
        """While this handle is open, end idle sessions (:meth:`end_idle`) every
        ``every`` seconds (default: a quarter of the timeout, between 0.05 s and 5
        minutes), on a thread of its own; :meth:`close` stops it.  What a long-lived
        process (``memoir mcp``, the Hermes provider) calls."""
        minutes = self.engine.config.sessions.idle_timeout_minutes
        if not minutes or self.engine.readonly:
            return
        with self._lock:
            if self._sweeper is None:
                period = every if every is not None else min(300.0, max(0.05, minutes * 15))
                self._sweeper = Worker("memoir-idle", self._sweep, every=period, idle=None,
                                       on_error=_sweep_failed)
                self._sweeper.start()

    def _sweep(self) -> None:
        self.end_idle()

    def review_now(self, session_id: str, *, from_turn: int = 1,
                   kinds: Sequence[str] = ("memory", "skills")) -> list[Event]:
        """Review a session's turns now, on this thread (``memoir review``)."""
        info = self.engine.state.sessions.get(session_id)
        if info is None:
            raise NotFoundError(f"no session {session_id!r}")
        if not info.turns:
            raise ValidationError(f"session {session_id} has no recorded turns to review")
        request = ReviewRequest(session_id, max(1, from_turn), info.turns, tuple(kinds),
                                "manual")
        return run_review(self.engine, self.transcripts, request, make_backend(self.engine),
                          display=self.engine.config.display.memory_notifications)

    def flush(self) -> None:
        """Wait for the idle sweep under way (the sessions it ends, their summaries and
        end reviews), then for every review queued."""
        sweeper = self._sweeper
        if sweeper is not None:
            sweeper.wait_pass()
        self.queue.flush()

    def close(self) -> None:
        """Stop ending idle sessions, then drain the review queue."""
        with self._lock:
            sweeper, self._sweeper = self._sweeper, None
        if sweeper is not None:
            sweeper.stop()
        self.queue.close()
