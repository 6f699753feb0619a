"""Sessions: an agent's conversation, pinned to a journal position.

A session's prompt blocks are rendered from the state at its pinned seq, so they
stay identical while other writes land and can be rendered again, identically, at
any later time.  Tool calls go through the command layer with the session's id and
actor; the per-turn consolidation-failure cap (spec §1.6) is counted here.
"""

from __future__ import annotations

import contextlib
import json
import threading
from typing import TYPE_CHECKING, Any

from memoir.events.memory import WriteRejected
from memoir.events.runs import RunStarted
from memoir.events.sessions import SessionEnded
from memoir.home import Decision, memory_file
from memoir.memory_tool import (
    MAX_FAILURES_PER_TURN,
    MemoryOutcome,
    decide,
    drift_result,
    failure_cap_result,
)
from memoir.projections.memory import TARGETS
from memoir.projections.state import State
from memoir.tools import dispatch

if TYPE_CHECKING:
    from memoir.home import Memoir

__all__ = ["Session", "memory_call"]


class Session:
    """A pinned session.  Create with :meth:`Memoir.start_session`.

    Like a Hermes agent's ``MemoryStore``, a session counts consolidation failures per
    turn (:meth:`new_turn` resets the count) and remembers the entries it last held
    per target, which Hermes answers from when a replace or remove lacks ``old_text``.
    """

    def __init__(
        self,
        memoir: Memoir,
        session_id: str,
        pinned_seq: int,
        *,
        actor: str = "agent",
        blocks: dict[str, str | None] | None = None,
    ) -> None:
        self.memoir = memoir
        self.id = session_id
        self.pinned_seq = pinned_seq
        self.actor = actor
        self._blocks = blocks
        self._failures = 0
        self._held: Held = {}
        self._lock = threading.Lock()

    def prompt_blocks(self) -> dict[str, str | None]:
        """``{"memory": block | None, "user": block | None}`` frozen at the pinned seq."""
        if self._blocks is None:
            self._blocks = self.memoir.prompt_blocks(self.pinned_seq)
        return dict(self._blocks)

    def new_turn(self) -> None:
        """Mark the start of a user turn: resets the consolidation-failure counter."""
        with self._lock:
            self._failures = 0

    def call_tool(self, name: str, args: dict[str, Any] | str | None = None) -> dict[str, Any]:
        """Handle one agent tool call by name with Hermes-compatible arguments and results.

        ``args`` may be a dict or the JSON text an OpenAI-style tool call carries.
        """
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except json.JSONDecodeError as exc:
                return {"error": f"Tool arguments are not valid JSON: {exc}", "success": False}
        if args is None:
            args = {}
        if not isinstance(args, dict):
            return {"error": "Tool arguments must be a JSON object.", "success": False}
        return dispatch(self, name, args)

    def memory(self, args: dict[str, Any]) -> dict[str, Any]:
        """The ``memory`` tool (spec §1.3–1.7)."""
        with self._lock:
            result, outcome = memory_call(self.memoir, args, actor=self.actor, session=self.id,
                                          held=self._held)
            if outcome is not None:
                if outcome.success:
                    self._failures = 0
                elif outcome.failure:
                    self._failures += 1
                    if self._failures > MAX_FAILURES_PER_TURN:
                        return failure_cap_result(self._failures)
            return result

    def end(self, reason: str = "closed") -> None:
        """Journal the end of the session."""
        self.memoir.commit(
            lambda _s: Decision(events=[SessionEnded(session_id=self.id, reason=reason)]),
            actor=self.actor, session=self.id,
        )

    def __repr__(self) -> str:
        return f"Session(id={self.id!r}, pinned_seq={self.pinned_seq})"


#: Per target: (the target's entries in the journal state, the entries held in memory then).
Held = dict[str, tuple[list[str], list[str]]]


def memory_call(
    memoir: Memoir,
    args: dict[str, Any],
    *,
    actor: str,
    session: str | None = None,
    run: str | None = None,
    run_kind: str | None = None,
    held: Held | None = None,
) -> tuple[dict[str, Any], MemoryOutcome | None]:
    """Run one ``memory`` tool call through the command layer.

    Returns the Hermes-shaped result and the outcome.  A write to a file that holds a
    hand edit (or that Hermes's guard would refuse) is refused: the file is copied to
    ``<file>.bak.<unix seconds>`` and a ``memory.write_rejected`` is journaled.  With
    ``run_kind``, a write that lands starts run ``run`` in the same append.  ``held``
    is the caller's record of the entries it holds in memory, updated in place.
    """
    box: list[tuple[MemoryOutcome, list[str]]] = []

    def decide_here(state: State) -> Decision[dict[str, Any]]:
        target = args.get("target") or "memory"
        edited: set[str] = set()
        if target in TARGETS and memoir.target_drift(target) is not None:
            edited.add(target)
        live = {
            t: kept for t, (texts, kept) in (held or {}).items()
            if state.memory.target(t).texts() == texts
        }
        outcome = decide(state.memory, args, live=live, edited=edited)
        before = state.memory.target(target).texts() if target in TARGETS else []
        box.append((outcome, before))
        events = list(outcome.events)
        if outcome.drift is not None and outcome.target is not None:
            events.append(WriteRejected(
                target=outcome.target, action=_action(args), reason="drift",
                pattern_ids=[], preview="", length=0, sha256="",
            ))
        if run_kind and run and events:
            # Every run that lands in the journal starts with run.started, refusals too.
            verb = "" if outcome.success else "refused "
            summary = f"{verb}memory {_action(args)} ({target})"
            events.insert(0, RunStarted(run_id=run, kind=run_kind, summary=summary))
        return Decision(events=events, result=outcome.result)

    _events, result = memoir.commit(decide_here, actor=actor, session=session, run=run)
    outcome, before = box[-1]
    if outcome.drift is not None and outcome.target is not None:
        result = drift_result(outcome.target, outcome.drift, _backup(memoir, outcome.target))
    if held is not None and outcome.target is not None and outcome.live is not None:
        wrote = outcome.success and bool(outcome.events)
        held[outcome.target] = (list(outcome.live) if wrote else before, list(outcome.live))
    assert result is not None
    return result, outcome


def _action(args: dict[str, Any]) -> str:
    return "batch" if args.get("operations") else str(args.get("action"))


def _backup(memoir: Memoir, target: str) -> str:
    """Copy the target's file to ``<file>.bak.<unix seconds>``; Hermes's text on failure."""
    rel = memory_file(target)
    stamp = int(memoir.clock.now().timestamp())
    # Back up what the file holds once owed writes are done (a drifted file is left as
    # it is; a file that only looks drifted may be owed a write from a moment ago).  If
    # the flush fails, the backup still copies what is there.
    with contextlib.suppress(Exception):
        memoir.flush()
    try:
        path = memoir.materializer.backup(rel, stamp)
    except OSError:
        path = None
    if path is None:
        return f"{memoir.home / rel}.bak.{stamp} (BACKUP FAILED — file unchanged on disk)"
    return str(path)
