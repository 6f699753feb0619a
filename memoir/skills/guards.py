"""Who may change which skill: provenance and background-actor guards, and the pure
builders of lifecycle events (archive, restore, pin, unpin, state, delete).

The rules hold when events are decided, not because a prompt asks nicely:

- A *background* actor (``reviewer.*`` or ``curator``, see :func:`is_background`)
  may change only skills the agent owns (``created_by == "agent"``) that are not
  pinned and not protected; bundled, hub and user-owned skills are off limits.
- Nothing is ever deleted by a background actor: its ``delete`` becomes an archive
  that names the umbrella it was absorbed into (an existing, different skill), and
  its prune is an archive with a reason.
- A pinned skill refuses deletion and archiving from every actor.
- A person (actor ``user``) or the foreground agent may delete; the content stays in
  the journal (``skill.deleted`` repeats the last version).

The curator (and anything else) reuses the same rules through these functions::

    check_background_change(state: State, actor: str, name: str, action: str) -> str | None
        # None when allowed, else the refusal reason; ``action`` is a word for the
        # message: "edit", "patch", "delete", "write_file", "remove_file", "archive",
        # "restore", "state", "pin", "unpin".
    background_refusal(state, actor, name, action) -> Refusal | None   # with the guard id
    archive_events(state, name, *, actor, absorbed_into=None, reason="") -> list[Payload]
    restore_events(state, name, *, actor, reason="") -> list[Payload]
    state_change_events(state, name, to_state, *, actor, reason="") -> list[Payload]
    pin_events(state, name, *, actor) -> list[Payload]
    unpin_events(state, name, *, actor) -> list[Payload]
    delete_events(state, name, *, actor, absorbed_into=None) -> list[Payload]
    check_absorbed_into(state, name, absorbed_into) -> str | None   # umbrella valid?

The builders raise :class:`GuardRefusal` (a ``RejectedError``) when a rule refuses
— its ``event`` is the ``skill.write_rejected`` to journal if the refusal is worth
auditing — :class:`~memoir.errors.NotFoundError` for an unknown skill and
:class:`~memoir.errors.ValidationError` for a malformed request.  They return ``[]``
when there is nothing to do (pinning a pinned skill).
"""

from __future__ import annotations

from dataclasses import dataclass

from memoir.engine.caller import is_background
from memoir.errors import NotFoundError, RejectedError, ValidationError
from memoir.events.skills import (
    SkillArchived,
    SkillDeleted,
    SkillPinned,
    SkillRestored,
    SkillStateChanged,
    SkillUnpinned,
    SkillWriteRejected,
)
from memoir.events.types import Payload
from memoir.projections.skills import SkillRecord, skill_dir
from memoir.projections.state import State

__all__ = [
    "GuardRefusal",
    "Refusal",
    "archive_events",
    "archive_refusal",
    "background_refusal",
    "check_absorbed_into",
    "check_background_change",
    "delete_events",
    "is_background",
    "pin_events",
    "pinned_refusal",
    "restore_events",
    "state_change_events",
    "unpin_events",
]


@dataclass(frozen=True)
class Refusal:
    """Why a guard refused a change: a stable ``guard`` id and a message for the actor."""

    guard: str
    reason: str

    def event(self, name: str, action: str) -> SkillWriteRejected:
        return SkillWriteRejected(name=name, action=action, reason=self.reason, guard=self.guard)


class GuardRefusal(RejectedError):
    """A change a guard refused; ``event`` is its ``skill.write_rejected`` record."""

    def __init__(self, name: str, action: str, refusal: Refusal) -> None:
        super().__init__(refusal.reason)
        self.name = name
        self.action = action
        self.refusal = refusal

    @property
    def event(self) -> SkillWriteRejected:
        return self.refusal.event(self.name, self.action)


def _record_refusal(record: SkillRecord, action: str) -> Refusal | None:
    # Hermes's order and wording (spec §3.5), with memoir's command for unpinning.
    name = record.name
    refused = f"Refusing background curator {action} for"
    if record.pinned:
        return Refusal("pinned", (
            f"{refused} pinned skill '{name}': pinned skills are off-limits to autonomous "
            f"maintenance. Ask the user to run `memoir skills unpin {name}` if they want it "
            "changed."
        ))
    if record.provenance == "external":
        return Refusal("external", (
            f"{refused} skill '{name}': the skill lives in skills.external_dirs, which are "
            "externally owned and read-only to autonomous curation."
        ))
    if record.protected:
        return Refusal("protected", f"{refused} protected built-in skill '{name}'.")
    if record.provenance == "hub":
        return Refusal("hub", f"{refused} hub-installed skill '{name}'.")
    if record.provenance == "bundled":
        return Refusal("bundled", f"{refused} bundled skill '{name}'.")
    if record.created_by != "agent":
        return Refusal("owner", (
            f"{refused} skill '{name}': the skill records show it is not agent-created "
            "(created_by=None). Manually authored skills are off-limits to autonomous "
            "curation."
        ))
    return None


def background_refusal(state: State, actor: str, name: str, action: str) -> Refusal | None:
    """The guard that refuses ``actor``'s ``action`` on skill ``name``, if any.

    Only background actors are ever refused here; an unknown skill is not refused
    (the caller reports it missing).
    """
    if not is_background(actor):
        return None
    record = state.skills.skills.get(name)
    return _record_refusal(record, action) if record is not None else None


def check_background_change(state: State, actor: str, name: str, action: str) -> str | None:
    """None if ``actor`` may ``action`` skill ``name``, else the refusal reason."""
    refusal = background_refusal(state, actor, name, action)
    return refusal.reason if refusal is not None else None


def _record(state: State, name: str) -> SkillRecord:
    record = state.skills.skills.get(name)
    if record is None:
        raise NotFoundError(f"skill '{name}' not found (see `memoir skills list --all`)")
    return record


def _guard(state: State, actor: str, name: str, action: str) -> None:
    refusal = background_refusal(state, actor, name, action)
    if refusal is not None:
        raise GuardRefusal(name, action, refusal)


def pinned_refusal(record: SkillRecord, action: str) -> GuardRefusal:
    if action == "delete":
        # Hermes's wording for skill_manage's pinned guard.
        return GuardRefusal(record.name, action, Refusal("pinned", (
            f"Skill '{record.name}' is pinned and cannot be deleted by skill_manage. Ask "
            f"the user to run `memoir skills unpin {record.name}` if they want to delete "
            "it. Patches and edits are allowed on pinned skills; only deletion is blocked."
        )))
    return GuardRefusal(record.name, action, Refusal("pinned", (
        f"Skill '{record.name}' is pinned and cannot be {action}d. Run "
        f"`memoir skills unpin {record.name}` first if it really should go."
    )))


def check_absorbed_into(state: State, name: str, absorbed_into: str) -> str | None:
    """Whether ``absorbed_into`` can be the umbrella that took over skill ``name``."""
    if absorbed_into == name:
        return f"absorbed_into='{absorbed_into}' cannot equal the skill being deleted."
    if state.skills.live(absorbed_into) is None:
        return (
            f"absorbed_into='{absorbed_into}' does not exist. Create or patch the umbrella "
            "skill first, then retry the delete."
        )
    return None


def archive_refusal(record: SkillRecord, *, prune_builtins: bool = True) -> Refusal | None:
    """Why no one may archive ``record`` (Hermes's eligibility, spec §4.3): a protected
    built-in, a hub install, or a bundled skill while ``curator.prune_builtins`` is off."""
    name = record.name
    if record.protected:
        return Refusal("protected", (
            f"skill '{name}' is a protected built-in; it backs load-bearing UX and is never "
            "archived or consolidated"))
    if record.provenance == "hub":
        return Refusal("hub", f"skill '{name}' is hub-installed; never archive")
    if record.provenance == "external":
        return Refusal("external", (
            f"skill '{name}' lives in skills.external_dirs; external skills are read-only "
            "to the curator"))
    if record.provenance == "bundled" and not prune_builtins:
        return Refusal("bundled", (
            f"skill '{name}' is a bundled built-in; enable curator.prune_builtins to allow "
            "pruning it"))
    return None


def archive_events(
    state: State, name: str, *, actor: str, absorbed_into: str | None = None, reason: str = "",
    prune_builtins: bool = True,
) -> list[Payload]:
    """Archive skill ``name`` (moved to ``skills/.archive/[category/]name``).

    Every archive says why: ``absorbed_into`` (an existing, different skill whose
    umbrella took the content over) or a prune ``reason``, or both.  Protected, hub
    and (unless ``prune_builtins``) bundled skills are never archived, by anyone.
    """
    record = _record(state, name)
    if record.archived:
        raise ValidationError(f"skill '{name}' is already archived (at {skill_dir(record)})")
    _guard(state, actor, name, "archive")
    refusal = archive_refusal(record, prune_builtins=prune_builtins)
    if refusal is not None:
        raise GuardRefusal(name, "archive", refusal)
    if record.pinned:
        raise pinned_refusal(record, "archive")
    umbrella = (absorbed_into or "").strip() or None
    if umbrella is not None:
        problem = check_absorbed_into(state, name, umbrella)
        if problem:
            raise ValidationError(problem)
    why = reason.strip()
    if not why:
        if umbrella is None:
            raise ValidationError(
                f"archiving '{name}' needs a reason (a prune) or absorbed_into (a consolidation)"
            )
        why = f"absorbed into '{umbrella}'"
    previous = record.state if record.state in ("active", "stale") else "active"
    return [SkillArchived(name=name, absorbed_into=umbrella, reason=why,
                          previous_state=previous)]  # type: ignore[arg-type]


def restore_events(state: State, name: str, *, actor: str, reason: str = "",
                   prune_builtins: bool = True) -> list[Payload]:
    """Bring skill ``name`` back from the archive to its original category path.

    As in Hermes, when the name is free but only copies archived under a suffixed name
    (``<name>-<YYYYMMDDHHMMSS>``) remain, the newest comes back under ``name``; a hub
    skill, or a bundled one while ``prune_builtins`` is off, is not restored over
    its upstream."""
    skills = state.skills.skills
    record = skills.get(name)
    as_name = None
    if record is not None and not record.archived:
        # A live skill took the name: Hermes names an upstream one it would shadow first.
        _refuse_shadowing(record, name, prune_builtins)
    if record is None or not record.archived:
        copies = sorted(
            (key for key, r in skills.items() if r.archived and _suffixed_copy(key, name)),
            reverse=True)
        if record is not None:
            raise ValidationError(
                f"skill '{name}' is not archived (it is {record.state})" if not copies
                else f"destination already exists: {skill_dir(record)}")
        if not copies:
            raise NotFoundError(f"skill '{name}' not found in archive")
        record, as_name = skills[copies[0]], name
    _guard(state, actor, record.name, "restore")
    _refuse_shadowing(record, name, prune_builtins)
    return [SkillRestored(name=record.name, reason=reason.strip(), as_name=as_name)]


def _refuse_shadowing(record: SkillRecord, name: str, prune_builtins: bool) -> None:
    """A hub skill, or a bundled one while ``prune_builtins`` is off, is upstream's: a
    restore under its name would shadow it (Hermes's words)."""
    if record.provenance == "hub":
        raise GuardRefusal(record.name, "restore", Refusal("hub", (
            f"skill '{name}' is now hub-installed; restore would shadow the upstream "
            "version")))
    if record.provenance == "bundled" and not prune_builtins:
        raise GuardRefusal(record.name, "restore", Refusal("bundled", (
            f"skill '{name}' is now bundled; restore would shadow the upstream version")))


def _suffixed_copy(key: str, name: str) -> bool:
    """Whether ``key`` is ``name`` archived under Hermes's timestamp suffix."""
    rest = key[len(name) + 1:] if key.startswith(name + "-") else ""
    return len(rest) >= 14 and rest[:14].isdigit() and (len(rest) == 14 or rest[14] == "-")


def state_change_events(
    state: State, name: str, to_state: str, *, actor: str, reason: str = "",
) -> list[Payload]:
    """Move skill ``name`` between ``active`` and ``stale`` (archiving has its own event)."""
    if to_state not in ("active", "stale"):
        raise ValidationError(
            f"state must be 'active' or 'stale', not {to_state!r} (use archive/restore)"
        )
    record = _record(state, name)
    if record.archived:
        raise ValidationError(f"skill '{name}' is archived; restore it instead")
    if record.state == to_state:
        return []
    _guard(state, actor, name, "state")
    return [SkillStateChanged(name=name, from_state=record.state,  # type: ignore[arg-type]
                              to_state=to_state, reason=reason.strip())]  # type: ignore[arg-type]


def _check_pinnable(state: State, name: str, actor: str, action: str) -> SkillRecord:
    record = _record(state, name)
    if is_background(actor):
        raise GuardRefusal(name, action, Refusal("person_only", (
            f"Only a person or the foreground agent may {action} a skill; '{actor}' may not."
        )))
    if record.provenance in ("bundled", "hub"):
        # Hermes's words (`hermes curator pin|unpin`), then memoir's.
        raise ValidationError(
            f"'{name}' is bundled or hub-installed — cannot pin (only agent-created skills "
            "participate in curation)" if action == "pin" else
            f"'{name}' is bundled or hub-installed — there's nothing to unpin (curator "
            "only tracks agent-created skills)"
        )
    return record


def pin_events(state: State, name: str, *, actor: str) -> list[Payload]:
    """Pin skill ``name``: no background actor may change it, and nobody may delete
    or archive it until it is unpinned."""
    record = _check_pinnable(state, name, actor, "pin")
    return [] if record.pinned else [SkillPinned(name=name)]


def unpin_events(state: State, name: str, *, actor: str) -> list[Payload]:
    record = _check_pinnable(state, name, actor, "unpin")
    return [SkillUnpinned(name=name)] if record.pinned else []


def delete_events(
    state: State, name: str, *, actor: str, absorbed_into: str | None = None,
) -> list[Payload]:
    """Delete skill ``name`` (live or archived).  Refused for background actors (they
    archive) and for pinned skills.  The event repeats the last content."""
    record = _record(state, name)
    if is_background(actor):
        raise GuardRefusal(name, "delete", Refusal("never_delete", (
            f"Background actors never delete skills; archive '{name}' with absorbed_into "
            "or a prune reason instead."
        )))
    if record.pinned:
        raise pinned_refusal(record, "delete")
    umbrella = (absorbed_into or "").strip() or None
    if umbrella is not None:
        problem = check_absorbed_into(state, name, umbrella)
        if problem:
            raise ValidationError(problem)
    return [SkillDeleted(
        name=name, absorbed_into=umbrella, category=record.category, content=record.content,
        files=dict(record.files), provenance=record.provenance,  # type: ignore[arg-type]
        created_by=record.created_by, root=record.root,
    )]
