"""Skills of ``skills.external_dirs`` changed in place, and journaled.

test_skills_parity.py checks each call against Hermes (results and both trees); these
check what Hermes does not have: the journal's record of each change, its revert,
`memoir diff`, and the limits a journal read back must not cross.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

import memoir
from memoir.cli import cli
from memoir.clock import FakeClock
from memoir.config import Config
from memoir.curator import run_pass
from memoir.engine import Caller, Decision
from memoir.engine.places import external_roots
from memoir.events.skills import SkillCreated
from memoir.oversight.revert import revert_run
from memoir.skills import skill_manage_call, skill_view_call, skills_list_call


def skill(name: str, body: str = "1. Do the thing.\n") -> str:
    return f"---\nname: {name}\ndescription: how to {name}\n---\n# {name}\n\n{body}"


def shared_folder(tmp_path: Path) -> Path:
    shared = tmp_path / "shared"
    (shared / "ops/team-tool/references").mkdir(parents=True)
    (shared / "ops/team-tool/SKILL.md").write_text(skill("team-tool"))
    (shared / "ops/team-tool/references/r.md").write_text("reference")
    return shared


def opened(home: Path, dirs: list[str] | None = None) -> memoir.Memoir:
    config = Config.model_validate({"skills": {"external_dirs": dirs}}) if dirs else None
    handle = memoir.open(home, config=config, clock=FakeClock())
    handle.materializer.fsync = False
    return handle


_RUNS = iter(range(1, 1000))


def manage(handle: memoir.Memoir, **args: object) -> dict[str, object]:
    """One call by the agent, as a run of its own (kind ``cli``)."""
    by = Caller(actor="agent", run=f"cli-{next(_RUNS)}", run_kind="cli")
    return skill_manage_call(handle, dict(args), by=by)


def last_run(handle: memoir.Memoir) -> str:
    run = list(handle.events())[-1].run
    assert run is not None
    return run


def runs(handle: memoir.Memoir, kind: str) -> list[str]:
    return [e.data.run_id for e in handle.events()  # type: ignore[attr-defined]
            if e.type == "run.started" and e.data.kind == kind]  # type: ignore[attr-defined]


def test_a_change_is_journaled_and_written_where_the_skill_lives(tmp_path: Path) -> None:
    shared = shared_folder(tmp_path)
    with opened(tmp_path / "home", [str(shared)]) as h:
        head = h.head
        result = manage(h, action="patch", name="team-tool", old_string="Do", new_string="Did")
        assert result["success"] is True
        h.flush()
        events = [e for e in h.events(after=head) if e.actor != "system"]
        assert [(e.actor, e.type) for e in events] == [
            ("user", "run.started"), ("user", "skill.created"),
            ("agent", "run.started"), ("agent", "skill.patched")]
        created = events[1].data
        assert isinstance(created, SkillCreated)
        assert (created.root, created.provenance, created.category) == \
            (str(shared), "external", "ops")
        assert created.files == {"references/r.md": "reference"}
        assert str(tmp_path) not in json.dumps(events[0].data.summary.replace(  # type: ignore[attr-defined]
            str(shared), "<entry>"))
        # In place: the external folder changed, the home's tree holds no copy.
        assert (shared / "ops/team-tool/SKILL.md").read_text() == \
            skill("team-tool", "1. Did the thing.\n")
        assert not (h.home / "skills/ops").exists()
        assert h.state.skills.skills["team-tool"].root == str(shared)
        listed = skills_list_call(h, {})["skills"]
        assert [(s["name"], s["category"]) for s in listed] == [("team-tool", "ops")]
        view, _mark = skill_view_call(h, {"name": "team-tool"}, by="agent")
        assert view["skill_dir"] == str(shared / "ops/team-tool")
        assert not h.drift()
        assert h.status()["unwritten"] == {}


def test_a_revert_puts_the_external_files_back(tmp_path: Path) -> None:
    shared = shared_folder(tmp_path)
    with opened(tmp_path / "home", [str(shared)]) as h:
        manage(h, action="patch", name="team-tool", old_string="Do", new_string="Did")
        patch_run = last_run(h)
        manage(h, action="delete", name="team-tool")
        delete_run = last_run(h)
        h.flush()
        assert not (shared / "ops").exists()  # the emptied category goes, the root stays
        assert shared.is_dir()
        revert_run(h, delete_run)
        h.flush()
        assert (shared / "ops/team-tool/SKILL.md").read_text() == \
            skill("team-tool", "1. Did the thing.\n")
        assert (shared / "ops/team-tool/references/r.md").read_text() == "reference"
        revert_run(h, patch_run)
        h.flush()
        assert (shared / "ops/team-tool/SKILL.md").read_text() == skill("team-tool")


def test_reverting_the_adoption_forgets_the_skill_and_keeps_its_folder(
        tmp_path: Path) -> None:
    shared = shared_folder(tmp_path)
    with opened(tmp_path / "home", [str(shared)]) as h:
        manage(h, action="patch", name="team-tool", old_string="Do", new_string="Did")
        revert_run(h, last_run(h))
        [adoption] = runs(h, "adopt")
        plan = revert_run(h, adoption)
        assert [type(p).__name__ for p in plan.payloads] == ["RunReverted", "SkillDeleted"]
        h.flush()
        assert "team-tool" not in h.state.skills.skills
        assert (shared / "ops/team-tool/SKILL.md").read_text() == skill("team-tool")
        assert (shared / "ops/team-tool/references/r.md").read_text() == "reference"
        # Read from disk again, as before memoir met it.
        view, _mark = skill_view_call(h, {"name": "team-tool"}, by="agent")
        assert view["content"] == skill("team-tool")


def test_memoir_diff_names_the_external_folder(tmp_path: Path) -> None:
    shared = shared_folder(tmp_path)
    home = tmp_path / "home"
    (home).mkdir()
    (home / "config.yaml").write_text(f"skills:\n  external_dirs:\n    - {shared}\n")
    with memoir.open(home, clock=FakeClock()) as h:
        manage(h, action="patch", name="team-tool", old_string="Do", new_string="Did")
        run = last_run(h)
    out = CliRunner().invoke(cli, ["--home", str(home), "--json", "diff", str(run)])
    assert out.exit_code == 0, out.output
    files = json.loads(out.output)["files"]
    assert [(f["path"], f["added"], f["removed"]) for f in files] == [
        (f"{shared}/ops/team-tool/SKILL.md", 1, 1)]
    assert f"+++ b/{shared}/ops/team-tool/SKILL.md" in files[0]["diff"]
    # `memoir show` (and the web view's diffs, from the same place) name it so too.
    out = CliRunner().invoke(cli, ["--home", str(home), "--json", "show", str(run)])
    assert out.exit_code == 0, out.output
    assert [f["path"] for f in json.loads(out.output)["files"]] == \
        [f"{shared}/ops/team-tool/SKILL.md"]
    # A teammate's edit not adopted yet shows as a hand edit.
    (shared / "ops/team-tool/SKILL.md").write_text(skill("team-tool", "1. Pulled.\n"))
    out = CliRunner().invoke(cli, ["--home", str(home), "--json", "diff"])
    assert out.exit_code == 0, out.output
    assert "+1. Pulled." in json.loads(out.output)["files"][0]["diff"]


def test_a_link_that_leaves_the_external_folder_is_refused(tmp_path: Path) -> None:
    shared = shared_folder(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.md").write_text("not the skill's")
    (shared / "ops/team-tool/templates").symlink_to(elsewhere)
    with opened(tmp_path / "home", [str(shared)]) as h:
        result = manage(h, action="write_file", name="team-tool",
                        file_path="templates/secret.md", file_content="overwritten")
        assert result["success"] is False
        assert str(result["error"]).startswith("Path escapes allowed directory:")
        result = manage(h, action="remove_file", name="team-tool",
                        file_path="templates/secret.md")
        assert result["success"] is False
        view, _ = skill_view_call(h, {"name": "team-tool", "file_path": "templates/secret.md"},
                                  by="agent")
        assert view["success"] is False
        h.flush()
        assert (elsewhere / "secret.md").read_text() == "not the skill's"
        # Changes inside the folder still land.
        assert manage(h, action="patch", name="team-tool", old_string="Do",
                      new_string="Did")["success"] is True


def test_a_journal_never_says_where_an_external_file_goes(tmp_path: Path) -> None:
    """A record naming a folder this home does not configure (another machine's, or a
    forged one) is never written anywhere; the home keeps working."""
    target = tmp_path / "not-configured"
    target.mkdir()
    shared = shared_folder(tmp_path)
    with opened(tmp_path / "home", [str(shared)]) as h:
        h.commit(lambda _s: Decision(events=[SkillCreated(
            name="forged", content=skill("forged"), provenance="external",
            root=str(target))]), by=Caller(actor="user"))
        h.flush()  # no error: the file has nowhere to go here
        assert list(target.iterdir()) == []
        assert not (h.home / "skills/forged").exists()
        result = manage(h, action="patch", name="forged", old_string="Do", new_string="Did")
        assert result["success"] is False
        assert "skills.external_dirs of this home does not name" in str(result["error"])
        assert manage(h, action="create", name="mine", content=skill("mine"))["success"]
        h.flush()
        assert (h.home / "skills/mine/SKILL.md").exists()
        assert h.status()["unwritten"] == {}


def test_the_same_journal_on_a_home_without_the_folder(tmp_path: Path) -> None:
    shared = shared_folder(tmp_path)
    home = tmp_path / "home"
    with opened(home, [str(shared)]) as h:
        manage(h, action="patch", name="team-tool", old_string="Do", new_string="Did")
    with opened(home) as h:
        h.flush()
        assert h.state.skills.skills["team-tool"].root == str(shared)
        assert not (home / "skills/ops").exists()
        assert manage(h, action="patch", name="team-tool", old_string="Did",
                      new_string="Done")["success"] is False
    with opened(home, [str(shared)]) as h:
        assert manage(h, action="patch", name="team-tool", old_string="Did",
                      new_string="Done")["success"] is True
        h.flush()
        assert "1. Done the thing." in (shared / "ops/team-tool/SKILL.md").read_text()


def test_folders_overlapping_the_home_are_not_external(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "skills").mkdir(parents=True)
    (home / ".memoir").mkdir()
    (tmp_path / "team").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "team")
    found = external_roots([str(home), str(home / "skills"), str(home / ".memoir/x"),
                            str(tmp_path), "/", str(tmp_path / "missing"),
                            str(tmp_path / "link"), str(tmp_path / "team")], home)
    assert found == {str(tmp_path / "link"): tmp_path / "team"}


def test_skills_list_shows_external_skills_before_and_after_their_first_change(
        tmp_path: Path) -> None:
    shared = shared_folder(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(f"skills:\n  external_dirs:\n    - {shared}\n")

    def listed() -> list[tuple[object, ...]]:
        out = CliRunner().invoke(cli, ["--home", str(home), "--json", "skills", "list"])
        assert out.exit_code == 0, out.output
        return [(r["name"], r["provenance"], r["journaled"], r["root"], r["path"])
                for r in json.loads(out.output)]

    path = f"{shared}/ops/team-tool"
    with memoir.open(home, clock=FakeClock()):
        pass
    assert listed() == [("team-tool", "external", False, str(shared), path)]
    clock = FakeClock()
    with memoir.open(home, clock=clock) as h:
        manage(h, action="patch", name="team-tool", old_string="Do", new_string="Did")
        skill_manage_call(h, {"action": "create", "name": "agents", "content": skill("agents")},
                          by="reviewer.skills")
        # A curator pass long after: the agent's skill is archived, the external one,
        # which is no skill of the agent's, is left alone.
        clock.advance(days=200)
        head = h.head
        run_pass(h)
        h.flush()
        touched = {getattr(e.data, "name", None) for e in h.events(after=head)}
        assert "agents" in touched and "team-tool" not in touched
        assert h.state.skills.skills["team-tool"].state == "active"
        assert (shared / "ops/team-tool/SKILL.md").exists()
    assert listed() == [("team-tool", "external", True, str(shared), path)]


def test_the_web_view_lists_and_opens_external_skills(tmp_path: Path) -> None:
    from memoir.web import pages

    shared = shared_folder(tmp_path)
    with opened(tmp_path / "home", [str(shared)]) as h:
        [row] = pages.skills(h)
        assert (row["name"], row["journaled"], row["path"]) == \
            ("team-tool", False, f"{shared}/ops/team-tool")
        detail = pages.skill(h, "team-tool")
        assert detail["files"] == {"SKILL.md": skill("team-tool"),
                                   "references/r.md": "reference"}
        assert detail["history"] == []
        manage(h, action="patch", name="team-tool", old_string="Do", new_string="Did")
        detail = pages.skill(h, "team-tool")
        assert detail["journaled"] is True
        assert [v["type"] for v in detail["history"]] == ["skill.created", "skill.patched"]


def test_a_skill_removed_from_the_external_folder_is_not_put_back(tmp_path: Path) -> None:
    """In the home, a projected file deleted by hand is written again; an external
    folder is shared, so a removal there (a teammate's pull) is the person's edit."""
    import shutil

    shared = shared_folder(tmp_path)
    home = tmp_path / "home"
    with opened(home, [str(shared)]) as h:
        manage(h, action="patch", name="team-tool", old_string="Do", new_string="Did")
        manage(h, action="write_file", name="team-tool", file_path="references/x.md",
               file_content="x")
        h.flush()
    (shared / "ops/team-tool/references/x.md").unlink()
    with opened(home, [str(shared)]) as h:
        h.flush()
        assert not (shared / "ops/team-tool/references/x.md").exists()
        assert [d.path.rpartition("/")[2] for d in h.drift()] == ["x.md"]
        # The next change adopts the removal first.
        assert manage(h, action="patch", name="team-tool", old_string="Did",
                      new_string="Done")["success"] is True
        assert set(h.state.skills.skills["team-tool"].files) == {"references/r.md"}
        h.flush()
        assert not (shared / "ops/team-tool/references/x.md").exists()
    shutil.rmtree(shared / "ops")
    with opened(home, [str(shared)]) as h:
        h.flush()
        assert not (shared / "ops").exists()
        result = manage(h, action="patch", name="team-tool", old_string="Done",
                        new_string="Again")
        assert result["success"] is False
        assert "team-tool" not in h.state.skills.skills  # the removal, adopted
        assert [e.actor for e in h.events(types=["skill.deleted"])] == ["user"]


def test_memoir_adopt_takes_in_a_teammates_changes(tmp_path: Path) -> None:
    shared = shared_folder(tmp_path)
    with opened(tmp_path / "home", [str(shared)]) as h:
        manage(h, action="patch", name="team-tool", old_string="Do", new_string="Did")
        h.flush()
        (shared / "ops/team-tool/references/new.md").write_text("from a teammate")
        (shared / "ops/team-tool/SKILL.md").write_text(skill("team-tool", "1. Pulled.\n"))
        h.adopt()
        record = h.state.skills.skills["team-tool"]
        assert record.content == skill("team-tool", "1. Pulled.\n")
        assert record.files["references/new.md"] == "from a teammate"
        assert not h.drift()


def test_external_folders_memoir_does_not_take_are_named_by_status(tmp_path: Path) -> None:
    """Hermes finds a skill at any depth; memoir keeps a skill's place as
    ``[category/]name``.  A deeper folder, a bad name, a name found twice, a malformed
    SKILL.md and a link are each named by `memoir status` with why — never silently
    left out — and the skills it takes are unaffected."""
    shared = shared_folder(tmp_path)
    other = tmp_path / "other"
    (other / "team-tool").mkdir(parents=True)
    (other / "team-tool/SKILL.md").write_text(skill("team-tool"))  # taken in `shared`
    (shared / "infra/k8s/rollout").mkdir(parents=True)
    (shared / "infra/k8s/rollout/SKILL.md").write_text(skill("rollout"))
    (shared / "Bad Name").mkdir()
    (shared / "Bad Name/SKILL.md").write_text(skill("bad"))
    (shared / "empty").mkdir()
    (shared / "empty/SKILL.md").write_text("")
    (tmp_path / "elsewhere/linked").mkdir(parents=True)
    (tmp_path / "elsewhere/linked/SKILL.md").write_text(skill("linked"))
    (shared / "linked").symlink_to(tmp_path / "elsewhere/linked")
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        f"skills:\n  external_dirs:\n    - {shared}\n    - {other}\n")
    memoir.open(home).close()
    out = CliRunner().invoke(cli, ["--home", str(home), "--json", "status"])
    assert out.exit_code == 0, out.output
    skipped = json.loads(out.output)["external_skipped"]
    assert sorted(skipped) == sorted([f"{shared}/infra/k8s/rollout", f"{shared}/Bad Name",
                                      f"{shared}/empty", f"{shared}/linked",
                                      f"{other}/team-tool"])
    assert "deeper than category/name" in skipped[f"{shared}/infra/k8s/rollout"]
    assert "Invalid skill name" in skipped[f"{shared}/Bad Name"]
    assert "link" in skipped[f"{shared}/linked"]
    assert f"found first in {shared}" in skipped[f"{other}/team-tool"]
    assert skipped[f"{shared}/empty"]  # a reason, whatever its words
    text = CliRunner().invoke(cli, ["--home", str(home), "status"]).output
    assert f"skipped  {shared}/infra/k8s/rollout/ in an external skills folder is not " \
           "seen: nested deeper" in text
    with opened(home, [str(shared), str(other)]) as h:
        names = [s["name"] for s in skills_list_call(h, {})["skills"]]
        assert names == ["team-tool"]
