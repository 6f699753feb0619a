"""Automatic lifecycle transitions (spec §4.3): active → stale → archived, and back to
active when a skill is used again.  Pure: the time is an argument, never read here.

Hermes's rules, step by step, for every candidate (see :func:`rules.is_candidate`):

1. pinned → skipped;
2. (cron references are not modelled in memoir);
3. a bundled skill seen for the first time (no activity, never seeded) is *seeded*: its
   clock starts now, and it is skipped this time;
4. ``anchor`` = last activity (use, view or patch), else the creation (or seeding) time,
   else now;
5. a never-used skill (``use_count == 0``) younger than the stale cutoff is left alone,
   or reactivated if it was stale;
6. ``anchor ≤ now − archive_after_days`` → archived;
7. else ``anchor ≤ now − stale_after_days`` and active → stale;
8. else ``anchor > now − stale_after_days`` and stale → active.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Literal

import msgspec

from memoir.clock import parse_ts
from memoir.curator.rules import is_candidate
from memoir.events.skills import SkillArchived, SkillStateChanged
from memoir.events.types import Payload
from memoir.projections.skills import SkillRecord

__all__ = [
    "LifecycleOutcome",
    "Transition",
    "automatic_transitions",
    "candidates",
    "transition_events",
]

Kind = Literal["marked_stale", "archived", "reactivated"]


class Transition(msgspec.Struct, frozen=True, kw_only=True):
    """One automatic change of a skill's lifecycle state."""

    name: str
    kind: Kind
    from_state: str
    to_state: str
    idle_days: int


class LifecycleOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What a lifecycle pass decided: the transitions, Hermes's counters (in Hermes's
    key order) and the bundled skills it seeded."""

    transitions: list[Transition]
    counts: dict[str, int]
    seeded: list[str]


def _ts(text: str | None) -> dt.datetime | None:
    if not text:
        return None
    try:
        return parse_ts(text)
    except ValueError:
        return None


def candidates(skills: Mapping[str, SkillRecord], *, prune_builtins: bool) -> list[str]:
    """The names of the skills the curator manages, sorted."""
    return sorted(n for n, r in skills.items() if is_candidate(r, prune_builtins=prune_builtins))


def automatic_transitions(
    skills: Mapping[str, SkillRecord],
    now: dt.datetime,
    *,
    stale_after_days: int = 30,
    archive_after_days: int = 90,
    prune_builtins: bool = True,
    seeded: Mapping[str, str] = {},
) -> LifecycleOutcome:
    """Decide the transitions due at ``now``; ``seeded`` maps bundled skills to the time
    a pass first saw them."""
    seeded = seeded or {}
    stale_cutoff = now - dt.timedelta(days=stale_after_days)
    archive_cutoff = now - dt.timedelta(days=archive_after_days)
    counts = {"marked_stale": 0, "archived": 0, "reactivated": 0, "checked": 0, "seeded": 0}
    transitions: list[Transition] = []
    newly_seeded: list[str] = []
    for name in candidates(skills, prune_builtins=prune_builtins):
        record = skills[name]
        counts["checked"] += 1
        if record.pinned:
            continue
        last_activity = _ts(record.last_activity_at)
        if record.provenance == "bundled":
            # Hermes keeps no record for a built-in until something touches it, and
            # starts its clock the first time the curator sees it.
            if last_activity is None and name not in seeded:
                counts["seeded"] += 1
                newly_seeded.append(name)
                continue
            start = _ts(seeded.get(name))
        else:
            start = _ts(record.created_at)
        anchor = last_activity or start or now
        idle_days = max(0, (now - anchor).days)
        state = record.state
        change: tuple[Kind, str] | None = None
        if record.use_count == 0 and anchor > stale_cutoff:
            # A never-used skill may simply not have met its trigger yet: no archive
            # before it is at least stale_after_days old.
            if state == "stale":
                change = ("reactivated", "active")
        elif anchor <= archive_cutoff and state != "archived":
            change = ("archived", "archived")
        elif anchor <= stale_cutoff and state == "active":
            change = ("marked_stale", "stale")
        elif anchor > stale_cutoff and state == "stale":
            change = ("reactivated", "active")
        if change is not None:
            kind, to_state = change
            counts[kind] += 1
            transitions.append(Transition(name=name, kind=kind, from_state=state,
                                          to_state=to_state, idle_days=idle_days))
    return LifecycleOutcome(transitions=transitions, counts=counts, seeded=newly_seeded)


def transition_events(outcome: LifecycleOutcome) -> list[Payload]:
    """The skill events that record ``outcome``'s transitions."""
    events: list[Payload] = []
    for t in outcome.transitions:
        if t.kind == "archived":
            events.append(SkillArchived(
                name=t.name, absorbed_into=None,
                reason=f"stale: no activity for {t.idle_days} days",
                previous_state="stale" if t.from_state == "stale" else "active",
            ))
        elif t.kind == "marked_stale":
            events.append(SkillStateChanged(
                name=t.name, from_state="active", to_state="stale",
                reason=f"no activity for {t.idle_days} days",
            ))
        else:
            events.append(SkillStateChanged(
                name=t.name, from_state="stale", to_state="active",
                reason="active again within the stale window",
            ))
    return events
