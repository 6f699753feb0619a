"""``skill_manage``, ``skill_view`` and ``skills_list`` through a session: Hermes's
arguments and results, every change an event with the full new and old text."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import memoir
import memoir.skills
from memoir.api import Memoir
from memoir.clock import FakeClock
from memoir.engine.commit import Caller
from memoir.errors import NotFoundError
from memoir.events.skills import (
    SkillContentSet,
    SkillCreated,
    SkillDeleted,
    SkillFileRemoved,
    SkillFileWritten,
    SkillPatched,
    SkillWriteRejected,
)
from memoir.events.types import Payload
from memoir.projections.state import State
from memoir.sessions.session import Session
from memoir.skills import record_use, skill_at, skill_history


def skill_md(name: str = "foo", description: str = "does foo",
             body: str = "# Foo\n\n1. Run `make`.\n2. Check the output.\n") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


@pytest.fixture
def handle(home: Path) -> Memoir:
    return memoir.open(home, clock=FakeClock())


@pytest.fixture
def agent(handle: Memoir) -> Session:
    return handle.start_session()


def manage(session: Session, **args: Any) -> dict[str, Any]:
    return session.call_tool("skill_manage", args)


def last_skill_events(handle: Memoir) -> list[Any]:
    return [e.data for e in handle.events(types=["skill.*"])]


def test_the_three_tools_are_listed_with_hermes_arguments() -> None:
    schemas = {s["function"]["name"]: s["function"] for s in memoir.tool_schemas()}
    manage_params = schemas["skill_manage"]["parameters"]
    assert set(manage_params["properties"]) == {
        "action", "name", "content", "category", "file_path", "file_content", "old_string",
        "new_string", "replace_all", "absorbed_into"}
    assert manage_params["required"] == ["action", "name"]
    assert manage_params["properties"]["action"]["enum"] == [
        "create", "patch", "edit", "delete", "write_file", "remove_file"]
    assert schemas["skill_view"]["parameters"]["required"] == ["name"]
    assert set(schemas["skill_view"]["parameters"]["properties"]) == {"name", "file_path"}
    assert set(schemas["skills_list"]["parameters"]["properties"]) == {"category"}


def test_create_writes_the_skill_and_answers_like_hermes(handle: Memoir, agent: Session) -> None:
    result = manage(agent, action="create", name="foo", content=skill_md(), category="dev")
    assert result["success"] is True
    assert result["message"] == "Skill 'foo' created."
    assert result["path"] == "dev/foo"
    # Absolute, as Hermes answers: the path opens as it is.
    assert result["skill_md"] == str(handle.home / "skills/dev/foo/SKILL.md")
    assert result["category"] == "dev"
    assert result["_change"] == {"description": "does foo"}  # read by Hermes's review
    assert "write_file" in result["hint"]
    agent.engine.flush()
    assert (handle.home / "skills/dev/foo/SKILL.md").read_text() == skill_md()
    [created] = last_skill_events(handle)
    assert isinstance(created, SkillCreated)
    assert (created.provenance, created.category, created.content) == ("agent", "dev", skill_md())


@pytest.mark.parametrize(("args", "fragment"), [
    ({"name": "Foo", "content": skill_md()}, "Invalid skill name 'Foo'"),
    ({"name": "foo", "content": skill_md(), "category": "a/b"}, "Invalid category"),
    ({"name": "foo", "content": "no frontmatter"}, "frontmatter"),
    ({"name": "foo"}, "content is required"),
])
def test_create_refuses_invalid_input_and_appends_nothing(
    handle: Memoir, agent: Session, args: dict[str, Any], fragment: str
) -> None:
    head = handle.head
    result = manage(agent, action="create", **args)
    assert result["success"] is False and fragment in result["error"]
    assert handle.head == head


def test_an_archived_skill_frees_its_name_and_is_kept_under_a_suffixed_one(
        handle: Memoir, agent: Session) -> None:
    manage(agent, action="create", name="foo", content=skill_md(body="first\n"))
    assert "already exists" in manage(agent, action="create", name="foo",
                                      content=skill_md())["error"]

    def archive(s: State) -> list[Payload]:
        return memoir.skills.archive_events(s, "foo", actor="user", reason="old")

    handle.commit(lambda s: memoir.Decision(events=archive(s)), by="user")
    again = manage(agent, action="create", name="foo", content=skill_md(body="second\n"))
    assert again["success"] is True
    skills = handle.state.skills.skills
    [kept] = [k for k in skills if k.startswith("foo-")]
    assert re.fullmatch(r"foo-\d{14}", kept) and skills[kept].archived
    assert skills[kept].content == skill_md(body="first\n")
    handle.flush()
    assert (handle.home / "skills/foo/SKILL.md").read_text() == skill_md(body="second\n")
    assert (handle.home / f"skills/.archive/{kept}/SKILL.md").read_text() == \
        skill_md(body="first\n")
    assert not (handle.home / "skills/.archive/foo").exists()
    # Archive the new one too: restoring "foo" brings back the one archived last, and
    # then, the name being free again, the older copy under its own name.
    handle.commit(lambda s: memoir.Decision(events=archive(s)), by="user")

    def restore(s: State) -> list[Payload]:
        return memoir.skills.restore_events(s, "foo", actor="user")

    handle.commit(lambda s: memoir.Decision(events=restore(s)), by="user")
    assert handle.state.skills.live("foo").content == skill_md(body="second\n")
    with pytest.raises(memoir.ValidationError, match="destination already exists"):
        handle.commit(lambda s: memoir.Decision(events=restore(s)), by="user")
    manage(agent, action="delete", name="foo")
    handle.commit(lambda s: memoir.Decision(events=restore(s)), by="user")
    assert handle.state.skills.live("foo").content == skill_md(body="first\n")
    assert [k for k in handle.state.skills.skills] == ["foo"]
    handle.flush()
    assert (handle.home / "skills/foo/SKILL.md").read_text() == skill_md(body="first\n")
    assert not (handle.home / "skills/.archive").exists() or \
        not any((handle.home / "skills/.archive").rglob("SKILL.md"))
    # Rebuilt from the journal alone, the tree is the same.
    assert handle.rebuild() == []


def test_folders_never_nest_inside_another_skill(agent: Session) -> None:
    manage(agent, action="create", name="tools", content=skill_md("tools"))
    clash = manage(agent, action="create", name="x", content=skill_md("x"), category="tools")
    assert clash["success"] is False and "Category" in clash["error"]
    manage(agent, action="create", name="y", content=skill_md("y"), category="ops")
    assert manage(agent, action="create", name="ops", content=skill_md("ops"))["success"] is False


def test_edit_records_the_new_and_the_replaced_text(handle: Memoir, agent: Session) -> None:
    manage(agent, action="create", name="foo", content=skill_md())
    new = skill_md(body="# Foo\n\nBetter steps.\n")
    result = manage(agent, action="edit", name="foo", content=new)
    assert result["message"] == "Skill 'foo' updated (full rewrite)."
    event = last_skill_events(handle)[-1]
    assert isinstance(event, SkillContentSet)
    assert (event.content, event.previous) == (new, skill_md())
    agent.engine.flush()
    assert (handle.home / "skills/foo/SKILL.md").read_text() == new
    missing = manage(agent, action="edit", name="nope", content=skill_md("nope"))
    assert "not found" in missing["error"]


def test_patch_is_fuzzy_and_records_both_versions(handle: Memoir, agent: Session) -> None:
    manage(agent, action="create", name="foo", content=skill_md())
    result = manage(agent, action="patch", name="foo",
                    old_string="1. Run `make`.   \n   2. Check the output.",
                    new_string="1. Run `make test`.\n2. Check the output.")
    assert result == {
        "success": True,
        "message": "Patched SKILL.md in skill 'foo' (1 replacement).",
        # Hermes's _change, which its background review reads, reaches the model too.
        "_change": {"old": "1. Run `make`.   \n   2. Check the output.",
                    "new": "1. Run `make test`.\n2. Check the output."},
    }
    event = last_skill_events(handle)[-1]
    assert isinstance(event, SkillPatched)
    assert event.previous == skill_md() and "make test" in event.content
    assert event.replacements == 1 and event.file == "SKILL.md"


def test_a_failed_patch_shows_the_error_and_a_preview(handle: Memoir, agent: Session) -> None:
    manage(agent, action="create", name="foo", content=skill_md())
    head = handle.head
    result = manage(agent, action="patch", name="foo", old_string="Ru `mak`",
                    new_string="x")
    assert result["success"] is False and result["file_preview"] == skill_md()
    broken = manage(agent, action="patch", name="foo", old_string="description: does foo\n",
                    new_string="")
    assert broken["error"].startswith("Patch would break SKILL.md structure: ")
    assert handle.head == head


def test_replace_all_counts_every_replacement(agent: Session) -> None:
    manage(agent, action="create", name="foo", content=skill_md(body="a\nx\nx\n"))
    assert "Found 2 matches" in manage(agent, action="patch", name="foo", old_string="x",
                                new_string="y")["error"]
    ok = manage(agent, action="patch", name="foo", old_string="x", new_string="y",
                replace_all=True)
    assert ok["message"] == "Patched SKILL.md in skill 'foo' (2 replacements)."


def test_support_files_are_written_patched_and_removed(handle: Memoir, agent: Session) -> None:
    manage(agent, action="create", name="foo", content=skill_md(), category="dev")
    result = manage(agent, action="write_file", name="foo", file_path="references/api.md",
                    file_content="GET /x\n")
    assert result == {"success": True,
                      "message": "File 'references/api.md' written to skill 'foo'.",
                      "path": str(handle.home / "skills/dev/foo/references/api.md")}
    target = handle.home / "skills/dev/foo/references/api.md"
    agent.engine.flush()
    assert target.read_text() == "GET /x\n"
    patched = manage(agent, action="patch", name="foo", file_path="references/api.md",
                     old_string="GET /x", new_string="GET /y")
    assert patched["message"] == "Patched references/api.md in skill 'foo' (1 replacement)."
    missing = manage(agent, action="remove_file", name="foo", file_path="references/b.md")
    assert missing["available_files"] == ["references/api.md"]
    removed = manage(agent, action="remove_file", name="foo", file_path="references/api.md")
    assert removed["message"] == "File 'references/api.md' removed from skill 'foo'."
    agent.engine.flush()
    assert not target.exists()
    kinds = [type(e) for e in last_skill_events(handle)]
    assert kinds == [SkillCreated, SkillFileWritten, SkillPatched, SkillFileRemoved]
    assert last_skill_events(handle)[-1].previous == "GET /y\n"


@pytest.mark.parametrize("file_path", ["../escape.md", "/etc/passwd", "notes/a.md",
                                       "references", "references/../../x"])
def test_file_paths_that_escape_the_skill_are_refused(
    handle: Memoir, agent: Session, file_path: str
) -> None:
    manage(agent, action="create", name="foo", content=skill_md())
    head = handle.head
    result = manage(agent, action="write_file", name="foo", file_path=file_path,
                    file_content="x")
    assert result["success"] is False
    assert handle.head == head
    assert not any(p.name in ("escape.md", "x") for p in handle.home.parent.rglob("*"))


def test_write_file_to_skill_md_is_validated_as_an_edit(handle: Memoir, agent: Session) -> None:
    manage(agent, action="create", name="foo", content=skill_md())
    bad = manage(agent, action="write_file", name="foo", file_path="SKILL.md",
                 file_content="not a skill")
    assert bad["success"] is False
    good = manage(agent, action="write_file", name="foo", file_path="foo/SKILL.md",
                  file_content=skill_md(body="new\n"))
    assert good["success"] is True
    assert isinstance(last_skill_events(handle)[-1], SkillContentSet)


def test_foreground_delete_keeps_the_content_in_the_journal(handle: Memoir,
                                                           agent: Session) -> None:
    manage(agent, action="create", name="foo", content=skill_md(), category="dev")
    manage(agent, action="write_file", name="foo", file_path="assets/a.txt", file_content="A")
    manage(agent, action="create", name="umbrella", content=skill_md("umbrella"))
    before = handle.head
    assert "cannot equal" in manage(agent, action="delete", name="foo",
                                    absorbed_into="foo")["error"]
    assert "does not exist" in manage(agent, action="delete", name="foo",
                                       absorbed_into="zz")["error"]
    result = manage(agent, action="delete", name="foo", absorbed_into="umbrella")
    assert result == {"success": True,
                      "message": "Skill 'foo' deleted. Content absorbed into 'umbrella'."}
    deleted = last_skill_events(handle)[-1]
    assert isinstance(deleted, SkillDeleted)
    assert (deleted.content, deleted.files, deleted.category) == (
        skill_md(), {"assets/a.txt": "A"}, "dev")
    agent.engine.flush()
    assert not (handle.home / "skills/dev/foo").exists() or not any(
        (handle.home / "skills/dev/foo").rglob("*.*"))
    old = skill_at(handle, "foo", before)
    assert old is not None and old.content == skill_md()


def test_pinned_skills_refuse_delete_from_every_actor_and_the_refusal_is_journaled(
    handle: Memoir, agent: Session
) -> None:
    manage(agent, action="create", name="foo", content=skill_md())
    handle.commit(lambda s: memoir.Decision(events=memoir.skills.pin_events(
        s, "foo", actor="user")), by="user")
    result = manage(agent, action="delete", name="foo")
    assert result["success"] is False and "pinned" in result["error"]
    refusal = last_skill_events(handle)[-1]
    assert isinstance(refusal, SkillWriteRejected) and refusal.guard == "pinned"
    assert manage(agent, action="patch", name="foo", old_string="make",
                  new_string="build")["success"] is True


def test_unknown_action_and_missing_arguments(agent: Session) -> None:
    assert "Unknown action 'frob'" in manage(agent, action="frob", name="x")["error"]
    assert "old_string is required" in manage(agent, action="patch", name="x")["error"]
    assert "file_path is required" in manage(agent, action="write_file", name="x")["error"]


def test_skill_view_returns_content_and_counts_one_view(handle: Memoir, agent: Session) -> None:
    manage(agent, action="create", name="foo", content=skill_md(), category="dev")
    manage(agent, action="write_file", name="foo", file_path="references/api.md",
           file_content="API")
    manage(agent, action="write_file", name="foo", file_path="scripts/run.sh",
           file_content="echo")
    view = agent.call_tool("skill_view", {"name": "foo"})
    assert view["success"] is True
    assert (view["name"], view["content"], view["path"]) == ("foo", skill_md(),
                                                             "dev/foo/SKILL.md")
    assert view["linked_files"] == {"references": ["references/api.md"],
                                    "scripts": ["scripts/run.sh"]}
    assert view["readiness_status"] == "available"
    one = agent.call_tool("skill_view", {"name": "foo", "file_path": "references/api.md"})
    assert one == {"success": True, "name": "foo", "file": "references/api.md",
                   "content": "API", "file_type": ".md"}
    missing = agent.call_tool("skill_view", {"name": "foo", "file_path": "references/x.md"})
    assert missing["available_files"] == {"references": ["references/api.md"],
                                          "scripts": ["scripts/run.sh"]}
    record = handle.state.skills.skills["foo"]
    assert (record.view_count, record.use_count) == (2, 0)
    assert agent.call_tool("skill_view", {"name": "nope"})["available_skills"] == ["foo"]
    assert "'..'" in agent.call_tool("skill_view", {"name": "../x"})["error"]


def test_skills_list_lists_live_skills_by_category(handle: Memoir, agent: Session) -> None:
    empty = agent.call_tool("skills_list", {})
    assert empty == {"success": True, "skills": [], "categories": [],
                     "message": "No skills found in skills/ directory."}
    manage(agent, action="create", name="b", content=skill_md("b", "bee"), category="z")
    manage(agent, action="create", name="a", content=skill_md("a", "ay"))
    listing = agent.call_tool("skills_list", {})
    assert listing["skills"] == [{"name": "a", "description": "ay", "category": None},
                                 {"name": "b", "description": "bee", "category": "z"}]
    assert (listing["categories"], listing["count"]) == (["z"], 2)
    only = agent.call_tool("skills_list", {"category": "z"})
    assert [s["name"] for s in only["skills"]] == ["b"]


def test_uses_views_and_patches_are_counted_once_each(handle: Memoir, agent: Session) -> None:
    manage(agent, action="create", name="foo", content=skill_md())
    agent.call_tool("skill_view", {"name": "foo"})
    record_use(handle, "foo", by=Caller(actor="agent", session=agent.id))
    manage(agent, action="patch", name="foo", old_string="make", new_string="build")
    record = handle.state.skills.skills["foo"]
    assert (record.use_count, record.view_count, record.patch_count) == (1, 1, 1)
    assert record.last_activity_at == record.last_patched_at
    with pytest.raises(NotFoundError):
        record_use(handle, "nope")


def test_every_version_can_be_read_back_by_seq(handle: Memoir, agent: Session) -> None:
    manage(agent, action="create", name="foo", content=skill_md())
    manage(agent, action="patch", name="foo", old_string="make", new_string="build")
    manage(agent, action="edit", name="foo", content=skill_md(body="v3\n"))
    versions = skill_history(handle, "foo")
    assert [v.type for v in versions] == ["skill.created", "skill.patched",
                                         "skill.content_set"]
    texts = [skill_at(handle, "foo", v.seq).content for v in versions]  # type: ignore[union-attr]
    assert texts == [skill_md(), skill_md().replace("make", "build"), skill_md(body="v3\n")]
    assert skill_at(handle, "foo", versions[0].seq - 1) is None


def test_the_public_surface_is_sorted_and_importable() -> None:
    names = memoir.skills.__all__
    assert names == sorted(names)
    assert all(hasattr(memoir.skills, name) for name in names)
