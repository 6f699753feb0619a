"""Pending writes and a person's decision on them (spec §1.9, ``memoir pending``).

With ``memory.write_approval`` / ``skills.write_approval`` on, the memory and
``skill_manage`` tools hold the writes of agents and reviews as ``write.pending``
events instead of making them.  Here a person lists them, looks at one, approves or
rejects them:

- :func:`approve` replays each held call, in the order they were proposed, through the
  same command layer and rules as any call (a replay that no longer applies — its
  text was removed meanwhile, the budget is full — fails and stays pending, as in
  Hermes); the ``write.approved`` and the write's events land in one append, all of
  one run (kind ``approval``), so ``memoir revert RUN`` undoes an approval;
- :func:`reject` resolves them with ``write.rejected``; nothing is written.

The approver is the actor of the replayed call: a skill a review proposed and a person
approved belongs to the person, as in Hermes (whose replay runs in the foreground).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memoir.engine.commit import Caller, Decision
from memoir.engine.port import Home
from memoir.errors import NotFoundError, ValidationError
from memoir.events.approvals import PendingRejected
from memoir.events.memory import EntryAdded, EntryRemoved, EntryReplaced
from memoir.events.skills import SkillContentSet, SkillCreated, SkillFileWritten, SkillPatched
from memoir.events.types import Payload
from memoir.ids import short_id
from memoir.lookup import resolve
from memoir.memory.commands import memory_call
from memoir.memory.decision import decide as decide_memory
from memoir.projections.approvals import PendingWrite
from memoir.projections.skills import SKILL_FILE
from memoir.projections.state import State
from memoir.skills.held import skill_diff
from memoir.skills.manage import decide_manage
from memoir.skills.tools import skill_manage_call

__all__ = ["Approval", "approve", "check_ids", "pending", "pending_row", "reject", "show"]


@dataclass(frozen=True)
class Approval:
    """What approving one pending write did: the replayed call's result."""

    pending_id: str
    success: bool
    result: dict[str, Any]


def pending(engine: Home) -> list[PendingWrite]:
    """The writes waiting for approval, oldest first."""
    return sorted(engine.state.approvals.pending.values(), key=lambda p: p.staged_seq)


def pending_row(write: PendingWrite) -> dict[str, Any]:
    """A held write as ``memoir pending --json`` and the web view list it."""
    return {"id": write.id, "subsystem": write.subsystem, "action": write.action,
            "summary": write.summary, "origin": write.origin, "proposed_by": write.actor,
            "session": write.session, "staged_seq": write.staged_seq,
            "staged_at": write.staged_at}


def _chosen(state: State, ids: Sequence[str] | None) -> list[PendingWrite]:
    held = state.approvals.pending
    if ids is None:
        return sorted(held.values(), key=lambda p: p.staged_seq)
    missing = [i for i in ids if i not in held and not any(h.startswith(i) for h in held)]
    if missing:
        raise NotFoundError(f"no pending write {', '.join(map(repr, missing))} (see "
                            "`memoir pending`)")
    # A unique prefix of an id will do (ambiguous ones are listed).
    full = [resolve(i, held, "pending write") for i in ids]
    return sorted((held[i] for i in dict.fromkeys(full)), key=lambda p: p.staged_seq)


def approve(engine: Home, ids: Sequence[str] | None = None, *, actor: str = "user",
            run: str | None = None) -> list[Approval]:
    """Approve the pending writes ``ids`` (None: all), replaying each in the order they
    were proposed; returns what each replay did."""
    chosen = _chosen(engine.state, ids)
    by = Caller(actor=actor, run=run or short_id("approve-"), run_kind="approval")
    done: list[Approval] = []
    for write in chosen:
        if write.subsystem == "memory":
            result, _outcome = memory_call(engine, dict(write.args), by=by, approving=write)
        else:
            result = skill_manage_call(engine, dict(write.args), by=by, approving=write)
        done.append(Approval(write.id, bool(result.get("success")), result))
    return done


def reject(engine: Home, ids: Sequence[str] | None = None, *, actor: str = "user",
           reason: str = "", run: str | None = None) -> list[str]:
    """Reject the pending writes ``ids`` (None: all) in one run; returns their ids."""
    run_id = run or short_id("reject-")

    def decide(state: State) -> Decision[list[str]]:
        chosen = _chosen(state, ids)
        if not chosen:
            return Decision(events=[], result=[])
        events: list[Payload] = [
            PendingRejected(pending_id=w.id, proposed_by=w.actor, reason=reason)
            for w in chosen]
        return Decision(events=events, result=[w.id for w in chosen],
                        summary=f"rejected {len(chosen)} pending write(s)")

    _events, rejected = engine.commit(decide, by=Caller(actor=actor, run=run_id,
                                                        run_kind="approval"))
    return rejected


def show(engine: Home, pending_id: str) -> dict[str, Any]:
    """A pending write in full: what was proposed, by whom, and what approving it now
    would change (a diff for a skill, the entries for memory)."""
    state = engine.state
    [write] = _chosen(state, [pending_id])
    info: dict[str, Any] = {
        "id": write.id, "subsystem": write.subsystem, "action": write.action,
        "summary": write.summary, "origin": write.origin, "proposed_by": write.actor,
        "session": write.session, "staged_seq": write.staged_seq,
        "staged_at": write.staged_at, "args": write.args,
    }
    if write.subsystem == "memory":
        outcome = decide_memory(state.memory, write.args)
        info["would"] = _memory_changes(outcome.events) if outcome.success else \
            {"error": outcome.result.get("error")}
    else:
        decided = decide_manage(state, write.args, actor="user")
        if not decided.success:
            info["would"] = {"error": decided.result.get("error")}
        else:
            info["diff"] = skill_diff(state, write.args, _written(decided.events))
    return info


def _memory_changes(events: Sequence[Payload]) -> dict[str, list[str]]:
    changes: dict[str, list[str]] = {"add": [], "replace": [], "remove": []}
    for event in events:
        if isinstance(event, EntryAdded):
            changes["add"].append(event.text)
        elif isinstance(event, EntryReplaced):
            changes["replace"].append(f"{event.previous} -> {event.text}")
        elif isinstance(event, EntryRemoved):
            changes["remove"].append(event.previous)
    return {k: v for k, v in changes.items() if v}


def _written(events: Sequence[Payload]) -> dict[str, str]:
    after: dict[str, str] = {}
    for event in events:
        if isinstance(event, SkillCreated):
            after[SKILL_FILE] = event.content
            after.update(event.files)
        elif isinstance(event, SkillContentSet):
            after[SKILL_FILE] = event.content
        elif isinstance(event, SkillPatched | SkillFileWritten):
            after[event.file] = event.content
    return after


def check_ids(ids: Sequence[str], everything: bool) -> Sequence[str] | None:
    """The ids a command acts on: the given ones, or None for ``--all``."""
    if everything and ids:
        raise ValidationError("give pending ids or --all, not both")
    if not everything and not ids:
        raise ValidationError("give at least one pending id (see `memoir pending`), or --all")
    return None if everything else ids
