"""``memoir skills …`` as a person uses it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import memoir
from memoir.cli import cli
from memoir.events.runs import RunStarted
from memoir.skills import skill_manage_call


def skill_md(name: str, body: str = "Do the thing.\n") -> str:
    return f"---\nname: {name}\ndescription: the {name} skill\n---\n{body}"


def run(home: Path, *args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, ["skills", *args, "--home", str(home)], input=input)


@pytest.fixture
def seeded(home: Path, tmp_path: Path) -> Path:
    source = tmp_path / "SKILL.md"
    source.write_text(skill_md("deploy"))
    assert run(home, "create", "deploy", "--file", str(source), "--category", "ops").exit_code == 0
    return home


def test_the_root_lists_the_group_and_loads_it_on_use() -> None:
    import click

    import memoir.commands.skills

    ctx = click.Context(cli)
    assert "skills" in cli.list_commands(ctx)
    assert cli.get_command(ctx, "skills") is memoir.commands.skills.skills_group


def test_create_adds_a_user_skill_as_one_run(seeded: Path) -> None:
    handle = memoir.open(seeded)
    record = handle.state.skills.skills["deploy"]
    assert (record.provenance, record.created_by, record.category) == ("user", "user", "ops")
    first, created = list(handle.events(types=["run.started", "skill.*"]))
    assert isinstance(first.data, RunStarted) and first.data.kind == "cli"
    assert created.run == first.data.run_id and created.actor == "user"
    assert (seeded / "skills/ops/deploy/SKILL.md").read_text() == skill_md("deploy")


def test_create_refuses_an_invalid_file_in_one_line(home: Path, tmp_path: Path) -> None:
    source = tmp_path / "SKILL.md"
    source.write_text("# no frontmatter\n")
    result = run(home, "create", "deploy", "--file", str(source))
    assert result.exit_code == 4 and "must start with YAML frontmatter" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_list_shows_skills_and_json(seeded: Path) -> None:
    result = run(seeded, "list")
    assert result.exit_code == 0 and "deploy" in result.output and "ops" in result.output
    rows = json.loads(run(seeded, "list", "--json").output)
    assert rows[0]["name"] == "deploy" and rows[0]["provenance"] == "user"


def test_show_prints_any_version_and_history_lists_them(seeded: Path) -> None:
    handle = memoir.open(seeded)
    first = handle.head
    skill_manage_call(handle, {"action": "patch", "name": "deploy", "old_string": "thing",
                               "new_string": "deploy"}, by="agent")
    assert run(seeded, "show", "deploy").output == skill_md("deploy", "Do the deploy.\n")
    old = run(seeded, "show", "deploy", "--at", str(first))
    assert old.output == skill_md("deploy")
    missing = run(seeded, "show", "deploy", "--at", "1")
    assert missing.exit_code == 3 and "no skill named 'deploy' at seq 1" in missing.output
    history = run(seeded, "history", "deploy").output.splitlines()
    assert len(history) == 2
    assert "skill.created" in history[0] and "user" in history[0]
    assert "skill.patched" in history[1] and "agent" in history[1]
    entries = json.loads(run(seeded, "history", "deploy", "--json").output)
    assert [e["type"] for e in entries] == ["skill.created", "skill.patched"]


def test_show_file_reads_a_support_file(seeded: Path) -> None:
    handle = memoir.open(seeded)
    skill_manage_call(handle, {"action": "write_file", "name": "deploy",
                               "file_path": "references/r.md", "file_content": "R\n"}, by="agent")
    assert run(seeded, "show", "deploy", "--file", "references/r.md").output == "R\n"
    assert run(seeded, "show", "deploy", "--file", "references/x.md").exit_code == 3


def test_pin_archive_restore_and_delete(seeded: Path) -> None:
    assert "pinned 'deploy'" in run(seeded, "pin", "deploy").output
    assert "already pinned" in run(seeded, "pin", "deploy").output
    refused = run(seeded, "archive", "deploy")
    assert refused.exit_code == 4 and "pinned" in refused.output
    assert run(seeded, "unpin", "deploy").exit_code == 0
    assert run(seeded, "archive", "deploy", "--reason", "done").exit_code == 0
    assert (seeded / "skills/.archive/ops/deploy/SKILL.md").exists()
    assert "deploy" not in run(seeded, "list").output
    assert "deploy" in run(seeded, "list", "--all").output
    assert run(seeded, "restore", "deploy").exit_code == 0
    assert (seeded / "skills/ops/deploy/SKILL.md").exists()
    assert run(seeded, "delete", "deploy", input="n\n").exit_code == 1
    deleted = run(seeded, "delete", "deploy", "--yes")
    assert deleted.exit_code == 0 and "memoir skills show deploy --at" in deleted.output
    assert not (seeded / "skills/ops/deploy/SKILL.md").exists()
    assert run(seeded, "pin", "ghost").exit_code == 3


def test_import_brings_a_hermes_tree_in_as_one_run(home: Path, tmp_path: Path) -> None:
    source = tmp_path / "hermes-skills"
    (source / "dev/lint/references").mkdir(parents=True)
    (source / "dev/lint/SKILL.md").write_text(skill_md("lint"))
    (source / "dev/lint/references/rules.md").write_text("rules\n")
    (source / "dev/lint/logo.png").write_bytes(b"\x89PNG\x00\xff")
    (source / "plan").mkdir()
    (source / "plan/SKILL.md").write_text(skill_md("plan"))
    (source / "mine").mkdir()
    (source / "mine/SKILL.md").write_text(skill_md("mine"))
    (source / "odd").mkdir()
    (source / "odd/SKILL.md").write_text(skill_md("not-odd"))
    (source / ".bundled_manifest").write_text("plan:abc\n")
    (source / ".hub").mkdir()
    (source / ".hub/lock.json").write_text(json.dumps({"version": 1, "installed": {"lint": {}}}))
    (source / ".usage.json").write_text(json.dumps(
        {"mine": {"created_by": "agent", "pinned": True}}))
    result = run(home, "import", str(source))
    assert result.exit_code == 0, result.output
    # A frontmatter name that differs from the folder's is Hermes's case too: the
    # folder names the skill.
    assert "imported 4 skill(s)" in result.output
    assert "odd/SKILL.md" not in result.output and "logo.png" in result.output
    skills = memoir.open(home).state.skills.skills
    assert skills["lint"].provenance == "hub" and skills["lint"].category == "dev"
    assert skills["lint"].files == {"references/rules.md": "rules\n"}
    assert (skills["plan"].provenance, skills["plan"].protected) == ("bundled", True)
    assert (skills["mine"].provenance, skills["mine"].created_by) == ("import", "agent")
    assert skills["mine"].pinned is True
    again = run(home, "import", str(source))
    assert "nothing imported" in again.output and "already exists" in again.output


def test_adopt_records_hand_edits(seeded: Path) -> None:
    (seeded / "skills/ops/deploy/SKILL.md").write_text(skill_md("deploy", "By hand.\n"))
    result = run(seeded, "adopt")
    assert result.exit_code == 0 and "adopted 1 file(s)" in result.output
    assert "nothing to adopt" in run(seeded, "adopt").output
