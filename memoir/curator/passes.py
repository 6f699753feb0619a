"""A curator pass: lifecycle transitions, then a consolidation plan, as one run.

:func:`decide_pass` is pure: given the state, the time and the inputs it returns every
event of the pass, the summary and the report.  :func:`run_pass` commits them in one
append (or, for a dry run, only returns them), so a pass is all or nothing and is
undone as a whole with ``memoir revert RUN``.

The events of a pass, all carrying its run id and actor ``curator``::

    run.started (kind curator) · curator.run_started (inputs) · skill.state_changed /
    skill.archived (lifecycle) · curator.plan_accepted · skill.write_rejected (refused
    items) · skill.created / file_written / content_set / archived (the plan) ·
    curator.run_finished (summary, report)
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from memoir.curator.config import CuratorConfig, curator_config
from memoir.curator.consolidate import plan_events
from memoir.curator.due import should_run
from memoir.curator.lifecycle import LifecycleOutcome, automatic_transitions, candidates
from memoir.curator.lifecycle import transition_events as lifecycle_events
from memoir.curator.llm_plan import SOURCE as LLM_SOURCE
from memoir.curator.planner import SOURCE as RULES_SOURCE
from memoir.curator.planner import rules_plan
from memoir.curator.plans import Plan, Refusal, validate_plan
from memoir.curator.reports import build_report, rename_map, report_dir
from memoir.curator.rules import is_candidate, not_candidate
from memoir.engine.commit import Caller, Decision
from memoir.engine.port import Home
from memoir.errors import ValidationError
from memoir.events.curator import CuratorRunFinished, CuratorRunStarted, PlanAccepted
from memoir.events.skills import SkillArchived, SkillCreated, SkillWriteRejected
from memoir.events.types import Event, Payload
from memoir.ids import short_id
from memoir.projections.skills import SkillRecord
from memoir.projections.state import State
from memoir.skills.tools import adopt_placed_skills

__all__ = ["ACTOR", "PassResult", "decide_pass", "run_pass"]

#: The actor of every curator event.
ACTOR = "curator"


@dataclass
class PassResult:
    """What a pass did (or, dry, would do)."""

    run_id: str
    dry_run: bool
    now: dt.datetime
    lifecycle: LifecycleOutcome
    plan: Plan | None
    refusals: list[Refusal]
    payloads: list[Payload]
    summary: str
    report: dict[str, Any]
    report_path: str | None
    events: list[Event] = field(default_factory=list)
    skipped: str | None = None

    @property
    def changes(self) -> list[Payload]:
        """The skill events that change something (no markers, no refusals)."""
        return [p for p in self.payloads if p.TYPE.startswith("skill.")
                and not isinstance(p, SkillWriteRejected)]


def _after_lifecycle(skills: dict[str, SkillRecord],
                     outcome: LifecycleOutcome) -> dict[str, SkillRecord]:
    after = dict(skills)
    for t in outcome.transitions:
        after[t.name] = msgspec.structs.replace(after[t.name], state=t.to_state)
    return after


def _auto_summary(counts: dict[str, int]) -> str:
    parts = [f"{counts[key]} {label}" for key, label in (
        ("marked_stale", "marked stale"), ("archived", "archived"),
        ("reactivated", "reactivated")) if counts[key]]
    return ", ".join(parts) if parts else "no changes"


@dataclass
class _Decided:
    """The first half of a pass: what it changes, before it is written up."""

    lifecycle: LifecycleOutcome
    before: list[str]
    consolidate: bool
    plan: Plan | None = None
    accepted: Plan | None = None
    refusals: list[Refusal] = field(default_factory=list)
    changes: list[Payload] = field(default_factory=list)
    llm_summary: str = ""
    #: The source of the plan that was checked (None: no consolidation ran).
    model: str | None = None


def decide_pass(
    state: State,
    *,
    now: dt.datetime,
    config: CuratorConfig,
    run_id: str,
    plan: Plan | None = None,
    plan_refusals: Sequence[Refusal] = (),
    use_rules: bool = False,
    dry_run: bool = False,
    elapsed: Callable[[], float] = lambda: 0.0,
) -> PassResult:
    """Every event of one pass over ``state`` at ``now`` (pure).

    Consolidation runs when a ``plan`` is given, when ``use_rules`` asks for the
    built-in planner, or when ``config.consolidate`` is on (built-in planner).
    """
    decided = _decide(state, now=now, config=config, plan=plan,
                      plan_refusals=plan_refusals, use_rules=use_rules)
    return _write_up(state, decided, now=now, config=config, run_id=run_id,
                     dry_run=dry_run, duration=elapsed())


def _decide(state: State, *, now: dt.datetime, config: CuratorConfig, plan: Plan | None,
            plan_refusals: Sequence[Refusal], use_rules: bool) -> _Decided:
    """The lifecycle transitions, then the consolidation plan checked against the
    skills as the transitions leave them."""
    skills = state.skills.skills
    outcome = automatic_transitions(
        skills, now, stale_after_days=config.stale_after_days,
        archive_after_days=config.archive_after_days,
        prune_builtins=config.prune_builtins, seeded=state.curator.seeded,
    )
    after_life = _after_lifecycle(skills, outcome)
    decided = _Decided(
        lifecycle=outcome, before=candidates(after_life, prune_builtins=config.prune_builtins),
        consolidate=plan is not None or use_rules or config.consolidate, plan=plan)
    if not decided.consolidate:
        decided.llm_summary = "skipped (consolidation off)"
        return decided
    if not decided.before and plan is None:
        decided.llm_summary = "skipped (no candidates" + _none_because(
            after_life, prune_builtins=config.prune_builtins) + ")"
        return decided  # a plan given is checked all the same: each item is refused
    auto_archived = {t.name for t in outcome.transitions if t.kind == "archived"}
    if plan is None:
        plan = decided.plan = rules_plan(after_life, archived=frozenset(auto_archived),
                                         state=state)
    decided.model = plan.source
    accepted, refusals = validate_plan(after_life, plan, archived=auto_archived,
                                       state=state, actor=ACTOR)
    decided.accepted, decided.refusals = accepted, [*plan_refusals, *refusals]
    decided.changes = plan_events(after_life, accepted)
    parts = []
    if accepted.consolidations:
        parts.append(f"{len(accepted.consolidations)} consolidated")
    if accepted.prunings:
        parts.append(f"{len(accepted.prunings)} pruned")
    if decided.refusals:
        parts.append(f"{len(decided.refusals)} refused")
    if not parts and plan.source == RULES_SOURCE:
        names = ", ".join(decided.before[:5]) + (", …" if len(decided.before) > 5 else "")
        parts.append(f"no change (no two skills it may change share a name prefix, and "
                     f"the built-in planner merges only those; candidates: {names})")
    decided.llm_summary = f"{plan.source}: {', '.join(parts) if parts else 'no change'}"
    return decided


def _none_because(skills: Mapping[str, SkillRecord], *, prune_builtins: bool) -> str:
    """Why no skill is a candidate, counted (``": 2 skill(s), … — 1 a person's, …"``)."""
    if not skills:
        return ": there are no skills"
    why = Counter(not_candidate(r, prune_builtins=prune_builtins) or "?"
                  for r in skills.values())
    shown = ", ".join(f"{n} {kind}" for kind, n in sorted(why.items()))
    return f": {len(skills)} skill(s), none the curator may change — {shown}"


def _plan_summary(decided: _Decided) -> str:
    """The summary's second part, Hermes's ``llm: …`` when a model made the plan;
    ``consolidation: …`` when none ran (skipped, or the built-in rules or a plan file
    made it)."""
    if decided.model == LLM_SOURCE:
        return f"llm: {decided.llm_summary.removeprefix(f'{LLM_SOURCE}: ')}"
    return f"consolidation: {decided.llm_summary}"


def _write_up(state: State, decided: _Decided, *, now: dt.datetime, config: CuratorConfig,
              run_id: str, dry_run: bool, duration: float) -> PassResult:
    """The summary, the report and the run's events, around the changes decided."""
    accepted, outcome, plan = decided.accepted, decided.lifecycle, decided.plan
    consolidated = [{"name": c.source, "into": c.into, "source": accepted.source,
                     "reason": c.reason} for c in accepted.consolidations] if accepted else []
    pruned = [{"name": p.name, "source": accepted.source, "reason": p.reason}
              for p in accepted.prunings] if accepted else []
    created = {p.name for p in decided.changes if isinstance(p, SkillCreated)}
    archived_by_plan = {p.name for p in decided.changes if isinstance(p, SkillArchived)}
    after = [n for n in decided.before if n not in archived_by_plan]
    # New umbrellas are curated skills too (written by the curator, provenance agent).
    after += [n for n in created if is_candidate(
        SkillRecord(name=n, provenance="agent", created_by=ACTOR),
        prune_builtins=config.prune_builtins)]

    prefix = "dry-run auto: " if dry_run else "auto: "
    summary = f"{prefix}{_auto_summary(outcome.counts)}; {_plan_summary(decided)}"
    renames = rename_map(consolidated, pruned)
    if renames:
        summary = f"{summary}\n{renames}"

    started_at = now.isoformat()
    model = decided.model
    report = build_report(
        started_at=started_at, duration_seconds=duration, model=model,
        provider="memoir" if model else None, auto_transitions=outcome.counts,
        before=decided.before, after=after, consolidated=consolidated, pruned=pruned,
        llm_summary=decided.llm_summary,
    )
    path = None if dry_run else report_dir(now, state.curator.reports)

    inputs: dict[str, Any] = {
        "now": started_at,
        "stale_after_days": config.stale_after_days,
        "archive_after_days": config.archive_after_days,
        "prune_builtins": config.prune_builtins,
        "consolidate": decided.consolidate,
        "candidates": candidates(state.skills.skills, prune_builtins=config.prune_builtins),
    }
    if plan is not None:
        inputs["plan"] = {
            "source": plan.source,
            "consolidations": [c.as_dict() for c in plan.consolidations],
            "prunings": [p.as_dict() for p in plan.prunings],
            "umbrellas": [u.as_dict() for u in plan.umbrellas],
        }
    payloads: list[Payload] = [
        CuratorRunStarted(run_id=run_id, dry_run=dry_run, inputs=inputs),
        *lifecycle_events(outcome),
    ]
    if accepted is not None:
        payloads.append(PlanAccepted(
            run_id=run_id, source=accepted.source,
            consolidations=[c.as_dict() for c in accepted.consolidations],
            prunings=[p.as_dict() for p in accepted.prunings],
            umbrellas=[u.as_dict() for u in accepted.umbrellas],
            refused=len(decided.refusals),
        ))
    payloads += [
        SkillWriteRejected(name=r.name, action=r.action, reason=r.reason, guard="curator.plan")
        for r in decided.refusals
    ]
    payloads += decided.changes
    payloads.append(CuratorRunFinished(
        run_id=run_id, summary=summary, duration_seconds=duration,
        counts=dict(report["counts"]), report_path=path, started_at=started_at,
        report=report, seeded=list(outcome.seeded),
    ))
    return PassResult(
        run_id=run_id, dry_run=dry_run, now=now, lifecycle=outcome, plan=accepted,
        refusals=decided.refusals, payloads=payloads, summary=summary, report=report,
        report_path=path,
    )


def run_pass(
    engine: Home,
    *,
    now: dt.datetime | None = None,
    plan: Plan | None = None,
    plan_refusals: Sequence[Refusal] = (),
    use_rules: bool = False,
    dry_run: bool = False,
    config: CuratorConfig | None = None,
    run_id: str | None = None,
    only_if_due: bool = False,
) -> PassResult | None:
    """Run one pass now (``memoir curator run``): the schedule is not consulted, but the
    curator must be enabled.  A dry run appends nothing.  With ``only_if_due`` (the
    scheduler) the schedule is checked again under the journal lock and None is
    returned when another process ran a pass meanwhile."""
    cfg = config or curator_config(engine.config)
    if not cfg.enabled:
        raise ValidationError("the curator is disabled (curator.enabled: false in config.yaml)")
    started = engine.clock.now()
    when = now or started
    rid = run_id or short_id("curator-")
    if not dry_run:
        # Hermes's curator walks the tree: a skill folder placed by hand is one it sees.
        adopt_placed_skills(engine, before=f"curator pass {rid}")

    def elapsed() -> float:
        return max(0.0, (engine.clock.now() - started).total_seconds())

    def decide(state: State) -> Decision[PassResult]:
        if only_if_due and not should_run(state.curator, when, cfg)[0]:
            return Decision[PassResult](events=[])
        result = decide_pass(state, now=when, config=cfg, run_id=rid, plan=plan,
                             plan_refusals=plan_refusals, use_rules=use_rules,
                             dry_run=dry_run, elapsed=elapsed)
        return Decision(events=[] if dry_run else result.payloads, result=result,
                        summary=result.summary.split("\n", 1)[0])

    if dry_run:
        return decide(engine.state).result
    events, result = engine.commit(decide, by=Caller(actor=ACTOR, run=rid, run_kind="curator"))
    if result is not None:
        result.events = events
    return result
