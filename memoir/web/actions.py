"""The things a person may do from the web view, each one journaled run whose actor is
``user``: revert a run (a dry run first), pin or unpin a skill, accept or reject a skill
candidate, approve or reject a pending write, and the edits of :mod:`memoir.web.edits`
(memory entries, skills, forgets).  The same functions as the
CLI's commands; the page adds nothing to what they decide."""

from __future__ import annotations

from typing import Any

from memoir.api import Memoir
from memoir.clock import format_ts
from memoir.engine.commit import Caller
from memoir.errors import ValidationError
from memoir.events.present import write_result
from memoir.events.types import Event
from memoir.ids import short_id
from memoir.insights.pipeline import accept_candidate, reject_candidate
from memoir.oversight.approvals import approve, reject
from memoir.oversight.audit import diff_after
from memoir.oversight.revert import RevertConflict, RevertPlan, revert_run
from memoir.skills.tools import change_lifecycle
from memoir.web.edits import EDITS

__all__ = ["act"]

#: The actor of every write made through the page.
PERSON = "user"


def _plan(plan: RevertPlan, dry_run: bool) -> dict[str, Any]:
    return {"dry_run": dry_run, **plan.as_json(),
            **write_result(None if dry_run else plan.run_id, plan.events)}


def _would(home: Memoir, plan: RevertPlan) -> list[dict[str, str]]:
    """The projected files the plan would change, as diffs: its records folded into a
    copy of the state at the head, exactly as they would be once appended."""
    state = home.view()
    now = format_ts(home.clock.now())
    events = [Event(seq=state.seq + i, id=f"preview-{i}", ts=now, type=p.TYPE, v=p.VERSION,
                    actor=PERSON, run=plan.run_id, data=p)
              for i, p in enumerate(plan.payloads, 1)]
    return [{"path": path, "diff": text} for path, text in diff_after(state, events).items()]


def _revert(home: Memoir, body: dict[str, Any]) -> dict[str, Any]:
    target = _text(body, "run")
    dry_run = body.get("dry_run", True)
    if not isinstance(dry_run, bool):
        raise ValidationError("'dry_run' must be true or false")
    try:
        plan = revert_run(home, target, dry_run=dry_run, actor=PERSON)
    except RevertConflict as exc:
        return {"conflict": True, "error": str(exc), **_plan(exc.plan, True)}
    out = _plan(plan, dry_run)
    if dry_run:
        out["files"] = _would(home, plan)
    return out


def _skill(home: Memoir, body: dict[str, Any], pin: bool) -> dict[str, Any]:
    name = _text(body, "name")
    verb = "pin" if pin else "unpin"
    run = short_id("ui-")
    events = change_lifecycle(home, verb, name, by=Caller(
        actor=PERSON, run=run, run_kind="ui", run_summary=f"{verb} skill {name}"))
    return write_result(run, events, name=name, pinned=pin)


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"'{key}' must be a non-empty string")
    return value.strip()


def _ids(body: dict[str, Any]) -> list[str]:
    ids = body.get("ids")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
        raise ValidationError("'ids' must be a non-empty list of pending write ids")
    return ids


def _accept(home: Memoir, body: dict[str, Any]) -> dict[str, Any]:
    name = body.get("name")
    if name is not None and not isinstance(name, str):
        raise ValidationError("'name' must be a string")
    run, skill = accept_candidate(home, _text(body, "signature"), name=name or None)
    return {"run": run, "skill": skill}


def _reject_candidate(home: Memoir, body: dict[str, Any]) -> dict[str, Any]:
    reason = body.get("reason", "")
    if not isinstance(reason, str):
        raise ValidationError("'reason' must be a string")
    return {"run": reject_candidate(home, _text(body, "signature"), reason)}


def _approve(home: Memoir, body: dict[str, Any]) -> dict[str, Any]:
    done = approve(home, _ids(body), actor=PERSON)
    return {"approved": [{"id": a.pending_id, "success": a.success, "result": a.result}
                         for a in done]}


def _reject_pending(home: Memoir, body: dict[str, Any]) -> dict[str, Any]:
    reason = body.get("reason", "")
    if not isinstance(reason, str):
        raise ValidationError("'reason' must be a string")
    return {"rejected": reject(home, _ids(body), actor=PERSON, reason=reason)}


ACTIONS = {
    "revert": _revert,
    "pin": lambda home, body: _skill(home, body, True),
    "unpin": lambda home, body: _skill(home, body, False),
    "candidate/accept": _accept,
    "candidate/reject": _reject_candidate,
    "pending/approve": _approve,
    "pending/reject": _reject_pending,
    **EDITS,
}


def act(home: Memoir, action: str, body: dict[str, Any]) -> dict[str, Any]:
    """Carry out ``action`` (a key of :data:`ACTIONS`) with the request's JSON body."""
    return ACTIONS[action](home, body)
