"""Hand edits of the skills tree: detected as drift, never overwritten, adoptable."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

import memoir
import memoir.skills
from memoir.api import Memoir
from memoir.clock import FakeClock
from memoir.config import Config
from memoir.errors import DriftError, ValidationError
from memoir.events.runs import RunStarted
from memoir.events.skills import (
    SkillContentSet,
    SkillCreated,
    SkillDeleted,
    SkillFileRemoved,
    SkillFileWritten,
    SkillWriteRejected,
)
from memoir.skills import adopt_skills, skill_manage_call, skills_drift


def skill_md(name: str, body: str = "Do the thing.\n") -> str:
    return f"---\nname: {name}\ndescription: the {name} skill\n---\n{body}"


@pytest.fixture
def handle(home: Path) -> Memoir:
    h = memoir.open(home, clock=FakeClock())
    skill_manage_call(h, {"action": "create", "name": "foo", "content": skill_md("foo"),
                          "category": "dev"}, by="agent")
    skill_manage_call(h, {"action": "write_file", "name": "foo",
                          "file_path": "references/r.md", "file_content": "R\n"}, by="agent")
    h.flush()  # the tree is on disk before the tests edit it by hand
    return h


def kinds(drift: list[Any]) -> list[tuple[str, str]]:
    return [(d.kind, d.path) for d in drift]


def test_an_untouched_tree_has_no_drift(handle: Memoir) -> None:
    assert skills_drift(handle) == []
    assert adopt_skills(handle).events == []


def test_a_hand_edit_is_adopted_before_an_agent_writes_to_the_skill(handle: Memoir) -> None:
    path = handle.home / "skills/dev/foo/SKILL.md"
    path.write_text(skill_md("foo", "Edited by hand.\n"))
    head = handle.head
    result = skill_manage_call(handle, {"action": "patch", "name": "foo",
                                        "old_string": "Edited", "new_string": "Fixed"}, by="agent")
    assert result["success"] is True
    events = list(handle.events(after=head))
    assert [(e.actor, e.type) for e in events] == [
        ("user", "run.started"), ("user", "skill.content_set"), ("agent", "skill.patched")]
    assert isinstance(events[0].data, RunStarted) and events[0].data.kind == "adopt"
    handle.flush()
    assert path.read_text() == skill_md("foo", "Fixed by hand.\n")
    assert skills_drift(handle) == []


def test_a_hand_edit_is_drift_and_refuses_agent_writes_when_adoption_is_off(
        home: Path) -> None:
    config = Config.model_validate({"skills": {"adopt_hand_edits": False}})
    handle = memoir.open(home, clock=FakeClock(), config=config)
    skill_manage_call(handle, {"action": "create", "name": "foo", "content": skill_md("foo"),
                               "category": "dev"}, by="agent")
    handle.flush()
    path = handle.home / "skills/dev/foo/SKILL.md"
    path.write_text(skill_md("foo", "Edited by hand.\n"))
    assert kinds(skills_drift(handle)) == [("modified", "skills/dev/foo/SKILL.md")]
    assert "skills/dev/foo/SKILL.md" in [d.path for d in handle.drift()]
    with pytest.raises(DriftError):
        handle.rebuild()
    head = handle.head
    result = skill_manage_call(handle, {"action": "patch", "name": "foo",
                                        "old_string": "Edited", "new_string": "x"}, by="agent")
    assert result["success"] is False and "memoir adopt" in result["error"]
    [refusal] = [e.data for e in handle.events(after=head)]
    assert isinstance(refusal, SkillWriteRejected) and refusal.guard == "drift"
    handle.flush()
    assert path.read_text() == skill_md("foo", "Edited by hand.\n")


def test_adopting_a_hand_edit_records_a_user_change_in_one_run(handle: Memoir) -> None:
    path = handle.home / "skills/dev/foo/SKILL.md"
    path.write_text(skill_md("foo", "Edited by hand.\n"))
    report = adopt_skills(handle)
    events = report.events
    assert isinstance(events[0].data, RunStarted) and events[0].data.kind == "adopt"
    assert all(e.actor == "user" and e.run == report.run for e in events)
    change = events[1].data
    assert isinstance(change, SkillContentSet)
    assert change.content == skill_md("foo", "Edited by hand.\n")
    assert change.previous == skill_md("foo")
    assert skills_drift(handle) == []
    assert skill_manage_call(handle, {"action": "patch", "name": "foo", "old_string": "Edited",
                                      "new_string": "Fixed"}, by="agent")["success"]
    handle.flush()
    assert path.read_text() == skill_md("foo", "Fixed by hand.\n")


def test_support_files_added_changed_and_removed_by_hand_are_adopted(handle: Memoir) -> None:
    folder = handle.home / "skills/dev/foo"
    (folder / "references/r.md").unlink()
    (folder / "scripts").mkdir()
    (folder / "scripts/run.sh").write_text("echo hi\n")
    assert kinds(skills_drift(handle)) == [
        ("removed", "skills/dev/foo/references/r.md"),
        ("added", "skills/dev/foo/scripts/run.sh"),
    ]
    events = [e.data for e in adopt_skills(handle).events[1:]]
    assert [type(e) for e in events] == [SkillFileRemoved, SkillFileWritten]
    record = handle.state.skills.skills["foo"]
    assert record.files == {"scripts/run.sh": "echo hi\n"}
    assert skills_drift(handle) == []


def test_a_new_skill_folder_made_by_hand_becomes_a_user_skill(handle: Memoir) -> None:
    folder = handle.home / "skills/notes/mine"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_md("mine"))
    (folder / "references/a.md").write_text("A\n")
    (folder / "README.txt").write_text("not a support file\n")
    report = adopt_skills(handle)
    created = report.events[1].data
    assert isinstance(created, SkillCreated)
    assert (created.name, created.category, created.provenance) == ("mine", "notes", "user")
    assert created.files == {"references/a.md": "A\n"}
    assert "skills/notes/mine/README.txt" in report.ignored
    record = handle.state.skills.skills["mine"]
    assert record.created_by == "user"
    assert memoir.skills.check_background_change(handle.state, "curator", "mine", "edit")


def test_a_skill_folder_removed_by_hand_is_adopted_as_a_deletion(handle: Memoir) -> None:
    shutil.rmtree(handle.home / "skills/dev/foo")
    [_run, deleted] = [e.data for e in adopt_skills(handle).events]
    assert isinstance(deleted, SkillDeleted) and deleted.content == skill_md("foo")
    assert "foo" not in handle.state.skills.skills


def test_a_hand_edit_that_breaks_the_rules_is_refused_whole(handle: Memoir) -> None:
    (handle.home / "skills/dev/foo/references/r.md").write_text("changed\n")
    # A person's SKILL.md need not have frontmatter (Hermes loads it anyway), but it
    # cannot be empty.
    (handle.home / "skills/dev/foo/SKILL.md").write_text("  \n")
    head = handle.head
    with pytest.raises(ValidationError, match=r"skills/dev/foo/SKILL\.md"):
        adopt_skills(handle)
    assert handle.head == head


def test_a_pinned_skill_removed_by_hand_is_not_adopted(handle: Memoir) -> None:
    handle.commit(lambda s: memoir.Decision(events=memoir.skills.pin_events(
        s, "foo", actor="user")), by="user")
    handle.flush()
    shutil.rmtree(handle.home / "skills/dev/foo")
    with pytest.raises(ValidationError, match="pinned"):
        adopt_skills(handle)


def test_an_edited_usage_file_is_reported_but_not_adopted(handle: Memoir) -> None:
    (handle.home / "skills/.usage.json").write_text("{}")
    assert kinds(skills_drift(handle)) == [("modified", "skills/.usage.json")]
    report = adopt_skills(handle)
    assert report.events == [] and "skills/.usage.json" in report.ignored
