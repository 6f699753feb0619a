"""Where memoir is deliberately not Hermes (docs/differences.md), memoir's behaviour.

The differential tests (test_hermes_differential.py, test_skills_parity.py) check that
memoir does what Hermes 0.19.0 does, call for call.  These check the cases where it
does better on purpose, each named after the line of docs/differences.md it backs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import memoir
from memoir.clock import FakeClock
from memoir.config import Config
from memoir.curator import run_pass
from memoir.memory.commands import MEMORY_SCHEMA
from memoir.skills import skill_manage_call


def skill(name: str, body: str = "1. Do the thing.\n") -> str:
    return f"---\nname: {name}\ndescription: how to {name}\n---\n# {name}\n\n{body}"


def manage(handle: memoir.Memoir, actor: str = "agent", **args: Any) -> dict[str, Any]:
    return skill_manage_call(handle, args, by=actor)


def open_home(path: Path, raw: dict[str, Any] | None = None,
              clock: FakeClock | None = None) -> memoir.Memoir:
    config = Config.model_validate(raw) if raw else None
    return memoir.open(path, config=config, clock=clock or FakeClock())


# -- skills ----------------------------------------------------------------------------------


def test_skill_md_cannot_be_removed_as_a_support_file(tmp_path: Path) -> None:
    with open_home(tmp_path / "home") as h:
        manage(h, action="create", name="foo", content=skill("foo"))
        result = manage(h, action="remove_file", name="foo", file_path="SKILL.md")
        assert result == {"success": False,
                          "error": "SKILL.md cannot be removed; delete the skill instead."}
        h.flush()
        assert (h.home / "skills/foo/SKILL.md").is_file()


def test_a_background_write_to_a_skill_a_person_owns_is_refused_before_any_view(
        tmp_path: Path) -> None:
    # Hermes lets it through its ownership guard until a view has created a telemetry
    # record, and refuses it only for the missing read.
    with open_home(tmp_path / "home") as h:
        manage(h, action="create", name="asked", content=skill("asked"))
        result = manage(h, actor="reviewer.skills", action="patch", name="asked",
                        old_string="Do", new_string="Did")
        assert result["success"] is False and "not agent-created" in result["error"]
        assert h.state.skills.skills["asked"].content == skill("asked")


def test_the_curator_never_archives_a_skill_a_person_asked_for(tmp_path: Path) -> None:
    clock = FakeClock("2026-01-01T00:00:00+00:00")
    with open_home(tmp_path / "home", clock=clock) as h:
        manage(h, action="create", name="asked", content=skill("asked"))
        manage(h, actor="reviewer.skills", action="create", name="learned",
               content=skill("learned"))
        assert h.state.skills.skills["asked"].created_by == "user"
        clock.advance(days=200)
        run_pass(h)
        states = {n: r.state for n, r in h.state.skills.skills.items()}
        assert states == {"asked": "active", "learned": "archived"}
        h.flush()
        usage = (h.home / "skills/.usage.json").read_text()
        assert '"created_by": null' in usage and '"created_by": "agent"' in usage


def test_deleting_a_skill_removes_its_folder_and_an_emptied_category(tmp_path: Path) -> None:
    with open_home(tmp_path / "home") as h:
        manage(h, action="create", name="foo", content=skill("foo"), category="dev")
        manage(h, action="write_file", name="foo", file_path="references/a.md",
               file_content="a")
        h.flush()
        (h.home / "skills/dev/foo/templates").mkdir()
        (h.home / "skills/dev/foo/templates/mine.md").write_text("a person's template")
        assert manage(h, action="delete", name="foo")["success"] is True
        h.flush()
        assert not (h.home / "skills/dev").exists()
        # The person's file was adopted first: the journal keeps every file deleted.
        [deleted] = [e.data for e in h.events(types=["skill.deleted"])]
        assert deleted.files == {"references/a.md": "a",  # type: ignore[attr-defined]
                                 "templates/mine.md": "a person's template"}


def test_a_file_that_cannot_join_the_journal_keeps_its_skill_from_deletion(
        tmp_path: Path) -> None:
    with open_home(tmp_path / "home") as h:
        manage(h, action="create", name="foo", content=skill("foo"))
        h.flush()
        (h.home / "skills/foo/notes.txt").write_text("mine, outside the support folders")
        result = manage(h, action="delete", name="foo")
        assert result["success"] is False and "skills/foo/notes.txt" in result["error"]
        assert "move it out of skills/foo/" in result["error"]
        h.flush()
        assert (h.home / "skills/foo/notes.txt").read_text().startswith("mine")
        # A change that does not touch the stray file goes through.
        assert manage(h, action="patch", name="foo", old_string="Do",
                      new_string="Did")["success"] is True


def test_hand_placed_skills_wait_for_memoir_adopt_when_adoption_is_off(tmp_path: Path) -> None:
    with open_home(tmp_path / "home", {"skills": {"adopt_hand_edits": False}}) as h:
        (h.home / "skills/handmade").mkdir(parents=True)
        (h.home / "skills/handmade/SKILL.md").write_text(skill("handmade"))
        result = manage(h, action="patch", name="handmade", old_string="Do",
                        new_string="Did")
        assert result["success"] is False and "not found" in result["error"]
        assert "handmade" not in h.state.skills.skills


# -- memory ------------------------------------------------------------------------------------


def test_an_add_to_a_malformed_file_is_refused_with_a_backup(tmp_path: Path) -> None:
    # Hermes's add skips its drift guard and rewrites the file from what it parses,
    # losing the spacing (and any text its parse drops); memoir refuses and keeps it.
    with open_home(tmp_path / "home") as h:
        session = h.start_session()
        session.call_tool("memory", {"action": "add", "content": "kept"})
        h.flush()
        memory_md = h.home / "memories/MEMORY.md"
        memory_md.write_text("kept\n\n§\n\nsloppy spacing")
        result = h.start_session().call_tool("memory", {"action": "add", "content": "new"})
        assert result["success"] is False
        assert result["error"].startswith("Refusing to write MEMORY.md: ")
        assert (h.home / result["drift_backup"]).read_text() == "kept\n\n§\n\nsloppy spacing"
        assert memory_md.read_text() == "kept\n\n§\n\nsloppy spacing"
        assert h.state.memory.target("memory").texts() == ["kept"]


def test_a_new_session_adopts_a_well_formed_hand_edit_before_pinning_its_prompt(
        tmp_path: Path) -> None:
    with open_home(tmp_path / "home") as h:
        h.start_session().call_tool("memory", {"action": "add", "target": "user",
                                               "content": "Name: Ada"})
        h.flush()
        (h.home / "memories/USER.md").write_text("Name: Ada\n§\nPrefers tea")
        session = h.start_session()
        block = session.prompt_blocks()["user"]
        assert block is not None and block.endswith("Name: Ada\n§\nPrefers tea")
        [run] = [e for e in h.events(types=["run.started"]) if e.actor == "user"]
        assert f"session {session.id} started" in run.data.summary  # type: ignore[attr-defined]


def test_the_memory_tool_steers_task_logs_to_session_search() -> None:
    description = MEMORY_SCHEMA["function"]["description"]
    assert "session_search" in description
    assert "not a diary" in description and "task progress" in description
    # Hermes's schema names "temporary TODO state" among what session_search keeps.
    assert "temporary todo state" in description.lower()
