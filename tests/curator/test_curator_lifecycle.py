"""Lifecycle transitions (spec §4.3): stale after 30 idle days, archived after 90,
reactivated on use; pinned, protected, hub and person-written skills untouched."""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path
from typing import NamedTuple

from hypothesis import event, given, settings
from hypothesis import strategies as st

from memoir.clock import FakeClock, parse_ts
from memoir.curator import automatic_transitions, run_pass, transition_events
from memoir.curator.config import CuratorConfig
from memoir.curator.passes import decide_pass
from memoir.events.skills import (
    SkillArchived,
    SkillFileWritten,
    SkillStateChanged,
    SkillUsed,
    SkillViewed,
)
from memoir.projections.skills import SkillRecord
from tests.support.curator import START, commit, create, open_home, use

T0 = parse_ts(START)


def record(name: str, **kw: object) -> SkillRecord:
    kw.setdefault("created_at", START)
    kw.setdefault("created_by", "agent")
    return SkillRecord(name=name, **kw)  # type: ignore[arg-type]


def kinds(skills: dict[str, SkillRecord], days: float, **kw: object) -> dict[str, str]:
    out = automatic_transitions(skills, T0 + dt.timedelta(days=days), **kw)  # type: ignore[arg-type]
    return {t.name: t.kind for t in out.transitions}


def test_unused_skill_goes_stale_after_30_days_and_archived_after_90() -> None:
    skills = {"a": record("a")}
    assert kinds(skills, 29.9) == {}
    assert kinds(skills, 30) == {"a": "marked_stale"}
    assert kinds(skills, 90) == {"a": "archived"}


def test_thresholds_come_from_the_arguments() -> None:
    skills = {"a": record("a", use_count=1, last_used_at=START)}
    assert kinds(skills, 5, stale_after_days=5) == {"a": "marked_stale"}
    assert kinds(skills, 10, stale_after_days=5, archive_after_days=10) == {"a": "archived"}


def test_a_stale_skill_used_again_is_reactivated() -> None:
    used = (T0 + dt.timedelta(days=39)).isoformat()
    skills = {"a": record("a", state="stale", use_count=3, last_used_at=used)}
    assert kinds(skills, 40) == {"a": "reactivated"}


def test_never_used_skill_gets_a_grace_period_from_its_last_view() -> None:
    viewed = (T0 + dt.timedelta(days=100)).isoformat()
    fresh = {"a": record("a", view_count=1, last_viewed_at=viewed)}
    assert kinds(fresh, 120) == {}
    stale = {"a": record("a", state="stale", view_count=1, last_viewed_at=viewed)}
    assert kinds(stale, 120) == {"a": "reactivated"}


def test_pinned_protected_hub_person_and_archived_skills_are_never_moved() -> None:
    skills = {
        "pinned": record("pinned", pinned=True),
        "plan": record("plan"),
        "guarded": record("guarded", protected=True),
        "hubbed": record("hubbed", provenance="hub", created_by="hub"),
        "mine": record("mine", provenance="user", created_by="user"),
        "gone": record("gone", state="archived"),
    }
    out = automatic_transitions(skills, T0 + dt.timedelta(days=400))
    assert out.transitions == []
    assert out.counts["checked"] == 1  # only the pinned one is a candidate


def test_bundled_skills_are_seeded_first_then_age_from_the_seeding() -> None:
    skills = {"b": record("b", provenance="bundled", created_by="bundled")}
    first = automatic_transitions(skills, T0 + dt.timedelta(days=400))
    assert first.seeded == ["b"] and first.counts["seeded"] == 1 and not first.transitions
    seeded_at = (T0 + dt.timedelta(days=400)).isoformat()
    assert kinds(skills, 430, seeded={"b": seeded_at}) == {"b": "marked_stale"}
    assert kinds(skills, 490, seeded={"b": seeded_at}) == {"b": "archived"}
    assert kinds(skills, 490, seeded={"b": seeded_at}, prune_builtins=False) == {}


def test_archive_event_says_how_long_the_skill_was_idle() -> None:
    out = automatic_transitions({"a": record("a")}, T0 + dt.timedelta(days=95, hours=3))
    [event] = transition_events(out)
    assert isinstance(event, SkillArchived)
    assert event.reason == "stale: no activity for 95 days"
    assert event.absorbed_into is None


# -- the property: real events against a plain model of spec §4.3 -----------------------------

class Spec(NamedTuple):
    """One generated skill's history, in hours after T0 (activity after its creation)."""

    created_h: int
    activity: list[tuple[str, int]]
    pinned: bool
    stale_at_h: int | None
    provenance: str

    @property
    def created(self) -> dt.datetime:
        return T0 + dt.timedelta(hours=self.created_h)

    def at(self, hours: int) -> dt.datetime:
        return self.created + dt.timedelta(hours=hours)

    @property
    def last_h(self) -> int:
        return self.created_h + max([h for _k, h in self.activity] + [self.stale_at_h or 0])


ACTIVITY = st.tuples(st.sampled_from(["use", "use", "view", "patch"]), st.integers(0, 120 * 24))
SKILL = st.builds(
    Spec,
    created_h=st.integers(0, 30 * 24),
    activity=st.lists(ACTIVITY, max_size=3),
    pinned=st.sampled_from([False, False, False, True]),
    # A stale mark (as an earlier pass would have made) followed by later activity is
    # what reactivation needs, so marks come early.
    stale_at_h=st.none() | st.integers(0, 40 * 24),
    provenance=st.sampled_from(["agent", "agent", "agent", "agent", "user", "hub"]),
)


def model(spec: Spec, now: dt.datetime, stale_days: int, archive_days: int) -> str | None:
    """Spec §4.3 as plainly as it can be said: what happens to one skill at ``now``."""
    if spec.provenance != "agent" or spec.pinned:
        return None
    acts = [spec.at(h) for _k, h in spec.activity if spec.at(h) <= now]
    uses = sum(1 for k, h in spec.activity if k == "use" and spec.at(h) <= now)
    is_stale = spec.stale_at_h is not None and spec.at(spec.stale_at_h) <= now
    idle = now - (max(acts) if acts else spec.created)
    if uses == 0 and idle < dt.timedelta(days=stale_days):
        return "reactivated" if is_stale else None
    if idle >= dt.timedelta(days=archive_days):
        return "archived"
    if idle >= dt.timedelta(days=stale_days) and not is_stale:
        return "marked_stale"
    if idle < dt.timedelta(days=stale_days) and is_stale:
        return "reactivated"
    return None


@settings(max_examples=80)
@given(specs=st.lists(SKILL, min_size=1, max_size=4), after_h=st.integers(-30 * 24, 90 * 24),
       stale_days=st.integers(1, 45), extra_days=st.integers(-20, 60))
def test_transitions_equal_a_plain_model_of_the_spec(
    specs: list[Spec], after_h: int, stale_days: int, extra_days: int,
) -> None:
    # Archiving before staleness is a strange config, but the rules still say what to do.
    archive_days = max(1, stale_days + extra_days)
    # `now` lands anywhere from inside the history to long after its last event.
    now = T0 + dt.timedelta(hours=max(0, max(s.last_h for s in specs) + after_h))
    with tempfile.TemporaryDirectory() as tmp:
        clock = FakeClock(START)
        m = open_home(Path(tmp), clock=clock, in_memory=True)
        timeline: list[tuple[dt.datetime, bool, int, str]] = []
        for i, spec in enumerate(specs):
            timeline.append((spec.created, False, i, "create"))
            timeline += [(spec.at(h), True, i, kind) for kind, h in spec.activity]
            if spec.stale_at_h is not None:
                timeline.append((spec.at(spec.stale_at_h), True, i, "stale"))
        for when, _later, i, kind in sorted(timeline):
            if when > now:
                continue
            clock.set(when)
            name = f"s{i}"
            if kind == "create":
                create(m, name, provenance=specs[i].provenance, pinned=specs[i].pinned)
            elif kind == "use":
                commit(m, [SkillUsed(name=name)], actor="agent")
            elif kind == "view":
                commit(m, [SkillViewed(name=name)], actor="agent")
            elif kind == "patch":
                commit(m, [SkillFileWritten(name=name, file="references/n.md",
                                            content=str(when))], actor="agent")
            elif m.state.skills.skills[name].state == "active":
                commit(m, [SkillStateChanged(name=name, from_state="active",
                                             to_state="stale")], actor="curator")
        config = CuratorConfig(stale_after_days=stale_days, archive_after_days=archive_days)
        result = decide_pass(m.state, now=now, config=config, run_id="r", dry_run=True)
        got = {t.name: t.kind for t in result.lifecycle.transitions}
        want: dict[str, str] = {}
        for i, spec in enumerate(specs):
            expected = model(spec, now, stale_days, archive_days)
            if spec.created <= now and expected is not None:
                want[f"s{i}"] = expected
        event(str(sorted(want.values())))
        assert got == want


# -- through the journal ------------------------------------------------------------------------


def test_a_pass_journals_the_transitions_as_curator_events_of_one_run(home: Path) -> None:
    clock = FakeClock(START)
    m = open_home(home, clock=clock)
    create(m, "old-tool")
    create(m, "busy-tool")
    use(m, "busy-tool")
    create(m, "keep-me", pinned=True)
    clock.advance(days=45)
    use(m, "busy-tool")
    clock.advance(days=50)
    result = run_pass(m)
    assert result is not None
    state = m.state
    assert state.skills.skills["old-tool"].state == "archived"
    assert state.skills.skills["old-tool"].archive_reason == "stale: no activity for 95 days"
    assert state.skills.skills["busy-tool"].state == "stale"
    assert state.skills.skills["keep-me"].state == "active"
    assert {e.run for e in result.events if e.actor == "curator"} == {result.run_id}
    types = [e.type for e in result.events if e.run == result.run_id]
    assert types[:2] == ["run.started", "curator.run_started"]
    assert types[-1] == "curator.run_finished"
    m.flush()
    assert (home / "skills/.archive/old-tool/SKILL.md").exists()
    assert not (home / "skills/old-tool/SKILL.md").exists()
    assert result.summary == ("auto: 1 marked stale, 1 archived; "
                              "consolidation: skipped (consolidation off)")


def test_using_a_stale_skill_reactivates_it_on_the_next_pass(home: Path) -> None:
    clock = FakeClock(START)
    m = open_home(home, clock=clock)
    create(m, "tool")
    use(m, "tool")
    clock.advance(days=31)
    run_pass(m)
    assert m.state.skills.skills["tool"].state == "stale"
    use(m, "tool")
    clock.advance(days=1)
    result = run_pass(m)
    assert result is not None and result.lifecycle.counts["reactivated"] == 1
    assert m.state.skills.skills["tool"].state == "active"


def test_bundled_skill_clock_starts_at_the_first_pass_that_sees_it(home: Path) -> None:
    clock = FakeClock(START)
    m = open_home(home, clock=clock)
    create(m, "builtin", provenance="bundled")
    clock.advance(days=400)
    first = run_pass(m)
    assert first is not None and first.lifecycle.counts["seeded"] == 1
    assert m.state.curator.seeded == {"builtin": first.now.isoformat()}
    clock.advance(days=31)
    second = run_pass(m)
    assert second is not None
    assert [(t.name, t.kind) for t in second.lifecycle.transitions] == [
        ("builtin", "marked_stale")]
