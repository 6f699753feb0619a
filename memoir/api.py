"""The handle :func:`memoir.open` returns: an engine plus sessions, adoption of hand
edits and status.

:class:`Memoir` is an :class:`~memoir.engine.Engine` (commit, state, views, events,
flush, rebuild, verify, repair, close) with what an agent or a person does with a home
on top: start and re-open pinned sessions, render prompt blocks at any seq, adopt
hand edits of the projected files as events, and report the home's status.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memoir.engine.commit import Caller, Decision, Pending
from memoir.engine.engine import Engine
from memoir.engine.maintenance import idle_sessions, unfinished_here
from memoir.engine.materializer import Drift, unwritable
from memoir.engine.signing import home_signer
from memoir.errors import ConfigError, MemoirError, NotFoundError, ValidationError
from memoir.events.sessions import SessionStarted
from memoir.events.types import Event
from memoir.ids import short_id
from memoir.journal import Roles, Schema
from memoir.logs import get_logger
from memoir.memory import adoption as memory_adoption
from memoir.memory.commands import adopt_hand_edit
from memoir.names import check_session_id
from memoir.oversight.adoption import adopt_everything
from memoir.projections.lazy import LazyDict
from memoir.projections.memory import TARGETS, reread, usage_numbers, usage_text
from memoir.projections.render.memory import memory_file, render_memory_file
from memoir.projections.state import State
from memoir.prompt.blocks import (
    Blocks,
    blocks_at,
    enabled_targets,
    kept_session,
    render_blocks,
    session_blocks,
)
from memoir.recall import index_if_open
from memoir.reviewers.choice import backend_in_effect
from memoir.semantic import recall_status
from memoir.sessions import session as everyday
from memoir.sessions.session import Session, Target
from memoir.skills import usage as skills_usage
from memoir.skills.adopt import placed_skill_folders
from memoir.skills.tools import adopt_placed_skills, external_skills_skipped
from memoir.threats import redacted_preview
from memoir.tools import DEFAULT_TOOLS, Toolset
from memoir.tools.results import MemoryResult, SessionSearchResult

if TYPE_CHECKING:
    from memoir.engine.tail import Tail
    from memoir.reviewers.loop import Learning

_log = get_logger("memoir.adoption")
_session_log = get_logger("memoir.sessions")

__all__ = ["Memoir"]


class Memoir(Engine):
    """An open memoir home.  Safe to share between threads; many processes may open
    the same home at once.

    ``follow=True``: keep the handle caught up with what other processes and machines
    append, at once, with the files they change written (:meth:`follow`); what a
    long-lived handle (a server, an agent's provider) wants.  The other options are
    :class:`~memoir.engine.Engine`'s.
    """

    def __init__(self, home: str | os.PathLike[str] | None = None, *, follow: bool = False,
                 **options: Any) -> None:
        super().__init__(home, **options)
        self._tail: Tail | None = None
        #: The idle sessions this handle ended on opening (see :func:`_end_idle`).
        self.ended_idle: list[str] = []
        _end_idle(self)
        if follow:
            self.follow()

    def follow(self, *, poll: float = 1.0) -> Tail:
        """Start tailing the journal (once; a second call returns the same tail): other
        writers' records are folded as soon as the journal tells of them (within
        ``poll`` seconds at worst), their files written and their forgets carried out
        here, and sessions left idle ended.  :meth:`close` stops it."""
        if self._tail is None:
            # Loaded here: a short command (``memoir status``) needs neither.
            from memoir.engine.tail import Tail
            from memoir.oversight.forget import follow_forgets

            self._tail = Tail(self, poll=poll, on_change=follow_forgets(self)).start()
            _end_idle(self, keep=True)
        return self._tail

    # -- sessions ------------------------------------------------------------------------------

    def start_session(
        self,
        *,
        session_id: str | None = None,
        platform: str = "cli",
        parent: str | None = None,
        actor: str = "agent",
        tools: Toolset = DEFAULT_TOOLS,
        started_at: str | None = None,
        meta: Mapping[str, str] | None = None,
    ) -> Session:
        """Start a session pinned to the journal position of its start event.
        ``started_at`` (ISO-8601): when the conversation really began, for a history
        recorded later; ``tools``: what :meth:`Session.call_tool` answers (default: all);
        ``meta``: facts about the caller (``{"client": "cursor"}``) every record of the
        session carries.  Hand edits of the memory files and the skills tree are adopted
        first (as the person's), so the prompt shows what the files show, as Hermes's."""
        problem = None if session_id is None else check_session_id(session_id)
        if problem is not None:
            raise ValidationError(problem)
        sid = session_id or short_id("s-")
        _adopt_before(self, f"session {sid} started")

        def decide(state: State) -> Decision[dict[str, str | None]]:
            # A generated id (48 random bits) needs no check, and skipping it keeps a
            # home with a long history from decoding every past session to start one.
            if session_id is not None and sid in state.sessions:
                raise ValidationError(f"session {sid!r} already exists; use memoir.session()")
            return Decision(events=[SessionStarted(session_id=sid, platform=platform,
                                                   parent=parent, started_at=started_at)])

        # The blocks are rendered right after the start event is folded, before any
        # other commit of the same group lands in the live state.
        pending: Pending[Blocks] = Pending(
            decide, Caller(actor=actor, session=sid, meta=meta),
            then=lambda state, _result: render_blocks(state, enabled_targets(self.config)))
        self.run(pending)
        pinned = pending.events[-1].seq
        blocks = session_blocks(self, sid, pinned, rendered=pending.result,
                                record_hash=pending.events[-1].hash, actor=actor)
        return Session(self, sid, pinned, actor=actor, blocks=blocks, tools=tools,
                       recorder=self._recorder(), meta=meta)

    def guest_session(self, why: str, *, platform: str = "cli", actor: str = "agent",
                      tools: Toolset = DEFAULT_TOOLS,
                      meta: Mapping[str, str] | None = None) -> Session:
        """A session that writes nothing, for a home that may not append (a key the
        signed journal does not trust): pinned at the head, reads answered as usual,
        each write an error result saying ``why``; no turn, prompt or end journaled."""
        sid, state = short_id("g-"), self.state
        _session_log.warning("session.guest", session=sid, platform=platform, why=why)
        return Session(self, sid, state.seq, actor=actor, tools=tools, meta=meta, guest=why,
                       blocks=render_blocks(state, enabled_targets(self.config)))

    def session(self, session_id: str, *, tools: Toolset = DEFAULT_TOOLS,
                meta: Mapping[str, str] | None = None) -> Session:
        """Re-open a session that was started earlier (in any process).  A session whose
        prompt was kept (:mod:`memoir.engine.prompts`) opens from that file, however old
        its pin, without reading the session history."""
        kept = kept_session(self, session_id)
        if kept is not None:
            seq, kept_actor, blocks = kept
            return Session(self, session_id, seq, actor=kept_actor, blocks=blocks,
                           tools=tools, recorder=self._recorder(), meta=meta)
        sessions = self.state.sessions
        # A session started since the last checkpoint is found without decoding the
        # whole session history.
        info = sessions.peek(session_id) if isinstance(sessions, LazyDict) else \
            sessions.get(session_id)
        if info is None:
            raise NotFoundError(f"no session {session_id!r} in {self.home}")
        return Session(self, session_id, info.pinned_seq, actor=info.actor, tools=tools,
                       recorder=self._recorder(), meta=meta)

    # -- the learning loop ------------------------------------------------------------------

    @functools.cached_property
    def learning(self) -> Learning:
        """Recorded turns, nudges and reviews (see :mod:`memoir.reviewers.loop`), loaded
        on first use."""
        from memoir.reviewers.loop import Learning

        return Learning(self)

    def _recorder(self) -> Learning | None:
        return None if self.readonly else self.learning

    def flush(self) -> None:
        """Wait for the queued reviews, then write the projected files still owed (see
        :meth:`Engine.flush`)."""
        if "learning" in self.__dict__:
            self.learning.flush()
        index = index_if_open(self)
        if index is not None:
            index.flush()  # the embeddings of the turns recorded
        super().flush()

    def close(self, *, flush: bool = True) -> None:
        """Drain the review queue (up to ``reviewers.close_timeout_seconds``; what is left
        is journaled as skipped), then close the engine."""
        if self._tail is not None:
            self._tail.stop()
        if "learning" in self.__dict__ and not self.closed:
            self.learning.close()
        index = index_if_open(self)
        if index is not None:
            index.close()
        super().close(flush=flush)

    def prompt_blocks(self, seq: int | None = None) -> Blocks:
        """The MEMORY and USER prompt blocks rendered from the state at ``seq``."""
        return blocks_at(self, seq)

    # -- hand edits ----------------------------------------------------------------------------

    def target_drift(self, target: str) -> Drift | None:
        """How MEMORY.md or USER.md differs from what memoir wrote (None: it does not)."""
        state = self.state
        return self.files.drifted(memory_file(target), lambda: render_memory_file(state, target))

    def adopt(self, *, run: str | None = None, force: bool = False,
              notes: list[str] | None = None) -> tuple[str, list[Event]]:
        """Turn hand edits of MEMORY.md, USER.md and the skills tree into ``user`` events
        of one run; returns the run id and its events.  Memory files are read with
        Hermes's rules and validated like any write; adoption is three-way (writes since
        the edit's base are kept, each noted in ``notes``); when both changed the same
        entry or skill file, :class:`~memoir.errors.AdoptionConflict` unless ``force``
        (the hand edit wins).  See :mod:`memoir.oversight.adoption`."""
        self.flush()
        return adopt_everything(self, run=run, force=force, notes=notes)

    # -- everyday calls (memoir.sessions.session) -------------------------------------------

    def add_memory(self, text: str, target: Target = "memory") -> MemoryResult:
        """Add an entry as a person (a run of its own; its id in ``run``)."""
        return everyday.add_memory(self, text, target)

    def search_memory(self, query: str, *, target: Target | None = None,
                      limit: int = 10) -> list[everyday.MemoryHit]:
        """The memory entries about ``query``, best first."""
        return everyday.search_memory(self, query, target=target, limit=limit)

    def search_sessions(self, query: str, *, limit: int = 3) -> SessionSearchResult:
        """Past sessions about ``query`` (the ``session_search`` tool's result)."""
        return everyday.search_sessions(self, query, limit=limit)

    # -- status --------------------------------------------------------------------------------

    def journal_rights(self) -> dict[str, bool] | None:
        """What the role of a shared (PostgreSQL) journal may do to memoir's tables
        (``{"memoir_records:UPDATE": False, ..., "superuser": False}``); None for a
        journal of this machine's own."""
        journal = self.journal
        return journal.privileges() if isinstance(journal, Roles) else None

    def status(self) -> dict[str, Any]:
        """The head, entries and usage per target, sessions, runs and drift."""
        return home_status(self)

    def __enter__(self) -> Memoir:
        return self


#: The idle sessions a handle ends while it opens, at most.
OPEN_ENDS_AT_MOST = 8


def _end_idle(handle: Memoir, *, keep: bool = False) -> None:
    """Sessions a process left without an end (it exited, it crashed) are ended and
    reviewed by the next handle that may write (:meth:`Learning.end_idle`); ``keep``:
    and by this one while it follows.  A handle that cannot (an untrusted key, a
    refusing journal) opens all the same."""
    minutes = handle.config.sessions.idle_timeout_minutes
    if handle.readonly or not minutes:
        return
    try:
        if idle_sessions(handle.state, minutes, handle.clock.now()):
            # A few per open: a backlog never makes opening slow (the rest: later).
            handle.ended_idle += handle.learning.end_idle(most=OPEN_ENDS_AT_MOST)
        if keep:
            handle.learning.keep_ending_idle()
    except MemoirError as exc:
        _session_log.warning("session.idle_sweep_failed", error=str(exc)[:300])


def home_status(home: Memoir) -> dict[str, Any]:
    """What :meth:`Memoir.status` reports."""
    state = home.state
    memory: dict[str, Any] = {}
    for t in TARGETS:
        # As the file reads back (Hermes's view), not the raw journal list.
        entries = reread(state.memory.target(t).texts())
        limit = state.memory.limits[t]
        chars, percent = usage_numbers(entries, limit)
        memory[t] = {"entries": len(entries), "chars": chars, "limit": limit,
                     "percent": percent, "usage": usage_text(entries, limit), "flagged": [
                         {"entry_id": entry.id, "patterns": ids,
                          "preview": redacted_preview(entry.text)}
                         for entry, ids in memory_adoption.flagged_entries(state, t)]}
    # Rendered once: what the head projects, for hand edits and for files left behind.
    desired = home.projector.projected_files(state)
    edits, blocked = unwritable(home.materializer.drift(desired))
    memory_interval, skill_interval = home.learning.intervals(DEFAULT_TOOLS.names) \
        if not home.readonly else (home.config.memory.nudge_interval,
                                   home.config.skills.creation_nudge_interval)
    # Only the open ones are decoded (a long history stays undecoded).
    live = (state.sessions.get(sid) for sid in state.open_sessions)
    open_sessions = sorted((s for s in live if s is not None and s.ended_at is None
                            and s.turns),
                           key=lambda s: s.last_turn_at or s.started_at, reverse=True)
    nudges = [{"session": s.id, "turns": s.turns, "reviewed_through": s.reviewed_through,
               "memory": {"count": s.turns_since_memory, "interval": memory_interval},
               "skills": {"count": s.iters_since_skill, "interval": skill_interval}}
              for s in open_sessions]
    journal = home.journal
    missing = home.materializer.missing()
    return {
        "home": str(home.home),
        # Where the records are: a file, or a database shared with other homes.
        "journal": {"kind": journal.kind, "where": journal.where(),
                    "schema_version": journal.schema_version()
                    if isinstance(journal, Schema) else None,
                    "sealed": home.keyed,
                    # Signed appends (memoir.engine.signing): since which seq, the
                    # owner's key, and whether this home's key may sign now.
                    "signing": _signing_status(home, state)},
        "head": state.seq,
        "head_hash": state.hash,
        "sessions": len(state.sessions),
        # Episodic recall in effect: hybrid (BM25 and embeddings) or bm25.
        "recall": recall_status(home.config.episodic.semantic),
        # The reviewer in effect, and what reviewers.backend says (auto: semantic
        # where the semantic extra is in use, else rules).
        "reviewer": {"backend": backend_in_effect(home.config),
                     "setting": home.config.reviewers.backend},
        "runs": len(state.runs),
        "memory": memory,
        "drift": edits,
        # Skill folders placed in the tree by hand and not adopted yet (a session start
        # or a skills tool adopts them; one that breaks a rule stays listed here).
        "placed": placed_skill_folders(home.files, state),
        # Skill folders of skills.external_dirs that memoir does not take, and why
        # (nested deeper than category/name, a bad name, a malformed SKILL.md, a link).
        "external_skipped": external_skills_skipped(home),
        # Projected files deleted by hand (a home opened for writing writes them
        # again at once; a read-only one reports them).
        "missing": missing,
        # Projected files that memoir wrote at an earlier head and that the head now
        # renders otherwise (another process or machine appended since; a process
        # that follows, or any write here, brings them up to date), and how many
        # records the files are behind the journal (0: up to date).
        "stale": (stale := _stale(home, desired, {*edits, *missing,
                                                   *home.materializer.failed, *blocked})),
        "behind": max(0, state.seq - home.materializer.seq) if stale else 0,
        # Records of the journal the fold leaves out (seq, why; the first 20) and how
        # many in all: rows no memoir writes (`memoir journal quarantine`).
        "quarantined": {"count": state.quarantine_count, "records": [
            {"seq": seq, "reason": why}
            for seq, why in sorted(state.quarantined.items())[:20]]},
        # Projected files memoir cannot write (a link or a folder where one goes), or
        # whose last write failed, and why; they are tried again on every write.
        "unwritten": {**home.materializer.failed, **blocked},
        # Open sessions with recorded turns, most recent first: their nudge counters.
        "nudges": nudges,
        # Journaled forgets this home has not carried out: "interrupted" here, or made
        # "elsewhere" (another home of the journal); `memoir forget --finish` does it.
        "forgets": [{"run": run, "state": how}
                    for run, how in unfinished_here(home.home, state)],
        # The Hermes home whose memory this home mirrors (hermes.home), or None.
        "mirrors": home.config.hermes.home,
    }


def _signing_status(home: Memoir, state: State) -> dict[str, Any]:
    keys = state.keys
    # The owner key this home pinned (None: none) and whether the journal is rooted in it.
    pin = {"pinned": keys.pinned or None, "pin_holds": not keys.pinned or keys.root == keys.pinned}
    if not keys.signing:
        return {"on": False, "since": None, "owner": None, "key": None, "trusted": False, **pin}
    try:
        signer = home_signer(home.home)
    except ConfigError:
        signer = None
    key = signer.key if signer is not None else None
    return {"on": True, "since": keys.since, "owner": keys.owner, "key": key,
            "trusted": key is not None and keys.trusted_at(key, state.seq + 1) is not None,
            **pin}


def _stale(home: Memoir, desired: dict[str, bytes | None], skip: set[str]) -> list[str]:
    """The projected files (hand-edited, deleted and unwritable ones aside) whose bytes
    on disk are not what the head renders (``desired``)."""
    return sorted(rel for rel, data in desired.items()
                  if rel not in skip and home.materializer.read(rel) != data)


def _adopt_before(home: Memoir, what: str) -> None:
    """Adopt well-formed hand edits of the memory files, and the usage records
    Hermes wrote, before ``what``; a failure is logged, never raised (the session
    starts from the journal as it is)."""
    if home.readonly:
        return
    for target in TARGETS if home.config.memory.adopt_hand_edits else ():
        try:
            adopt_hand_edit(home, target, before=what)
        except MemoirError as exc:
            _log.warning("adoption.skipped", home=str(home.home), target=target,
                         error=str(exc))
    try:
        adopt_placed_skills(home, before=what)
    except MemoirError as exc:
        _log.warning("adoption.skipped", home=str(home.home), target="skills",
                     error=str(exc))
    try:
        skills_usage.adopt_usage(home, before=what)
    except MemoirError as exc:
        _log.warning("adoption.skipped", home=str(home.home), target="usage",
                     error=str(exc))
