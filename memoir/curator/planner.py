"""The built-in planner: a deterministic consolidation plan from skill names alone.

Skills whose names share a prefix up to the first ``-``, ``_`` or ``.`` form a cluster
(``pdf-extract``, ``pdf_merge`` → ``pdf``).  A cluster of two or more skills the
curator may change becomes one umbrella: the skill named after the prefix when it
exists and may be changed, else a new umbrella of that name.  The siblings are
absorbed into it.  No model is asked; the same library always gives the same plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memoir import lazyre
from memoir.curator.plans import Consolidation, Plan, Umbrella
from memoir.curator.rules import NAME_MAX, NAME_RE, change_refusal
from memoir.projections.skills import SkillRecord

__all__ = ["SOURCE", "name_prefix", "rules_plan"]

SOURCE = "memoir-rules"
_SEP = lazyre.compile(r"[-_.]")


def name_prefix(name: str) -> str | None:
    """The part of ``name`` before its first ``-``, ``_`` or ``.``; None if there is none."""
    match = _SEP.search(name)
    if match is None or match.start() == 0:
        return None
    return name[: match.start()]


def rules_plan(
    skills: Mapping[str, SkillRecord],
    *,
    archived: frozenset[str] = frozenset(),
    state: Any = None,
) -> Plan:
    """A plan that folds every prefix cluster of changeable skills into its umbrella."""
    clusters: dict[str, list[str]] = {}
    for name in sorted(skills):
        if name in archived or change_refusal(skills, name, "archive", state=state):
            continue
        prefix = name_prefix(name)
        if prefix is not None and prefix != name:
            clusters.setdefault(prefix, []).append(name)
    consolidations: list[Consolidation] = []
    umbrellas: list[Umbrella] = []
    for prefix, members in sorted(clusters.items()):
        if len(members) < 2:
            continue
        if prefix in skills:
            # Merge into the existing namesake only when the curator may change it.
            if prefix in archived or change_refusal(skills, prefix, "edit", state=state):
                continue
        else:
            if not NAME_RE.match(prefix) or len(prefix) > NAME_MAX:
                continue
            listing = ", ".join(members)
            description = f"Umbrella for the {prefix} skills: {listing}"
            if len(description) > 1024:
                description = description[:1021] + "..."
            umbrellas.append(Umbrella(name=prefix, description=description))
        for member in members:
            consolidations.append(Consolidation(
                source=member, into=prefix,
                reason=f"shares the name prefix {prefix!r} with {len(members) - 1} other "
                       f"skill(s); one umbrella instead of {len(members)}",
            ))
    return Plan(consolidations=tuple(consolidations), umbrellas=tuple(umbrellas), source=SOURCE)
