"""The ``memory`` tool run through the command layer: the call and the handler (its
schema is in :mod:`memoir.memory.schema`).

:func:`memory_call` decides a call with :func:`memoir.memory.decision.decide` against the
fresh state under the journal lock and appends what it decided.  A write to a file
that holds a hand edit (or that Hermes's guard would refuse) is refused: the file is
copied to ``<file>.bak.<unix seconds>`` and a ``memory.write_rejected`` is journaled.
:func:`memory_tool` is the agent-facing handler; it counts consolidation failures per
turn in the caller's context (spec §1.6).
"""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from memoir.engine.adoption import adopt
from memoir.engine.caller import CallContext, HeldEntries, is_background
from memoir.engine.commit import Caller, Decision
from memoir.engine.files import FilesView
from memoir.engine.gate import ApprovalGate, Held
from memoir.engine.port import Home
from memoir.events.memory import WriteRejected
from memoir.events.types import Payload
from memoir.memory.adoption import adoption_events, edit_base
from memoir.memory.decision import (
    MAX_FAILURES_PER_TURN,
    MemoryOutcome,
    decide,
    drift_result,
    failure_cap_result,
    prescan,
)
from memoir.memory.schema import MEMORY_SCHEMA
from memoir.projections.approvals import PendingWrite
from memoir.projections.memory import TARGETS, well_formed
from memoir.projections.render.memory import memory_file, render_memory_file
from memoir.projections.state import State

__all__ = ["MEMORY_SCHEMA", "adopt_hand_edit", "memory_call", "memory_tool", "target_drifted"]

def target_drifted(state: State, files: FilesView, target: str) -> bool:
    """Whether the target's file holds bytes memoir did not write (a hand edit).

    A link or a folder where the file goes is not an edit the write would hide: the
    write is journaled, and the file that cannot be written is reported (status).
    """
    drift = files.drifted(memory_file(target), lambda: render_memory_file(state, target))
    return drift is not None and drift.kind == "edited"


@dataclass
class _Attempt:
    """One memory call's decision and its one retry: a decision that meets a hand edit
    of its target (``may_adopt``: the home adopts them) asks for it to be adopted first
    (``adopt_first``) and is decided again, once.  Only a call that meets one pays for
    it.  ``outcome`` and ``before`` (the target's texts) are the last decision's."""

    may_adopt: bool
    adopt_first: bool = False
    outcome: MemoryOutcome | None = None
    before: list[str] = field(default_factory=list)


def memory_call(
    engine: Home,
    args: dict[str, Any],
    *,
    by: Caller | str,
    held: HeldEntries | None = None,
    approving: PendingWrite | None = None,
) -> tuple[dict[str, Any], MemoryOutcome | None]:
    """Run one ``memory`` tool call through the command layer, as ``by``.

    Returns the Hermes-shaped result and the outcome.  When ``by`` names a run with a
    kind, a write that lands (a refusal too) starts it in the same append.  ``held`` is
    the caller's record of the entries it holds in memory, updated in place.

    With ``memory.write_approval`` on, a write by anyone but a person (actor ``user``)
    that would land is held instead: ``write.pending`` is journaled and the result says
    it is staged (spec §1.9).  A write that would fail fails now, as it would later.
    ``approving`` replays a held write for a person: its ``write.approved`` goes first
    in the same append as the write's events (nothing is appended if it fails).
    """
    by = Caller.of(by)
    actor = by.actor
    gate = ApprovalGate.of("memory", actor=actor, enabled=engine.config.memory.write_approval,
                           approving=approving)
    attempt = _Attempt(may_adopt=engine.config.memory.adopt_hand_edits and not engine.readonly)

    def decide_here(state: State, files: FilesView) -> Decision[dict[str, Any] | None]:
        target = args.get("target") or "memory"
        edited: set[str] = set()
        if target in TARGETS and target_drifted(state, files, target):
            edited.add(target)
        live = {
            t: kept for t, (texts, kept) in (held or {}).items()
            if state.memory.target(t).texts() == texts
        }
        outcome = decide(state.memory, args, live=live, edited=edited)
        before = state.memory.target(target).texts() if target in TARGETS else []
        attempt.outcome, attempt.before = outcome, before
        if outcome.drift == "edited" and attempt.may_adopt:
            attempt.adopt_first = True
            return Decision(events=[], result=None)
        events, staged = gate.passes(
            state, outcome.events, success=outcome.success,
            message=str(outcome.result.get("message", "")),
            held=lambda: Held(_action(args), memory_summary(args),
                              "background_review" if is_background(actor) else "foreground",
                              _tool_args(args)))
        if staged is not None:
            outcome = attempt.outcome = dataclasses.replace(outcome, result=staged, events=[])
        if outcome.drift is not None and outcome.target is not None:
            events.append(WriteRejected(
                target=outcome.target, action=_action(args), reason="drift",
                pattern_ids=[], preview="", length=0, sha256="",
            ))
        verb = "" if outcome.success else "refused "
        return Decision(events=events, result=outcome.result,
                        summary=f"{verb}memory {_action(args)} ({target})")

    prescan(args)  # off the journal's lock (the decision under it finds it done)
    _events, result = engine.commit_with_files(decide_here, by=by)
    if attempt.adopt_first:
        attempt.may_adopt = attempt.adopt_first = False
        target = str(args.get("target") or "memory")
        adopt_hand_edit(engine, target, before=f"{actor}'s memory {_action(args)}")
        _events, result = engine.commit_with_files(decide_here, by=by)
    outcome, before = attempt.outcome, attempt.before
    assert outcome is not None
    if outcome.drift is not None and outcome.target is not None:
        kind = outcome.drift
        if kind == "edited" and _malformed(engine, outcome.target):
            kind = "malformed"
        result = drift_result(outcome.target, kind, _backup(engine, outcome.target))
    if held is not None and outcome.target is not None and outcome.live is not None \
            and not outcome.result.get("staged"):
        wrote = outcome.success and bool(outcome.events)
        held[outcome.target] = (list(outcome.live) if wrote else before, list(outcome.live))
    assert result is not None
    return result, outcome


def memory_tool(engine: Home, ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """The ``memory`` tool (spec §1.3–1.7) for the caller ``ctx``."""
    with ctx.lock:
        result, outcome = memory_call(engine, args, by=ctx.caller(), held=ctx.held)
        if outcome is not None:
            if outcome.success:
                ctx.failures = 0
            elif outcome.failure:
                ctx.failures += 1
                if ctx.failures > MAX_FAILURES_PER_TURN:
                    return failure_cap_result(ctx.failures)
        return result


def adopt_hand_edit(engine: Home, target: str, *, before: str) -> str | None:
    """Adopt a well-formed hand edit of ``target``'s file as the person's: events of
    actor ``user`` in a run of their own (kind ``adopt``), three-way against what memoir
    last wrote there, so writes journaled since are kept.  Returns the run id, or None
    when there is nothing to adopt or the edit is left for the write to refuse: a file
    Hermes's drift guard would refuse (spec §1.7), one both the person and the journal
    changed at the same entry, a read-only home, or ``memory.adopt_hand_edits: false``.
    ``before`` says what the adoption makes way for (the run's summary).  Never raises
    for the file's sake; the write that follows reports what is wrong with it.
    """
    if engine.readonly or not engine.config.memory.adopt_hand_edits:
        return None
    state = engine.state
    files = engine.files
    if target not in TARGETS or not target_drifted(state, files, target):
        return None
    rel = memory_file(target)
    found = edit_base(engine, target)
    bases = {rel: found.entries} if found is not None else None

    def adopter(state: State, files: FilesView, _force: bool) -> tuple[list[Payload],
                                                                      list[str]]:
        return adoption_events(state, files, bases=bases, targets=(target,),
                               well_formed_only=True)

    adopted = adopt(engine, [adopter], lenient=True,
                    summary=f"adopted a hand edit of {rel} before {before}")
    return adopted.run if adopted.paths else None


def memory_summary(args: dict[str, Any]) -> str:
    """The one line a pending memory write is listed with (Hermes's form)."""
    label = "user profile" if args.get("target") == "user" else "memory"
    operations = args.get("operations")
    if operations:
        lines = []
        for op in operations if isinstance(operations, list) else []:
            op = op if isinstance(op, dict) else {}
            act = op.get("action", "?")
            if act == "remove":
                lines.append(f"- remove: {op.get('old_text', '')}")
            elif act == "replace":
                lines.append(f"- replace: {op.get('old_text', '')} -> {op.get('content', '')}")
            else:
                lines.append(f"- {act}: {op.get('content', '')}")
        count = len(operations) if isinstance(operations, list) else 0
        return f"apply {count} op(s) to {label}: {chr(10).join(lines)[:120]}"
    action = args.get("action")
    content, old_text = args.get("content") or "", args.get("old_text") or ""
    if action == "add":
        return f"add to {label}: {str(content)[:120]}"
    if action == "replace":
        return f"replace in {label}: {f'old: {old_text}{chr(10)}new: {content}'[:120]}"
    return f"remove from {label}: {str(old_text)[:120]}"


def _tool_args(args: dict[str, Any]) -> dict[str, Any]:
    """The arguments of a memory call worth keeping to replay it."""
    keys = ("action", "target", "content", "old_text", "operations")
    return {k: args[k] for k in keys if args.get(k) is not None}


def _action(args: dict[str, Any]) -> str:
    return "batch" if args.get("operations") else str(args.get("action"))


def _malformed(engine: Home, target: str) -> bool:
    """Whether the target's file holds text Hermes's drift guard refuses."""
    data = engine.files.read(memory_file(target))
    try:
        text = data.decode("utf-8") if data is not None else ""
    except UnicodeDecodeError:
        return True
    return not well_formed(text, engine.state.memory.limits[target])


def _backup(engine: Home, target: str) -> str:
    """Copy the target's file to ``<file>.bak.<unix seconds>``; Hermes's text on failure."""
    rel = memory_file(target)
    stamp = int(engine.clock.now().timestamp())
    # Back up what the file holds once owed writes are done (a drifted file is left as
    # it is; a file that only looks drifted may be owed a write from a moment ago).  If
    # the flush fails, the backup still copies what is there.
    with contextlib.suppress(Exception):
        engine.flush()
    try:
        path = engine.backup_file(rel, stamp)
    except OSError:
        path = None
    if path is None:
        return f"{engine.home / rel}.bak.{stamp} (BACKUP FAILED — file unchanged on disk)"
    return str(path)
