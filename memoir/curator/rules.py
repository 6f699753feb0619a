"""Which skills the curator may manage, and the hard rules every background change obeys.

The rules are Hermes's (spec §3.5, §4.3, §4.5), checked on the events a pass is about
to append rather than asked of a model:

- never delete: archiving is the most a background actor does;
- never touch a bundled, hub, pinned or protected skill, nor one a person wrote;
- a candidate is a skill the agent owns (``created_by == "agent"``: written by the
  agent or a background actor, or imported from a Hermes home that said so); bundled
  skills are candidates for the lifecycle only with ``prune_builtins``.

The skills package's background guard (``check_background_change``) is honoured as
well, so the curator never gets past a guard the reviewers obey.
"""

from __future__ import annotations

from collections.abc import Mapping

from memoir.names import MAX_NAME_CHARS, NAME_RE
from memoir.projections.skills import SkillRecord
from memoir.projections.state import State
from memoir.skills.guards import check_background_change

__all__ = [
    "BACKGROUND_ACTORS",
    "NAME_RE",
    "PROTECTED_BUILTINS",
    "change_refusal",
    "is_candidate",
    "is_protected",
    "not_candidate",
]

#: Actors that act without a person asking: their changes obey the hard rules.
BACKGROUND_ACTORS: frozenset[str] = frozenset({"curator", "reviewer.skills", "reviewer.memory"})
#: Built-ins that back load-bearing features; never archived or consolidated.
PROTECTED_BUILTINS: frozenset[str] = frozenset({"plan"})
#: Hermes's skill-name rule (64 characters at most).
NAME_MAX = MAX_NAME_CHARS


def is_protected(record: SkillRecord) -> bool:
    return record.protected or record.name in PROTECTED_BUILTINS


def _agent_written(record: SkillRecord) -> bool:
    # ``created_by == "agent"`` is what Hermes's .usage.json calls curator-managed; the
    # skills fold sets it for agent provenance and for imports Hermes marked so.
    return record.created_by == "agent" or (
        record.provenance == "agent" and record.created_by in BACKGROUND_ACTORS)


def is_candidate(record: SkillRecord, *, prune_builtins: bool) -> bool:
    """Whether the lifecycle may move this skill (archived skills are never candidates,
    as Hermes never scans ``.archive/``)."""
    return not_candidate(record, prune_builtins=prune_builtins) is None


def not_candidate(record: SkillRecord, *, prune_builtins: bool) -> str | None:
    """Why the lifecycle may not move this skill, in a word or two (``archived``,
    ``hub``, ``protected``, ``bundled``, ``a person's``); None: it may."""
    if record.state == "archived":
        return "archived"
    if record.provenance == "hub":
        return "hub"
    if is_protected(record):
        return "protected"
    if record.provenance == "bundled":
        return None if prune_builtins else "bundled"
    return None if _agent_written(record) else "a person's"


def change_refusal(skills: Mapping[str, SkillRecord], name: str, action: str,
                   *, state: State | None = None, actor: str = "curator") -> str | None:
    """Why a background ``action`` (``archive``, ``absorb``, ``edit``) on skill ``name``
    is refused, or None when it is allowed.  Plans never touch bundled skills, even
    with ``prune_builtins``: only the lifecycle's inactivity rule archives those."""
    record = skills.get(name)
    if record is None:
        return f"no skill named {name!r}"
    if record.state == "archived":
        return f"skill {name!r} is already archived"
    if record.pinned:
        return f"skill {name!r} is pinned; background changes leave it alone"
    if is_protected(record):
        return f"skill {name!r} is a protected built-in; it is never archived or merged"
    if record.provenance == "hub":
        return f"skill {name!r} is installed from the hub; only its upstream changes it"
    if record.provenance == "bundled":
        return f"skill {name!r} is bundled; a plan never touches bundled skills"
    if not _agent_written(record):
        who = f"was written by a person (provenance {record.provenance})"
        if record.provenance == "agent":  # see docs/skills.md, "Who owns a skill"
            who = ("was written by the agent in a conversation, so it is the person's who "
                   f"asked for it (owner {record.created_by}, as in Hermes; "
                   "skills.agent_owns_conversation_skills: true gives the skills written "
                   "from then on to the agent)")
        return f"skill {name!r} {who}; background changes leave it alone"
    if state is not None:
        return check_background_change(state, actor, name, action)
    return None
