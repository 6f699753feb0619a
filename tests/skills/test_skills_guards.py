"""Provenance and background-actor guards, and the lifecycle event builders the curator
reuses: checked when events are decided, and journaled when refused."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memoir
import memoir.skills
from memoir.api import Memoir
from memoir.clock import FakeClock
from memoir.engine import Decision
from memoir.errors import NotFoundError, RejectedError, ValidationError
from memoir.events.skills import (
    SkillArchived,
    SkillCreated,
    SkillDeleted,
    SkillPinned,
    SkillRestored,
    SkillStateChanged,
    SkillViewed,
    SkillWriteRejected,
)
from memoir.events.types import Payload
from memoir.journal import InMemoryJournal
from memoir.projections.state import State
from memoir.skills import (
    GuardRefusal,
    archive_events,
    check_background_change,
    delete_events,
    is_background,
    pin_events,
    restore_events,
    skill_manage_call,
    state_change_events,
    unpin_events,
)


def skill_md(name: str, body: str = "Step one.\nStep two.\n") -> str:
    return f"---\nname: {name}\ndescription: the {name} skill\n---\n{body}"


#: name → (provenance, created_by override, protected, pinned)
CAST: dict[str, tuple[str, str | None, bool, bool]] = {
    "mine": ("agent", None, False, False),
    "other-mine": ("agent", None, False, False),
    "theirs": ("user", None, False, False),
    "shipped": ("bundled", None, False, False),
    "from-hub": ("hub", None, False, False),
    "held": ("agent", None, False, True),
    "plan": ("bundled", None, True, False),
    "imported": ("import", None, False, False),
    "imported-agent": ("import", "agent", False, False),
}
OFF_LIMITS = {"theirs", "shipped", "from-hub", "held", "plan", "imported"}


def populate(handle: Memoir) -> None:
    events: list[Payload] = []
    for name, (provenance, created_by, protected, pinned) in CAST.items():
        events.append(SkillCreated(name=name, content=skill_md(name), provenance=provenance,  # type: ignore[arg-type]
                                   created_by=created_by, protected=protected,
                                   files={"references/a.md": "A\n"}))
        if pinned:
            events.append(SkillPinned(name=name))
    handle.commit(lambda _s: Decision(events=events), by="user")


@pytest.fixture
def handle(home: Path) -> Memoir:
    h = memoir.open(home, clock=FakeClock())
    populate(h)
    return h


def test_background_actors_are_reviewers_and_the_curator() -> None:
    assert is_background("curator") and is_background("reviewer.skills")
    assert is_background("reviewer.memory")
    assert not any(is_background(a) for a in ("agent", "user", "import", "system", "curatorx"))


@pytest.mark.parametrize("name", sorted(OFF_LIMITS))
def test_background_changes_to_protected_or_foreign_skills_are_refused(
    handle: Memoir, name: str
) -> None:
    state = handle.state
    for actor in ("curator", "reviewer.skills"):
        assert check_background_change(state, actor, name, "patch") is not None
    assert check_background_change(state, "agent", name, "patch") is None
    assert check_background_change(state, "user", name, "patch") is None


@pytest.mark.parametrize("name", ["mine", "imported-agent"])
def test_background_actors_may_maintain_agent_owned_skills(handle: Memoir, name: str) -> None:
    assert check_background_change(handle.state, "curator", name, "archive") is None


def test_archive_needs_a_reason_or_an_existing_umbrella(handle: Memoir) -> None:
    state = handle.state
    with pytest.raises(ValidationError, match="reason"):
        archive_events(state, "mine", actor="curator")
    with pytest.raises(ValidationError, match="does not exist"):
        archive_events(state, "mine", actor="curator", absorbed_into="ghost")
    with pytest.raises(ValidationError, match="cannot equal"):
        archive_events(state, "mine", actor="curator", absorbed_into="mine")
    [pruned] = archive_events(state, "mine", actor="curator", reason="unused for 90 days")
    assert isinstance(pruned, SkillArchived)
    assert (pruned.absorbed_into, pruned.reason) == (None, "unused for 90 days")
    [merged] = archive_events(state, "mine", actor="curator", absorbed_into="other-mine")
    assert isinstance(merged, SkillArchived)
    assert (merged.absorbed_into, merged.reason) == ("other-mine", "absorbed into 'other-mine'")
    with pytest.raises(NotFoundError):
        archive_events(state, "ghost", actor="curator", reason="x")


def test_guard_refusals_carry_the_event_to_journal(handle: Memoir) -> None:
    with pytest.raises(GuardRefusal) as caught:
        archive_events(handle.state, "shipped", actor="curator", reason="old")
    assert isinstance(caught.value, RejectedError)
    event = caught.value.event
    assert isinstance(event, SkillWriteRejected)
    assert (event.name, event.action, event.guard) == ("shipped", "archive", "bundled")


def test_pinned_skills_refuse_archive_and_delete_from_a_person_too(handle: Memoir) -> None:
    with pytest.raises(GuardRefusal):
        archive_events(handle.state, "held", actor="user", reason="tidy")
    with pytest.raises(GuardRefusal):
        delete_events(handle.state, "held", actor="user")


def test_background_actors_never_delete(handle: Memoir) -> None:
    with pytest.raises(GuardRefusal) as caught:
        delete_events(handle.state, "mine", actor="curator")
    assert caught.value.refusal.guard == "never_delete"
    [deleted] = delete_events(handle.state, "mine", actor="user")
    assert isinstance(deleted, SkillDeleted) and deleted.content == skill_md("mine")


def test_restore_and_state_changes_follow_the_same_rules(handle: Memoir) -> None:
    handle.commit(lambda s: Decision(events=archive_events(s, "mine", actor="curator",
                                                           reason="stale")), by="curator")
    state = handle.state
    with pytest.raises(ValidationError):
        archive_events(state, "mine", actor="curator", reason="again")
    [restored] = restore_events(state, "mine", actor="curator")
    assert isinstance(restored, SkillRestored)
    with pytest.raises(ValidationError):
        restore_events(state, "other-mine", actor="user")
    [stale] = state_change_events(state, "other-mine", "stale", actor="curator")
    assert isinstance(stale, SkillStateChanged) and stale.from_state == "active"
    assert state_change_events(state, "other-mine", "active", actor="curator") == []
    with pytest.raises(GuardRefusal):
        state_change_events(state, "theirs", "stale", actor="curator")
    with pytest.raises(ValidationError):
        state_change_events(state, "other-mine", "archived", actor="user")


def test_pins_are_for_people_and_not_for_bundled_or_hub_skills(handle: Memoir) -> None:
    state = handle.state
    assert [type(e) for e in pin_events(state, "mine", actor="user")] == [SkillPinned]
    assert pin_events(state, "held", actor="user") == []
    assert unpin_events(state, "mine", actor="user") == []
    with pytest.raises(ValidationError, match="bundled"):
        pin_events(state, "shipped", actor="user")
    with pytest.raises(ValidationError, match="hub"):
        unpin_events(state, "from-hub", actor="user")
    with pytest.raises(GuardRefusal):
        unpin_events(state, "held", actor="curator")


def test_a_refused_background_write_is_journaled_not_applied(handle: Memoir) -> None:
    head = handle.head
    result = skill_manage_call(handle, {"action": "edit", "name": "theirs",
                                        "content": skill_md("theirs", "new\n")},
                                            by="reviewer.skills")
    assert result["success"] is False and "not agent-created" in result["error"]
    [event] = list(handle.events(after=head))
    assert isinstance(event.data, SkillWriteRejected) and event.data.guard == "owner"
    assert handle.state.skills.skills["theirs"].content == skill_md("theirs")


# -- the property ---------------------------------------------------------------------------

NAMES = [*CAST, "brand-new"]
CALLS = st.fixed_dictionaries({
    "action": st.sampled_from(["create", "edit", "patch", "delete", "write_file", "remove_file",
                               "view", "view_file"]),
    "name": st.sampled_from(NAMES),
    "absorbed_into": st.sampled_from([None, "", "mine", "other-mine", "theirs", "ghost"]),
    "file_path": st.sampled_from([None, "references/a.md", "references/b.md", "SKILL.md",
                                  "../x.md"]),
    "actor": st.sampled_from(["curator", "reviewer.skills"]),
})


def _args(call: dict[str, Any]) -> dict[str, Any]:
    name = call["name"]
    args: dict[str, Any] = {"action": call["action"], "name": name}
    if call["action"] in ("create", "edit"):
        args["content"] = skill_md(name, "rewritten\n")
    if call["action"] == "patch":
        args.update(old_string="Step two.", new_string="Step 2.")
    if call["file_path"] is not None:
        args["file_path"] = call["file_path"]
    if call["action"] == "write_file":
        args["file_content"] = "B\n"
    if call["absorbed_into"] is not None:
        args["absorbed_into"] = call["absorbed_into"]
    return args


def _untouchable(state: State, name: str) -> bool:
    record = state.skills.skills.get(name)
    return record is not None and (name in OFF_LIMITS or record.pinned or record.protected)


@settings(max_examples=40)
@given(st.lists(CALLS, min_size=1, max_size=12))
def test_background_actors_never_delete_nor_touch_protected_or_foreign_skills(
    calls: list[dict[str, Any]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        # Synchronous files: the folder goes away at the end of the example.
        handle = memoir.open(Path(tmp), journal=InMemoryJournal(), clock=FakeClock(),
                             config=memoir.Config.model_validate({"projections": {"mode": "sync"}}))
        populate(handle)
        original = {n: (r.content, dict(r.files)) for n, r in handle.state.skills.skills.items()}
        marks: set[tuple[str, str, str]] = set()
        for call in calls:
            before = handle.view()
            head = handle.head
            actor = call["actor"]
            if call["action"].startswith("view"):
                args = {"name": call["name"]}
                if call["action"] == "view_file" and call["file_path"]:
                    args["file_path"] = call["file_path"]
                _result, mark = memoir.skills.skill_view_call(handle, args, by=actor)
                if mark is not None:
                    marks.add(mark)
                continue
            skill_manage_call(handle, _args(call), viewed=marks, by=actor)
            appended = [e.data for e in handle.events(after=head)]
            assert not any(isinstance(e, SkillDeleted) for e in appended)
            if _untouchable(before, call["name"]):
                assert all(isinstance(e, SkillWriteRejected | SkillViewed) for e in appended)
        state = handle.state
        for name in OFF_LIMITS:
            record = state.skills.skills[name]
            assert (record.content, record.files) == original[name]
            assert record.state == "active"
        assert set(original) <= set(state.skills.skills)


def test_a_background_actor_changes_an_agent_skill_after_viewing_it(handle: Memoir) -> None:
    args = {"action": "patch", "name": "mine", "old_string": "Step two.", "new_string": "Two."}
    blind = skill_manage_call(handle, args, by="reviewer.skills")
    assert blind["_read_before_write_required"] is True
    _view, mark = memoir.skills.skill_view_call(handle, {"name": "mine"}, by="reviewer.skills")
    assert mark is not None
    assert skill_manage_call(handle, args, viewed={mark}, by="reviewer.skills")["success"]
    # What was viewed is now stale: the next write must view again.
    again = {**args, "old_string": "Two.", "new_string": "2."}
    assert not skill_manage_call(handle, again,
                                 viewed={mark}, by="reviewer.skills")["success"]
