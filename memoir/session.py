"""Sessions: an agent's conversation, pinned to a journal position.

A session's prompt blocks are rendered from the state at its pinned seq, so they
stay identical while other writes land and can be rendered again, identically, at
any later time.  Tool calls go through the command layer with the session's id and
actor; the per-turn consolidation-failure cap (spec §1.6) is counted here.
"""

from __future__ import annotations

import json
import threading
import time
from typing import TYPE_CHECKING, Any

from memoir.events.memory import WriteRejected
from memoir.events.runs import RunStarted
from memoir.events.sessions import SessionEnded
from memoir.home import Decision
from memoir.memory_tool import MAX_FAILURES_PER_TURN, MemoryOutcome, decide, failure_cap_result
from memoir.projections.memory import FILE_NAMES
from memoir.projections.state import State

if TYPE_CHECKING:
    from memoir.home import Memoir

__all__ = ["Session", "memory_call"]


class Session:
    """A pinned session.  Create with :meth:`Memoir.start_session`."""

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
        from memoir.tools import dispatch

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
        """The ``memory`` tool (spec §1.3–1.6)."""
        with self._lock:
            result = self._memory_locked(args)
        return result

    def _memory_locked(self, args: dict[str, Any]) -> dict[str, Any]:
        result, outcome = memory_call(self.memoir, args, actor=self.actor, session=self.id)
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


def memory_call(
    memoir: Memoir,
    args: dict[str, Any],
    *,
    actor: str,
    session: str | None = None,
    run: str | None = None,
    run_kind: str | None = None,
) -> tuple[dict[str, Any], MemoryOutcome | None]:
    """Run one ``memory`` tool call through the command layer.

    Returns the Hermes-shaped result and the outcome (None when the call was refused
    because the target file holds hand edits).  With ``run_kind``, a write that lands
    starts run ``run`` in the same append.
    """
    outcome_box: list[MemoryOutcome] = []

    def decide_here(state: State) -> Decision[dict[str, Any]]:
        target = args.get("target") or "memory"
        if target in FILE_NAMES and _writes(args):
            drift = memoir.target_drift(target)
            if drift is not None:
                return _drift_refusal(memoir, target, args, drift.path)
        outcome = decide(state.memory, args)
        outcome_box.append(outcome)
        events = list(outcome.events)
        if run_kind and run and outcome.success and events:
            summary = f"memory {args.get('action') or 'batch'} ({target})"
            events.insert(0, RunStarted(run_id=run, kind=run_kind, summary=summary))
        return Decision(events=events, result=outcome.result)

    _events, result = memoir.commit(decide_here, actor=actor, session=session, run=run)
    assert result is not None
    return result, (outcome_box[-1] if outcome_box else None)


def _writes(args: dict[str, Any]) -> bool:
    return bool(args.get("operations")) or args.get("action") in ("add", "replace", "remove")


def _drift_refusal(
    memoir: Memoir, target: str, args: dict[str, Any], rel: str
) -> Decision[dict[str, Any]]:
    name = FILE_NAMES[target]
    try:
        bak: str = str(memoir.materializer.backup(rel, int(time.time())))
    except OSError:
        bak = f"{memoir.home / rel}.bak.{int(time.time())} (BACKUP FAILED — file unchanged on disk)"
    result = {
        "success": False,
        "error": (
            f"Refusing to write {name}: it was edited outside memoir since memoir last wrote "
            f"it, and writing now would overwrite that edit; snapshot saved to {bak}."
        ),
        "drift_backup": bak,
        "remediation": (
            f"Ask the user to run `memoir adopt` to keep the edit of {name} (or "
            "`memoir rebuild --force` to discard it), then retry."
        ),
    }
    action = "batch" if args.get("operations") else str(args.get("action"))
    event = WriteRejected(
        target=target,  # type: ignore[arg-type]
        action=action, reason="drift", pattern_ids=[], preview="", length=0, sha256="",
    )
    return Decision(events=[event], result=result)
