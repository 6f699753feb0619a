"""What a person writes from the web view: memory entries, skills, forgets.

Each is one run of actor ``user`` and kind ``ui``, through the same functions the CLI
and the tools use — the memory tool's path (limits, threat scan, hand-edit drift), the
skill rules of ``memoir skills create`` and ``skill_manage``'s edit, the lifecycle of
``memoir skills archive``, the forget plan of ``memoir forget`` — so the page can do
nothing the CLI would refuse, and a refusal says what the CLI says.  A forget is
previewed first (nothing changed) and carried out only when the request confirms the
very plan it was shown.
"""

from __future__ import annotations

import hashlib
from typing import Any

from memoir.api import Memoir
from memoir.engine.commit import Caller, Decision
from memoir.errors import NotFoundError, RejectedError, ValidationError
from memoir.events.present import write_result
from memoir.events.types import Event
from memoir.ids import short_id
from memoir.memory.commands import memory_call
from memoir.oversight.forget import ForgetPlan, forget, plan_forget
from memoir.projections.memory import TARGETS
from memoir.skills.manage import person_create_events, person_skill_problem
from memoir.skills.tools import change_lifecycle, skill_manage_call
from memoir.web.pages import usage_of

__all__ = ["EDITS"]

#: The actor of every write made through the page.
PERSON = "user"
#: What a forget may be asked for from the page.
FORGETTABLE = ("entry", "session", "skill")


def _caller(summary: str) -> Caller:
    return Caller(actor=PERSON, run=short_id("ui-"), run_kind="ui", run_summary=summary[:200])


def _text(body: dict[str, Any], key: str, *, strip: bool = True) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"'{key}' must be a non-empty string")
    return value.strip() if strip else value


def _target(body: dict[str, Any]) -> str:
    target = body.get("target", "memory")
    if target not in TARGETS:
        raise ValidationError(f"'target' must be one of {', '.join(TARGETS)}")
    return str(target)


def _entry_text(home: Memoir, target: str, entry_id: str) -> str:
    for entry in home.state.memory.target(target).entries:
        if entry.id == entry_id:
            return entry.text
    raise NotFoundError(f"no entry {entry_id!r} in {target}: it was changed or removed "
                        "meanwhile; reload the page")


def _run_events(home: Memoir, run: str | None) -> list[Event]:
    """The records of ``run`` (none when nothing landed: no run was started)."""
    info = home.state.runs.get(run) if run else None
    if info is None:
        return []
    return list(home.events(after=info.first_seq - 1, until=info.last_seq))


def usage(home: Memoir, target: str) -> dict[str, int]:
    """How full ``target`` is now (see :func:`memoir.web.pages.usage_of`)."""
    memory = home.state.memory
    return usage_of(memory.target(target).texts(), memory.limits[target])


def _memory(home: Memoir, body: dict[str, Any], action: str) -> dict[str, Any]:
    target = _target(body)
    args: dict[str, Any] = {"action": action, "target": target}
    if action in ("replace", "remove"):
        entry_id = _text(body, "entry")
        args["old_text"] = _entry_text(home, target, entry_id)
        args["entry_id"] = entry_id  # the entry meant, even if its text is in another
    if action in ("add", "replace"):
        args["content"] = _text(body, "content")
    by = _caller(f"{action} a {target} entry from the web view")
    result, _outcome = memory_call(home, args, by=by)
    if not result.get("success"):
        raise RejectedError(str(result.get("error") or "the write was refused"))
    return write_result(by.run, _run_events(home, by.run), target=target,
                        message=result.get("message"), usage=usage(home, target))


def _skill_create(home: Memoir, body: dict[str, Any]) -> dict[str, Any]:
    name = _text(body, "name")
    content = _text(body, "content", strip=False)
    category = body.get("category")
    if category is not None and not isinstance(category, str):
        raise ValidationError("'category' must be a string")
    problem = person_skill_problem(name, category, content)
    if problem:
        raise RejectedError(problem)
    by = _caller(f"create skill {name}")
    events, _ = home.commit(lambda state: Decision(
        events=person_create_events(state, name, category, content)), by=by)
    return write_result(by.run, events, name=name)


def _skill_edit(home: Memoir, body: dict[str, Any]) -> dict[str, Any]:
    name = _text(body, "name")
    by = _caller(f"edit skill {name}")
    result = skill_manage_call(home, {"action": "edit", "name": name,
                                      "content": _text(body, "content", strip=False)}, by=by)
    if not result.get("success"):
        raise RejectedError(str(result.get("error") or "the edit was refused"))
    return write_result(by.run, _run_events(home, by.run), name=name)


def _skill_archive(home: Memoir, body: dict[str, Any]) -> dict[str, Any]:
    name = _text(body, "name")
    reason = body.get("reason") or "archived by the user"
    if not isinstance(reason, str):
        raise ValidationError("'reason' must be a string")
    by = _caller(f"archive skill {name}")
    events = change_lifecycle(home, "archive", name, by=by, reason=reason)
    return write_result(by.run, events, name=name)


def _plan_id(plan: ForgetPlan) -> str:
    """What the person was shown, as a digest: a confirmation must carry it."""
    seen = repr((plan.selector, sorted(plan.records.items()), sorted(plan.bodies)))
    return hashlib.blake2s(seen.encode(), digest_size=8).hexdigest()


def _forget(home: Memoir, body: dict[str, Any]) -> dict[str, Any]:
    selector = body.get("selector")
    if selector not in FORGETTABLE:
        raise ValidationError(f"'selector' must be one of {', '.join(FORGETTABLE)}")
    target = body.get("target")
    if target is not None and target not in TARGETS:
        raise ValidationError(f"'target' must be one of {', '.join(TARGETS)}")
    reason = body.get("reason", "")
    if not isinstance(reason, str):
        raise ValidationError("'reason' must be a string")
    plan = plan_forget(home, str(selector), _text(body, "value"), target=target)
    if plan.empty:
        raise NotFoundError(f"nothing to forget matches the {selector} given")
    shown = {"dry_run": True, "plan": _plan_id(plan),
             "records": [{"seq": s, "type": t} for s, t in sorted(plan.records.items())],
             "bodies": len(plan.bodies),
             "kept": [{"seq": s, "why": w} for s, w in sorted(plan.refused.items())]}
    confirm = body.get("confirm")
    if confirm is None:
        return shown
    if confirm != shown["plan"]:
        raise RejectedError("what would be forgotten changed since the preview (another "
                            "write landed); look at the new preview and confirm it")
    run, record = forget(home, plan, by=PERSON, reason=reason)
    return {**shown, "dry_run": False, "run": run, "files_scrubbed": record.files,
            "head": home.state.seq}


EDITS = {
    "memory/add": lambda home, body: _memory(home, body, "add"),
    "memory/replace": lambda home, body: _memory(home, body, "replace"),
    "memory/remove": lambda home, body: _memory(home, body, "remove"),
    "skill/create": _skill_create,
    "skill/edit": _skill_edit,
    "archive": _skill_archive,
    "forget": _forget,
}
