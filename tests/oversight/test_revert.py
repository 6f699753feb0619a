"""Reverting runs: memory writes, skill changes, curator passes, adoptions, CLI edits and
reverts themselves; conflicts with later changes are reported and resolved on request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memoir.api import Memoir
from memoir.clock import FakeClock
from memoir.curator import pause, run_pass
from memoir.engine.commit import Caller
from memoir.errors import NotFoundError, ValidationError
from memoir.events.skills import SkillFileWritten
from memoir.memory.commands import memory_call
from memoir.oversight.revert import RevertConflict, last_curator_run, revert_run
from memoir.skills import skill_manage_call
from tests.support.curator import START, commit, create, open_home, use


def remember(m: Memoir, run: str, **args: Any) -> None:
    args.setdefault("target", "memory")
    result, _ = memory_call(m, args, by=Caller(actor="user", run=run, run_kind="cli"))
    assert result["success"], result


def texts(m: Memoir, target: str = "memory") -> list[str]:
    return m.state.memory.target(target).texts()


def test_reverting_an_add_removes_the_entry_and_the_file_follows(home: Path) -> None:
    m = open_home(home)
    remember(m, "cli-1", action="add", content="Uses tabs")
    remember(m, "cli-2", action="add", content="Likes tea")
    plan = revert_run(m, "cli-1")
    assert texts(m) == ["Likes tea"]
    m.flush()
    assert (home / "memories/MEMORY.md").read_text(encoding="utf-8") == "Likes tea"
    assert m.state.runs[plan.run_id].kind == "revert"
    assert [e.type for e in plan.events if e.run == plan.run_id][:2] == [
        "run.started", "run.reverted"]


def test_removed_entries_come_back_with_their_ids_in_their_places(home: Path) -> None:
    m = open_home(home)
    for text in ("one", "two", "three", "four"):
        remember(m, f"cli-{text}", action="add", content=text)
    ids = [e.id for e in m.state.memory.memory.entries]
    remember(m, "cli-rm", action="remove", old_text="two")
    remember(m, "cli-rm2", action="remove", old_text="one")
    revert_run(m, "cli-rm2")
    revert_run(m, "cli-rm")
    assert texts(m) == ["one", "two", "three", "four"]
    assert [e.id for e in m.state.memory.memory.entries] == ids


def test_reverting_a_replace_puts_the_old_text_back(home: Path) -> None:
    m = open_home(home)
    remember(m, "cli-a", action="add", content="Prefers vim", target="user")
    remember(m, "cli-b", action="replace", old_text="vim", content="Prefers emacs",
             target="user")
    revert_run(m, "cli-b")
    assert texts(m, "user") == ["Prefers vim"]


def test_a_revert_can_be_reverted(home: Path) -> None:
    m = open_home(home)
    remember(m, "cli-a", action="add", content="alpha")
    remember(m, "cli-b", action="add", content="beta")
    undo = revert_run(m, "cli-b")
    redo = revert_run(m, undo.run_id)
    assert texts(m) == ["alpha", "beta"]
    assert m.state.runs["cli-b"].reverted_by is None
    assert m.state.runs[undo.run_id].reverted_by == redo.run_id
    assert m.state.runs[undo.run_id].reverts == "cli-b"


def test_a_run_reverted_once_cannot_be_reverted_again(home: Path) -> None:
    m = open_home(home)
    remember(m, "cli-a", action="add", content="alpha")
    undo = revert_run(m, "cli-a")
    with pytest.raises(ValidationError, match=f"already reverted by run {undo.run_id}"):
        revert_run(m, "cli-a")
    with pytest.raises(NotFoundError, match="no run 'nope'"):
        revert_run(m, "nope")


def test_a_chain_of_reverts_says_which_runs_stand(home: Path) -> None:
    # Each link of revert-of-revert stands exactly when the one that undid it does not;
    # the run history says so after every step and after a fold from the journal.
    m = open_home(home)
    remember(m, "cli-a", action="add", content="alpha")
    first = revert_run(m, "cli-a").run_id
    second = revert_run(m, first).run_id
    third = revert_run(m, second).run_id
    assert texts(m) == []
    runs = m.state.runs
    assert runs["cli-a"].reverted_by == first  # undone again once `first` stands again
    assert runs[first].reverted_by is None
    assert runs[second].reverted_by == third
    assert runs[third].reverts == second
    with pytest.raises(ValidationError, match=f"already reverted by run {first}"):
        revert_run(m, "cli-a")
    m.close()
    m = open_home(home)
    m.rebuild()
    assert {r: (i.reverted_by, i.reverts) for r, i in m.state.runs.items()} == {
        "cli-a": (first, None), first: (None, "cli-a"), second: (third, first),
        third: (None, second)}
    m.close()


def test_later_changes_to_the_same_entity_block_the_revert_unless_told(home: Path) -> None:
    m = open_home(home)
    remember(m, "cli-a", action="add", content="alpha")
    remember(m, "cli-b", action="add", content="beta")
    remember(m, "cli-c", action="replace", old_text="alpha", content="ALPHA")
    head = m.head
    with pytest.raises(RevertConflict, match="--force") as info:
        revert_run(m, "cli-a")
    assert [c.entity for c in info.value.plan.conflicts] == [
        f"memory:memory:{m.state.memory.memory.entries[0].id}"]
    assert m.head == head
    dry = revert_run(m, "cli-a", dry_run=True)
    assert dry.conflicts and m.head == head
    with pytest.raises(ValidationError, match="nothing to revert"):
        revert_run(m, "cli-a", on_conflict="skip")
    assert m.head == head and texts(m) == ["ALPHA", "beta"]
    forced = revert_run(m, "cli-a", on_conflict="force")
    assert forced.resolution == "force" and texts(m) == ["beta"]


def test_skip_reverts_only_the_untouched_entities(home: Path) -> None:
    m = open_home(home)
    result, _ = memory_call(m, {"operations": [
        {"action": "add", "target": "memory", "content": "kept by later edit"},
        {"action": "add", "target": "memory", "content": "untouched"}]},
            by=Caller(actor="user", run="cli-batch", run_kind="cli"))
    assert result["success"], result
    remember(m, "cli-later", action="replace", old_text="kept", content="edited later")
    plan = revert_run(m, "cli-batch", on_conflict="skip")
    assert len(plan.skipped) == 1
    assert texts(m) == ["edited later"]


def test_reverting_an_adoption_restores_the_entries_before_the_hand_edit(home: Path) -> None:
    m = open_home(home)
    remember(m, "cli-a", action="add", content="first")
    remember(m, "cli-b", action="add", content="second")
    m.flush()
    (home / "memories/MEMORY.md").write_text("second\n§\nhand written\n§\nfirst",
                                             encoding="utf-8")
    run, _events = m.adopt()
    assert texts(m) == ["second", "hand written", "first"]
    revert_run(m, run)
    assert texts(m) == ["first", "second"]
    m.flush()
    assert (home / "memories/MEMORY.md").read_text(encoding="utf-8") == "first\n§\nsecond"


def test_a_created_skill_is_deleted_and_comes_back_when_the_revert_is_reverted(
        home: Path) -> None:
    m = open_home(home)
    result = skill_manage_call(m, {"action": "create", "name": "deploy", "content": (
        "---\nname: deploy\ndescription: Ship it\n---\nRun make deploy.\n")},
            by=Caller(actor="reviewer.skills", run="review-1", run_kind="review"))
    assert result["success"], result
    m.flush()
    assert (home / "skills/deploy/SKILL.md").exists()
    undo = revert_run(m, "review-1")
    assert "deploy" not in m.state.skills.skills
    m.flush()
    assert not (home / "skills/deploy/SKILL.md").exists()
    assert [e.actor for e in undo.events if e.type == "skill.deleted"] == ["user"]
    revert_run(m, undo.run_id)
    record = m.state.skills.skills["deploy"]
    assert record.created_by == "agent" and record.content.endswith("Run make deploy.\n")


def test_skill_edits_files_pins_and_states_are_put_back(home: Path) -> None:
    m = open_home(home)
    create(m, "tool", files={"references/a.md": "A"})
    pin_run = "cli-pin"
    commit(m, [
        SkillFileWritten(name="tool", file="references/a.md", content="A2", previous="A"),
        SkillFileWritten(name="tool", file="scripts/x.sh", content="x"),
    ], actor="user", run=pin_run)
    skill_manage_call(m, {"action": "edit", "name": "tool", "content": (
        "---\nname: tool\ndescription: New\n---\nnew body\n")},
            by=Caller(actor="user", run="cli-edit", run_kind="cli"))
    revert_run(m, "cli-edit")
    revert_run(m, pin_run)
    record = m.state.skills.skills["tool"]
    assert record.files == {"references/a.md": "A"}
    assert "Steps for tool." in record.content
    m.flush()
    assert not (home / "skills/tool/scripts/x.sh").exists()


def test_rolling_back_a_curator_pass_restores_skills_and_keeps_later_telemetry(
        home: Path) -> None:
    clock = FakeClock(START)
    m = open_home(home, clock=clock)
    for name in ("pdf-a", "pdf-b", "idle"):
        create(m, name)
    clock.advance(days=94)
    use(m, "pdf-a")
    use(m, "pdf-b")
    clock.advance(days=1)
    result = run_pass(m, use_rules=True)
    assert result is not None
    assert m.state.skills.skills["idle"].state == "archived"
    use(m, "pdf")  # the new umbrella is used after the pass: telemetry, not a change
    assert last_curator_run(m.state) == result.run_id
    plan = revert_run(m, result.run_id)
    assert plan.conflicts == []
    skills = m.state.skills.skills
    assert {n: skills[n].state for n in ("pdf-a", "pdf-b", "idle")} == {
        "pdf-a": "active", "pdf-b": "active", "idle": "active"}
    assert "pdf" not in skills
    assert skills["pdf-a"].use_count == 1
    m.flush()
    assert (home / "skills/pdf-a/SKILL.md").exists()
    assert not (home / "skills/.archive/pdf-a/SKILL.md").exists()
    assert last_curator_run(m.state) is None
    # The pass stays on record: the schedule is not rewound.
    assert m.state.curator.run_count == 1


def test_reverting_a_pause_resumes_the_curator(home: Path) -> None:
    m = open_home(home)
    run = pause(m)
    assert run is not None
    revert_run(m, run)
    assert m.state.curator.paused is False
