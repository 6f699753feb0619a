"""Consolidation plans in Hermes's structured form, and their validation.

A plan is what Hermes asks its curator model to write after its summary::

    consolidations:
      - {from: pdf-extract, into: pdf, reason: same tool, one umbrella}
    prunings:
      - {name: old-thing, reason: superseded}

memoir reads it from a YAML file, from the first fenced ```yaml block of a markdown
file, from the built-in planner (:mod:`memoir.curator.planner`), or later from a model.
``umbrellas: [{name, description}]`` (a memoir extension) names new umbrella skills the
plan creates; every ``into`` must be an existing skill or one of these.

Validation applies the hard rules item by item (:func:`validate_plan`): a refused item
is reported (and journaled as ``skill.write_rejected``); the rest goes ahead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import msgspec
import yaml

from memoir import lazyre
from memoir.curator.rules import NAME_MAX, NAME_RE, change_refusal
from memoir.errors import ValidationError
from memoir.fs.outside import read_text
from memoir.projections.skills import SkillRecord
from memoir.threats import first_threat_id

__all__ = [
    "Consolidation",
    "Plan",
    "Pruning",
    "Refusal",
    "Umbrella",
    "load_plan",
    "parse_plan",
    "plan_from_data",
    "validate_plan",
]

_FENCE = lazyre.compile(r"```ya?ml[ \t]*\n(.*?)\n[ \t]*```", re.DOTALL | re.IGNORECASE)
_KEYS = {"consolidations", "prunings", "umbrellas"}


class Consolidation(msgspec.Struct, frozen=True, kw_only=True):
    """Skill ``source`` is absorbed into umbrella ``into`` (Hermes's ``from``)."""

    source: str
    into: str
    reason: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"from": self.source, "into": self.into, "reason": self.reason}


class Pruning(msgspec.Struct, frozen=True, kw_only=True):
    """Skill ``name`` is archived without an umbrella."""

    name: str
    reason: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "reason": self.reason}


class Umbrella(msgspec.Struct, frozen=True, kw_only=True):
    """A new umbrella skill the plan creates for its consolidations."""

    name: str
    description: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "description": self.description}


class Plan(msgspec.Struct, frozen=True, kw_only=True):
    """A consolidation plan and where it came from (``plan-file``, ``memoir-rules`` …)."""

    consolidations: tuple[Consolidation, ...] = ()
    prunings: tuple[Pruning, ...] = ()
    umbrellas: tuple[Umbrella, ...] = ()
    source: str = "plan-file"

    @property
    def empty(self) -> bool:
        return not (self.consolidations or self.prunings)


class Refusal(msgspec.Struct, frozen=True, kw_only=True):
    """A plan item that was not applied, and why."""

    kind: Literal["consolidation", "pruning", "umbrella"]
    name: str
    reason: str
    item: dict[str, str] = {}

    @property
    def action(self) -> str:
        return {"consolidation": "consolidate", "pruning": "prune", "umbrella": "create"}[
            self.kind]


# A plan names skills and reasons; a plan file larger than this is not one.
_PLAN_BYTES = 4 << 20


def load_plan(path: str | Path, *, source: str = "plan-file") -> tuple[Plan, list[Refusal]]:
    """Read a plan from a YAML file or a markdown file holding a fenced yaml block."""
    p = Path(path)
    text = read_text(p, limit=_PLAN_BYTES, what="plan", encoding="utf-8-sig")
    try:
        return parse_plan(text, source=source)
    except ValidationError as exc:
        raise ValidationError(f"plan {p}: {exc}") from None


def parse_plan(text: str, *, source: str = "plan-file") -> tuple[Plan, list[Refusal]]:
    """Parse plan text: the first fenced yaml block if there is one, else the whole text."""
    match = _FENCE.search(text)
    body = match.group(1) if match else text
    try:
        data = yaml.safe_load(body)
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0] if str(exc) else "syntax error"
        raise ValidationError(f"not valid YAML ({first})") from None
    return plan_from_data(data, source=source)


def plan_from_data(data: Any, *, source: str = "plan-file") -> tuple[Plan, list[Refusal]]:
    """Build a plan from parsed YAML; malformed items become refusals, not errors."""
    if data is None:
        return Plan(source=source), []
    if not isinstance(data, Mapping):
        raise ValidationError("a plan is a mapping with 'consolidations' and 'prunings' lists")
    unknown = sorted(str(k) for k in data if k not in _KEYS)
    if unknown:
        raise ValidationError(
            f"unknown key(s) {', '.join(unknown)}; a plan has consolidations, prunings "
            "and (optionally) umbrellas")
    refusals: list[Refusal] = []
    consolidations = []
    for item in _items(data, "consolidations"):
        fields = _fields(item, ("from", "into", "reason"))
        if fields is None or not fields["from"] or not fields["into"]:
            refusals.append(_malformed("consolidation", item, "needs 'from' and 'into' names"))
            continue
        consolidations.append(Consolidation(source=fields["from"], into=fields["into"],
                                            reason=fields["reason"]))
    prunings = []
    for item in _items(data, "prunings"):
        fields = _fields(item, ("name", "reason"))
        if fields is None or not fields["name"]:
            refusals.append(_malformed("pruning", item, "needs a 'name'"))
            continue
        prunings.append(Pruning(name=fields["name"], reason=fields["reason"]))
    umbrellas = []
    for item in _items(data, "umbrellas"):
        fields = _fields(item, ("name", "description"))
        if fields is None or not fields["name"]:
            refusals.append(_malformed("umbrella", item, "needs a 'name'"))
            continue
        umbrellas.append(Umbrella(name=fields["name"], description=fields["description"]))
    plan = Plan(consolidations=tuple(consolidations), prunings=tuple(prunings),
                umbrellas=tuple(umbrellas), source=source)
    return plan, refusals


def _items(data: Mapping[Any, Any], key: str) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValidationError(f"'{key}' must be a list (write [] for none)")
    return value


def _fields(item: Any, keys: Iterable[str]) -> dict[str, str] | None:
    if not isinstance(item, Mapping):
        return None
    out = {}
    for key in keys:
        value = item.get(key)
        if value is None:
            value = ""
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            return None
        out[key] = str(value).strip()
    return out


def _malformed(kind: Literal["consolidation", "pruning", "umbrella"], item: Any,
               why: str) -> Refusal:
    name = ""
    if isinstance(item, Mapping):
        raw = item.get("from" if kind == "consolidation" else "name")
        name = raw.strip() if isinstance(raw, str) else ""
    shown = repr(item)
    if len(shown) > 200:
        shown = shown[:197] + "..."
    return Refusal(kind=kind, name=name, reason=f"malformed {kind} {shown}: {why}")


def validate_plan(
    skills: Mapping[str, SkillRecord],
    plan: Plan,
    *,
    archived: Iterable[str] = (),
    state: Any = None,
    actor: str = "curator",
) -> tuple[Plan, list[Refusal]]:
    """The part of ``plan`` that obeys the hard rules, and a refusal for every other item.

    ``archived`` names skills this pass already archived (the lifecycle runs first).
    Items are taken in order, consolidations before prunings; an item that clashes
    with one accepted earlier (a skill archived twice, an umbrella that is itself
    absorbed) is refused, so every archived skill appears in exactly one list.
    """
    refusals: list[Refusal] = []
    gone = set(archived)
    claimed: set[str] = set()  # archived by an accepted item
    umbrellas_used: set[str] = set()  # the `into` of an accepted consolidation

    new_umbrellas: dict[str, Umbrella] = {}
    for u in plan.umbrellas:
        why = _umbrella_refusal(skills, u, new_umbrellas)
        if why:
            refusals.append(Refusal(kind="umbrella", name=u.name, reason=why,
                                    item=u.as_dict()))
        else:
            new_umbrellas[u.name] = u

    accepted_c: list[Consolidation] = []
    for c in plan.consolidations:
        why = None
        if c.source == c.into:
            why = f"cannot consolidate {c.source!r} into itself"
        elif c.source in gone:
            why = f"skill {c.source!r} was archived earlier in this pass"
        elif c.source in claimed:
            why = f"skill {c.source!r} is archived by another item of this plan"
        elif c.source in umbrellas_used or c.source in new_umbrellas:
            why = f"skill {c.source!r} is the umbrella of another consolidation"
        elif c.into in gone or c.into in claimed:
            why = f"umbrella {c.into!r} is archived by this pass"
        else:
            why = change_refusal(skills, c.source, "archive", state=state, actor=actor)
            if why is None and c.into not in new_umbrellas:
                if c.into not in skills:
                    why = (f"umbrella {c.into!r} does not exist; list it under 'umbrellas' "
                           "to create it")
                else:
                    why = change_refusal(skills, c.into, "edit", state=state, actor=actor)
                    if why is not None:
                        why = f"cannot merge into umbrella {c.into!r}: {why}"
        if why:
            refusals.append(Refusal(kind="consolidation", name=c.source, reason=why,
                                    item=c.as_dict()))
            continue
        accepted_c.append(c)
        claimed.add(c.source)
        umbrellas_used.add(c.into)

    accepted_p: list[Pruning] = []
    for p in plan.prunings:
        why = None
        if p.name in gone:
            why = f"skill {p.name!r} was archived earlier in this pass"
        elif p.name in claimed:
            why = f"skill {p.name!r} is archived by another item of this plan"
        elif p.name in umbrellas_used or p.name in new_umbrellas:
            why = f"skill {p.name!r} is the umbrella of a consolidation"
        else:
            why = change_refusal(skills, p.name, "archive", state=state, actor=actor)
        if why:
            refusals.append(Refusal(kind="pruning", name=p.name, reason=why, item=p.as_dict()))
            continue
        accepted_p.append(p)
        claimed.add(p.name)

    kept_umbrellas = tuple(u for n, u in new_umbrellas.items() if n in umbrellas_used)
    for name, u in new_umbrellas.items():
        if name not in umbrellas_used:
            refusals.append(Refusal(kind="umbrella", name=name, item=u.as_dict(),
                                    reason=f"no accepted consolidation goes into {name!r}"))
    accepted = Plan(consolidations=tuple(accepted_c), prunings=tuple(accepted_p),
                    umbrellas=kept_umbrellas, source=plan.source)
    return accepted, refusals


def _umbrella_refusal(skills: Mapping[str, SkillRecord], u: Umbrella,
                      seen: Mapping[str, Umbrella]) -> str | None:
    if not NAME_RE.match(u.name) or len(u.name) > NAME_MAX:
        return (f"invalid skill name {u.name!r} (lowercase letters, digits, '.', '_', '-'; "
                f"at most {NAME_MAX})")
    if u.name in seen:
        return f"umbrella {u.name!r} is listed twice"
    if u.name in skills:
        record = skills[u.name]
        where = "in the archive" if record.state == "archived" else "already"
        return f"a skill named {u.name!r} exists {where}; name it in 'into' instead"
    if len(u.description) > 1024:
        return "description longer than 1024 characters"
    threat = first_threat_id(f"{u.name} {u.description}")
    if threat is not None:
        # A plan's text becomes a skill the agent reads: it passes the scan every
        # background write passes.
        return f"its text matches threat pattern {threat!r}"
    return None
