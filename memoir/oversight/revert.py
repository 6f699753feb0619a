"""Reverting a run: compensating events that put back what the run changed.

Any run can be reverted — a curator pass, a review, an import, an adoption of hand
edits (``adopt-…``), a CLI edit (``cli-…``), a revert.  The revert is itself a run
(``run.started`` kind ``revert``, ``run.reverted``, then the compensating events, all
with the revert's run id), so it is audited like anything else and can be reverted in
turn.  History never shrinks.

How it works: every entity the run changed (a memory entry, a skill, the curator's
pause flag) is brought back to the value it had just before the run first touched it.
The values come from folding the journal up to that point, so a run of many events,
or one interleaved with other writers, is undone exactly.

- Memory: an entry the run added is removed; one it removed is put back with its id,
  after the entry that preceded it; one it replaced gets its old text back.
- Skills: content, support files, pin, lifecycle state and archive are restored.  A
  skill the run *created* is deleted for real (``skill.deleted``, by the person who
  asked for the revert — reverting a creation means it should never have existed; the
  deleted event keeps its full content, so reverting the revert creates it again).
  A skill the run deleted is created again from the journal.
- Curator: a pause or resume is flipped back.  The pass's own record (run count, last
  run time, report) stays: the pass did happen, and rewinding the schedule would only
  make the curator redo at once what was just undone.
- Telemetry (views, uses) recorded after the run is never touched.

Conflicts: if events after the run touched an entity the run changed and left it
different from what the run made of it, the revert is refused with the list, unless
told to ``force`` (revert those too, to the value before the run) or ``skip`` them
(revert only the others).  Later changes that cancel out (an edit and its revert) are
no conflict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from memoir.engine.commit import Caller, Decision
from memoir.engine.port import Home
from memoir.errors import ConflictError, NotFoundError, ValidationError
from memoir.events.codec import Forgotten
from memoir.events.curator import CuratorPaused, CuratorResumed
from memoir.events.memory import EntryAdded, EntryRemoved, EntryReplaced
from memoir.events.runs import RunReverted
from memoir.events.skills import (
    SkillArchived,
    SkillContentSet,
    SkillCreated,
    SkillDeleted,
    SkillFileRemoved,
    SkillFileWritten,
    SkillPatched,
    SkillPinned,
    SkillRestored,
    SkillStateChanged,
    SkillUnpinned,
)
from memoir.events.types import Event, Payload
from memoir.ids import short_id
from memoir.projections.screen import screened
from memoir.projections.skills import SkillRecord
from memoir.projections.state import State

__all__ = [
    "Conflict",
    "OnConflict",
    "RevertConflict",
    "RevertPlan",
    "change_keys",
    "last_curator_run",
    "plan_revert",
    "revert_run",
]

OnConflict = Literal["refuse", "force", "skip"]

_SKILL_CHANGES = (SkillCreated, SkillContentSet, SkillPatched, SkillFileWritten,
                  SkillFileRemoved, SkillArchived, SkillRestored, SkillDeleted, SkillPinned,
                  SkillUnpinned, SkillStateChanged)
_MEMORY_CHANGES = (EntryAdded, EntryReplaced, EntryRemoved)
# Event types that change nothing a revert restores: telemetry, refusals, markers,
# sessions, and the curator's own record of its passes (see the module docstring).
_INERT_PREFIXES = ("run.", "session.", "review.", "journal.", "curator.run_", "curator.plan_",
                   "curator.first_run")
# An import's telemetry, sources and curator record describe the Hermes home it came
# from; reverting the import removes what it added, not those records.
_INERT_TYPES = frozenset({"skill.viewed", "skill.used", "memory.limits_set", "skill.usage_set",
                          "skill.sources_imported", "curator.state_imported"})


def change_keys(event: Event) -> tuple[str, ...]:
    """The entities an event changes, at the grain a revert works on."""
    data = event.data
    if isinstance(data, _MEMORY_CHANGES):
        return (f"memory:{data.target}:{data.entry_id}",)
    if isinstance(data, _SKILL_CHANGES):
        return (f"skill:{data.name}",)
    if isinstance(data, CuratorPaused | CuratorResumed):
        return ("curator:paused",)
    return ()


def _inert(event_type: str) -> bool:
    return (event_type in _INERT_TYPES or event_type.endswith("_rejected")
            or event_type.startswith(_INERT_PREFIXES))


class Conflict(msgspec.Struct, frozen=True):
    """An entity the run changed that later events (``seqs``) changed too."""

    entity: str
    seqs: tuple[int, ...]


class RevertConflict(ConflictError):
    """A revert refused because later events touched what the run changed."""

    def __init__(self, plan: RevertPlan, head: int) -> None:
        shown = ", ".join(f"{c.entity} (seq {', '.join(map(str, c.seqs[:3]))})"
                          for c in plan.conflicts[:5])
        more = f" and {len(plan.conflicts) - 5} more" if len(plan.conflicts) > 5 else ""
        super().__init__(
            f"run {plan.target}: later events changed {len(plan.conflicts)} of the same "
            f"entities: {shown}{more}; use --force to revert them anyway or "
            "--skip-conflicts to leave them",
            head=head, conflicting=tuple(sorted({s for c in plan.conflicts for s in c.seqs})),
        )
        self.plan = plan


@dataclass
class RevertPlan:
    """What reverting ``target`` appends (or, for a dry run, would append)."""

    target: str
    run_id: str
    kind: str
    payloads: list[Payload]
    conflicts: list[Conflict]
    resolution: str
    reverted: list[str]
    skipped: list[str]
    unsupported: dict[str, int]
    #: The summary of the revert's run.
    summary: str = ""
    events: list[Event] = field(default_factory=list)

    @property
    def compensations(self) -> list[Payload]:
        return [p for p in self.payloads if not isinstance(p, RunReverted)]

    def as_json(self) -> dict[str, Any]:
        """What the plan holds, as ``memoir revert --json`` and the web view give it."""
        return {
            "target": self.target, "resolution": self.resolution,
            "compensations": [{"type": p.TYPE, "data": msgspec.to_builtins(p)}
                              for p in self.compensations],
            "conflicts": [{"entity": c.entity, "seqs": list(c.seqs)} for c in self.conflicts],
            "reverted": list(self.reverted), "skipped": list(self.skipped),
            "unsupported": dict(self.unsupported),
        }


class _Snapshot(msgspec.Struct):
    """An entity's value just before the run first touched it."""

    seq: int
    skill: SkillRecord | None = None
    text: str | None = None
    order: list[str] = msgspec.field(default_factory=list)
    paused: bool = False
    # The run removed the entry at some point (it may have added it back elsewhere,
    # as an adoption does for an entry that only moved): put it back in its place.
    moved: bool = False


def _capture(state: State, key: str, seq: int) -> _Snapshot:
    kind, _, rest = key.partition(":")
    if kind == "skill":
        record = state.skills.skills.get(rest)
        return _Snapshot(seq=seq, skill=None if record is None else msgspec.convert(
            msgspec.to_builtins(record), SkillRecord))
    if kind == "memory":
        target, _, entry_id = rest.partition(":")
        entries = state.memory.target(target).entries
        text = next((e.text for e in entries if e.id == entry_id), None)
        return _Snapshot(seq=seq, text=text, order=[e.id for e in entries])
    return _Snapshot(seq=seq, paused=state.curator.paused)


def _value(state: State, key: str) -> object:
    """What a revert would restore of entity ``key`` (telemetry and ids aside)."""
    snap = _capture(state, key, 0)
    if snap.skill is not None:
        r = snap.skill
        return (_identity(r), r.content, r.files, r.state, r.pinned)
    return (snap.text, snap.paused)


def last_curator_run(state: State) -> str | None:
    """The latest curator pass that is not reverted, if any."""
    passes = [r for r in state.runs.values()
              if r.kind == "curator" and r.reverted_by is None]
    return max(passes, key=lambda r: r.first_seq).id if passes else None


def plan_revert(
    engine: Home,
    state: State,
    target: str,
    *,
    on_conflict: OnConflict = "refuse",
    run_id: str | None = None,
) -> RevertPlan:
    """The compensating events that revert run ``target`` as of ``state`` (the head).

    Never raises for conflicts: they are in the plan; :func:`revert_run` refuses.
    """
    info = state.runs.get(target)
    if info is None:
        raise NotFoundError(f"no run {target!r} in the journal; `memoir runs` lists them")
    if info.kind == "forget":
        raise ValidationError(f"run {target} forgot content for good; a forget cannot be "
                              "reverted (the content is gone)")
    by = info.reverted_by
    if by is not None:
        raise ValidationError(f"run {target} was already reverted by run {by}; "
                              f"`memoir revert {by}` brings it back")
    rid = run_id or short_id("revert-")

    base = engine.view(info.first_seq - 1)
    snapshots: dict[str, _Snapshot] = {}
    later: dict[str, list[int]] = {}
    unsupported: dict[str, int] = {}
    for event in screened(engine.events(after=info.first_seq - 1, until=state.seq),
                          state.keys):
        keys = change_keys(event)
        if event.run == target and event.seq <= info.last_seq:
            for key in keys:
                if key not in snapshots:
                    snapshots[key] = _capture(base, key, event.seq)
                if isinstance(event.data, EntryRemoved):
                    snapshots[key].moved = True
            if isinstance(event.data, Forgotten):
                kind = f"{event.type} (forgotten)"
                unsupported[kind] = unsupported.get(kind, 0) + 1
            elif not keys and not _inert(event.type):
                unsupported[event.type] = unsupported.get(event.type, 0) + 1
        else:
            for key in keys:
                if key in snapshots:
                    later.setdefault(key, []).append(event.seq)
        if event.seq <= info.last_seq:
            base.apply(event)

    # A later change that was itself undone (an edit and its revert) leaves nothing to
    # conflict with: only entities whose value now differs from the run's result count.
    conflicts = [Conflict(entity=k, seqs=tuple(v)) for k, v in sorted(later.items())
                 if _value(base, k) != _value(state, k)]
    skipped = [c.entity for c in conflicts] if on_conflict == "skip" else []
    todo = {k: s for k, s in snapshots.items() if k not in skipped}
    compensations = _compensate(state, todo, target, adoption=info.kind == "adopt")
    resolution = "none" if not conflicts else on_conflict
    summary = f"revert {target}" + (f" ({info.kind}: {info.summary})" if info.kind else "")
    payloads: list[Payload] = [
        RunReverted(run_id=rid, reverted_run=target, conflicts=[c.entity for c in conflicts],
                    resolution=resolution),
        *compensations,
    ]
    return RevertPlan(target=target, run_id=rid, kind=info.kind, payloads=payloads,
                      conflicts=conflicts, resolution=resolution, reverted=sorted(todo),
                      skipped=skipped, unsupported=unsupported, summary=summary[:200])


def revert_run(
    engine: Home,
    target: str,
    *,
    dry_run: bool = False,
    on_conflict: OnConflict = "refuse",
    actor: str = "user",
    run_id: str | None = None,
) -> RevertPlan:
    """Revert run ``target``: append its compensating events as a new run.

    Raises :class:`RevertConflict` when later events touched the same entities and
    ``on_conflict`` is ``refuse``; a dry run returns the plan, conflicts included.
    """
    rid = run_id or short_id("revert-")

    def decide(state: State) -> Decision[RevertPlan]:
        plan = plan_revert(engine, state, target, on_conflict=on_conflict, run_id=rid)
        if dry_run:
            return Decision(events=[], result=plan)
        if plan.conflicts and on_conflict == "refuse":
            raise RevertConflict(plan, head=state.seq)
        if plan.skipped and not plan.reverted:
            # Recording an empty revert would mark the run reverted and block --force.
            raise ValidationError(
                f"every entity run {target} changed was changed again later "
                f"({', '.join(plan.skipped[:5])}); nothing to revert with --skip-conflicts; "
                "use --force to put them back anyway"
            )
        return Decision(events=plan.payloads, result=plan, summary=plan.summary)

    events, plan = engine.commit(decide, by=Caller(actor=actor, run=rid, run_kind="revert"))
    assert plan is not None
    plan.events = events
    return plan


def _compensate(state: State, todo: dict[str, _Snapshot], target: str, *,
                adoption: bool = False) -> list[Payload]:
    """``adoption``: the run adopted what was on disk; undoing it must not remove an
    external folder's files it only recorded."""
    out: list[Payload] = []
    why = f"revert of run {target}"
    for key in sorted(k for k in todo if k.startswith("skill:")):
        name = key.partition(":")[2]
        out += _skill_compensation(name, state.skills.skills.get(name), todo[key].skill, why,
                                   adoption=adoption)
    memory = {k: s for k, s in todo.items() if k.startswith("memory:")}
    for target_name in ("memory", "user"):
        mine = {k.rsplit(":", 1)[1]: s for k, s in memory.items()
                if k.split(":")[1] == target_name}
        if mine:
            out += _memory_compensation(state, target_name, mine)
    if "curator:paused" in todo and todo["curator:paused"].paused != state.curator.paused:
        out.append(CuratorPaused() if todo["curator:paused"].paused else CuratorResumed())
    return out


def _identity(record: SkillRecord) -> tuple[object, ...]:
    return (record.provenance, record.created_by, record.category, record.protected,
            record.root)


def _deleted(record: SkillRecord, *, keep_files: bool = False) -> SkillDeleted:
    return SkillDeleted(name=record.name, category=record.category, content=record.content,
                        files=dict(record.files), provenance=record.provenance,  # type: ignore[arg-type]
                        created_by=record.created_by, root=record.root,
                        keep_files=keep_files)


def _skill_compensation(name: str, now: SkillRecord | None, then: SkillRecord | None,
                        why: str, *, adoption: bool = False) -> list[Payload]:
    if then is None:
        # An external skill the run brought into the journal leaves it; its folder,
        # which memoir never wrote, stays.
        keep = adoption and now is not None and now.root is not None
        return [] if now is None else [_deleted(now, keep_files=keep)]
    out: list[Payload] = []
    if now is not None and _identity(now) != _identity(then):
        # Another skill of the same name (deleted and created again, by someone else or
        # in another folder): only deleting it and creating the old one restores it.
        out.append(_deleted(now))
        now = None
    if now is None:
        out.append(SkillCreated(name=name, category=then.category, content=then.content,
                                provenance=then.provenance,  # type: ignore[arg-type]
                                files=dict(then.files), protected=then.protected,
                                created_by=then.created_by, root=then.root))
        now = SkillRecord(name=name, category=then.category, provenance=then.provenance,
                          created_by=then.created_by, content=then.content,
                          files=dict(then.files), protected=then.protected, root=then.root)
    state = now.state
    if state == "archived" and then.state != "archived":
        out.append(SkillRestored(name=name, reason=why))
        state = "active"
    if now.content != then.content:
        out.append(SkillContentSet(name=name, content=then.content, previous=now.content))
    for file in sorted(then.files):
        if now.files.get(file) != then.files[file]:
            out.append(SkillFileWritten(name=name, file=file, content=then.files[file],
                                        previous=now.files.get(file)))
    for file in sorted(set(now.files) - set(then.files)):
        out.append(SkillFileRemoved(name=name, file=file, previous=now.files[file]))
    if now.pinned != then.pinned:
        out.append(SkillPinned(name=name) if then.pinned else SkillUnpinned(name=name))
    if then.state == "archived" and state != "archived":
        out.append(SkillArchived(name=name, absorbed_into=then.absorbed_into,
                                 reason=then.archive_reason or why,
                                 previous_state="stale" if state == "stale" else "active"))
    elif then.state != state and then.state in ("active", "stale") and state in (
            "active", "stale"):
        out.append(SkillStateChanged(name=name, from_state=state,  # type: ignore[arg-type]
                                     to_state=then.state, reason=why))  # type: ignore[arg-type]
    return out


def _memory_compensation(state: State, target: str,
                         todo: dict[str, _Snapshot]) -> list[Payload]:
    t = target  # a Target literal by construction
    entries = state.memory.target(target).entries
    order = [e.id for e in entries]
    texts = {e.id: e.text for e in entries}
    out: list[Payload] = []
    for entry_id, snap in todo.items():
        if entry_id in texts and (snap.text is None or snap.moved):
            pos = order.index(entry_id)
            out.append(EntryRemoved(target=t, entry_id=entry_id,  # type: ignore[arg-type]
                                    previous=texts[entry_id], position=pos))
            order.pop(pos)
            del texts[entry_id]
        elif snap.text is not None and entry_id in texts and texts[entry_id] != snap.text:
            out.append(EntryReplaced(target=t, entry_id=entry_id,  # type: ignore[arg-type]
                                     text=snap.text, previous=texts[entry_id]))
    # Put removed entries back newest-removal first, each after the entry that preceded
    # it then: undoing in reverse order rebuilds the original order exactly.
    missing = [(snap.seq, entry_id, snap) for entry_id, snap in todo.items()
               if snap.text is not None and entry_id not in texts]
    for _seq, entry_id, snap in sorted(missing, key=lambda m: -m[0]):
        pos = 0
        before = snap.order[: snap.order.index(entry_id)] if entry_id in snap.order else []
        for prev in reversed(before):
            if prev in order:
                pos = order.index(prev) + 1
                break
        assert snap.text is not None
        out.append(EntryAdded(target=t, entry_id=entry_id, text=snap.text,  # type: ignore[arg-type]
                              position=pos))
        order.insert(pos, entry_id)
    return out

