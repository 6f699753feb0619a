"""Skill folders placed in the tree by hand — by a person, or by Hermes seeding a bundled
skill or installing one from the hub beside memoir — are seen by every tool at once
(issue 38, items 2 and 3): adopted as the person's (or with the provenance Hermes's own
records give) when memoir first meets them, never silently ignored.  The call-for-call
comparison with Hermes is in test_skills_parity.py; these need no Hermes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import memoir
from memoir.cli import cli
from memoir.clock import FakeClock
from memoir.curator import run_pass
from memoir.engine import Caller
from memoir.errors import NotFoundError
from memoir.skills import (
    change_lifecycle,
    record_use,
    skill_manage_call,
    skills_list_call,
)
from memoir.web import pages


def skill(name: str, body: str = "1. Do the thing.\n") -> str:
    return f"---\nname: {name}\ndescription: how to {name}\n---\n# {name}\n\n{body}"


def place(home: Path, rel: str, text: str) -> None:
    path = home / "skills" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def opened(home: Path) -> memoir.Memoir:
    handle = memoir.open(home, clock=FakeClock())
    handle.materializer.fsync = False
    return handle


def adopt_runs(handle: memoir.Memoir, after: int = 0) -> list[tuple[str, str]]:
    return [(e.actor, e.data.summary) for e in handle.events(after=after)  # type: ignore[attr-defined]
            if e.type == "run.started" and e.data.kind == "adopt"]  # type: ignore[attr-defined]


def test_a_new_session_adopts_skill_folders_placed_by_hand(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with opened(home) as h:
        h.flush()
    place(home, "ops/deploy/SKILL.md", skill("deploy"))
    place(home, "ops/deploy/references/hosts.md", "web-1, web-2")
    place(home, "Bad Name/SKILL.md", skill("bad"))  # breaks a rule: left alone
    with opened(home) as h:
        session = h.start_session()
        record = h.state.skills.skills["deploy"]
        assert (record.provenance, record.category, record.created_by) == ("user", "ops", "user")
        assert record.files == {"references/hosts.md": "web-1, web-2"}
        assert set(h.state.skills.skills) == {"deploy"}
        runs = adopt_runs(h)
        assert len(runs) == 1 and runs[0][0] == "user"
        assert "before session" in runs[0][1]
        # The prompt pinned by that session lists it, as Hermes's would.
        assert "deploy" in session.standing_context()
        # The folder with a bad name is still on disk, untouched, for a person to fix.
        assert (home / "skills/Bad Name/SKILL.md").read_text() == skill("bad")
        head = h.head
        h.start_session()
        assert adopt_runs(h, after=head) == []  # nothing new: no second run


def test_lifecycle_commands_see_a_placed_folder_at_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with opened(home) as h:
        place(home, "mine/SKILL.md", skill("mine"))
        by = Caller(actor="user")
        assert [e.type for e in change_lifecycle(h, "pin", "mine", by=by)] == ["skill.pinned"]
        assert h.state.skills.skills["mine"].pinned
        change_lifecycle(h, "unpin", "mine", by=by)
        change_lifecycle(h, "archive", "mine", by=by, reason="not needed")
        h.flush()
        assert not (home / "skills/mine").exists()
        assert (home / "skills/.archive/mine/SKILL.md").read_text() == skill("mine")
        # A folder of the archived name placed again frees the name; restoring over it
        # is then refused rather than writing over the person's folder.
        place(home, "mine/SKILL.md", skill("mine", "2. Again.\n"))
        with pytest.raises(memoir.MemoirError, match="destination already exists"):
            change_lifecycle(h, "restore", "mine", by=by)
        h.flush()
        assert (home / "skills/mine/SKILL.md").read_text() == skill("mine", "2. Again.\n")
        archived = [n for n, r in h.state.skills.skills.items() if r.archived]
        assert len(archived) == 1 and archived[0].startswith("mine-")
        with pytest.raises(ValueError, match="action must be one of"):
            change_lifecycle(h, "delete", "mine", by=by)


def test_pinning_a_name_no_skill_has_is_an_error(tmp_path: Path) -> None:
    # Hermes's `curator pin ghost` writes a usage record for a skill that does not
    # exist and says it pinned it; memoir says there is no such skill
    # (docs/differences.md).
    with opened(tmp_path / "home") as h, pytest.raises(NotFoundError, match="ghost"):
        change_lifecycle(h, "pin", "ghost", by=Caller(actor="user"))


def test_hermes_records_in_the_tree_give_placed_skills_their_provenance(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    with opened(home) as h:
        place(home, "shipped/SKILL.md", skill("shipped"))
        place(home, "fetched/SKILL.md", skill("fetched"))
        place(home, "both/SKILL.md", skill("both"))
        place(home, ".bundled_manifest", "shipped:abc\nboth:def\n")
        place(home, ".hub/lock.json", json.dumps(
            {"version": 1, "installed": {"fetched": {}, "both": {}}}))
        listed = {s["name"] for s in skills_list_call(h, {})["skills"]}
        assert {"shipped", "fetched", "both"} <= listed
        skills = h.state.skills.skills
        # Hermes asks the hub lock first.
        assert {n: skills[n].provenance for n in ("shipped", "fetched", "both")} == {
            "shipped": "bundled", "fetched": "hub", "both": "hub"}
        result = skill_manage_call(h, {"action": "patch", "name": "fetched",
                                       "old_string": "Do", "new_string": "Did"},
                                   by="reviewer.skills", viewed=set())
        assert result["error"] == "Refusing background curator patch for hub-installed " \
                                  "skill 'fetched'."
        with pytest.raises(memoir.MemoirError, match="bundled or hub-installed — cannot pin"):
            change_lifecycle(h, "pin", "shipped", by=Caller(actor="user"))


def test_a_linked_or_malformed_record_file_says_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "manifest").write_text("linked:0\n")
    with opened(home) as h:
        place(home, "linked/SKILL.md", skill("linked"))
        place(home, "odd/SKILL.md", skill("odd"))
        (home / "skills/.bundled_manifest").symlink_to(outside / "manifest")
        place(home, ".hub/lock.json", "{not json")
        skills_list_call(h, {})
        skills = h.state.skills.skills
        assert (skills["linked"].provenance, skills["odd"].provenance) == ("user", "user")


def test_a_use_and_a_curator_pass_see_placed_folders(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with opened(home) as h:
        place(home, "tool/SKILL.md", skill("tool"))
        event = record_use(h, "tool", by="agent", via="slash")
        assert event.type == "skill.used"
        place(home, "later/SKILL.md", skill("later"))
        run_pass(h, use_rules=True)
        assert "later" in h.state.skills.skills
        with pytest.raises(NotFoundError):
            record_use(h, "nowhere")


def test_adoption_off_leaves_placed_folders_to_memoir_adopt(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("skills:\n  adopt_hand_edits: false\n")
    with opened(home) as h:
        place(home, "mine/SKILL.md", skill("mine"))
        h.start_session()
        assert "mine" not in h.state.skills.skills
        with pytest.raises(NotFoundError):
            change_lifecycle(h, "archive", "mine", by=Caller(actor="user"))


def test_a_bundled_skill_hermes_placed_starts_its_curator_clock_at_first_sight(
        tmp_path: Path) -> None:
    # Hermes seeds a built-in's inactivity clock when its curator first sees it; a
    # bundled skill placed beside memoir is seen (adopted) by the pass that seeds it.
    home = tmp_path / "home"
    with opened(home) as h:
        place(home, "shipped/SKILL.md", skill("shipped"))
        place(home, ".bundled_manifest", "shipped:abc\n")
        run_pass(h, use_rules=True)
        assert h.state.skills.skills["shipped"].provenance == "bundled"
        assert "shipped" in h.state.curator.seeded
        (finished,) = h.events(types=["curator.run_finished"])
        assert finished.data.seeded == ["shipped"]  # type: ignore[attr-defined]


def test_folders_placed_beside_live_skills_are_found_and_links_are_not_followed(
        tmp_path: Path) -> None:
    home, outside = tmp_path / "home", tmp_path / "outside"
    (outside / "lured").mkdir(parents=True)
    (outside / "lured/SKILL.md").write_text(skill("lured"))
    with opened(home) as h:
        assert skill_manage_call(h, {"action": "create", "name": "deploy", "category": "ops",
                                     "content": skill("deploy")}, by="user")["success"]
        h.flush()
        place(home, "ops/second/SKILL.md", skill("second"))
        place(home, "third/SKILL.md", skill("third"))
        (home / "skills/lured").symlink_to(outside / "lured")
        (home / "skills/ops/lured").symlink_to(outside / "lured")
        h.start_session()
        skills = h.state.skills.skills
        assert sorted(skills) == ["deploy", "second", "third"]
        assert (skills["second"].category, skills["third"].category) == ("ops", None)
        assert (outside / "lured/SKILL.md").read_text() == skill("lured")


def test_a_folder_the_projection_still_owes_a_removal_is_not_adopted_back(
        tmp_path: Path) -> None:
    # A skill deleted or archived in the journal whose folder is still on disk (the
    # background writer has not caught up) is the projection's lag, not a folder a
    # person placed: it never comes back as theirs.
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("projections:\n  coalesce_ms: 10000\n")
    with opened(home) as h:
        for name in ("gone", "shelved"):
            assert skill_manage_call(h, {"action": "create", "name": name,
                                         "content": skill(name)}, by="user")["success"]
        h.flush()
        assert skill_manage_call(h, {"action": "delete", "name": "gone"},
                                 by="user")["success"]
        change_lifecycle(h, "archive", "shelved", by=Caller(actor="user"))
        # The files are owed for the next ten seconds: both folders are still there.
        assert (home / "skills/gone/SKILL.md").exists()
        assert (home / "skills/shelved/SKILL.md").exists()
        h.start_session()
        skills_list_call(h, {})
        skills = h.state.skills.skills
        assert "gone" not in skills and skills["shelved"].archived
        assert adopt_runs(h) == []
        h.flush()
        assert not (home / "skills/gone").exists()


def test_a_placed_folder_that_cannot_be_adopted_is_said_not_ignored(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with opened(home) as h:
        place(home, "Bad Name/SKILL.md", skill("bad"))
        place(home, "ops/fine/SKILL.md", skill("fine"))
        assert h.status()["placed"] == ["skills/Bad Name", "skills/ops/fine"]
        h.start_session()
        # The good one is adopted; the other stays on disk, listed by status.
        assert h.status()["placed"] == ["skills/Bad Name"]
        assert set(h.state.skills.skills) == {"fine"}
    out = CliRunner().invoke(cli, ["--home", str(home), "status"]).output
    assert "skills/Bad Name/ was placed by hand and is not adopted yet" in out
    assert "drift    none" not in out


def test_skills_list_shows_a_placed_folder_before_anything_adopts_it(tmp_path: Path) -> None:
    """`memoir skills list` opens the home read-only (it adopts nothing): a folder placed
    by hand is listed at once, as it will be adopted (journaled false), and the same row
    comes back journaled after the next session start; a folder that cannot be adopted
    is not listed (memoir status names it)."""
    home = tmp_path / "home"
    with opened(home) as h:
        assert skill_manage_call(h, {"action": "create", "name": "kept",
                                     "content": skill("kept")}, by="user")["success"]
        h.flush()
    place(home, "ops/deploy/SKILL.md", skill("deploy"))
    place(home, "ops/deploy/references/hosts.md", "web-1, web-2")
    place(home, "shipped/SKILL.md", skill("shipped"))
    place(home, ".bundled_manifest", "shipped:abc\n")
    place(home, "Bad Name/SKILL.md", skill("bad"))

    def listed() -> dict[str, dict[str, object]]:
        out = CliRunner().invoke(cli, ["--home", str(home), "skills", "list", "--json"])
        assert out.exit_code == 0, out.output
        return {row["name"]: row for row in json.loads(out.output)}

    rows = listed()
    assert list(rows) == ["kept", "shipped", "deploy"]  # by category, then name
    assert rows["kept"]["journaled"] is True
    wanted = {"deploy": ("ops", "user", "user", "skills/ops/deploy"),
              "shipped": (None, "bundled", "bundled", "skills/shipped")}
    for name, (category, provenance, owner, path) in wanted.items():
        row = rows[name]
        assert (row["category"], row["provenance"], row["created_by"], row["path"],
                row["journaled"]) == (category, provenance, owner, path, False)
    with memoir.open(home, readonly=True) as looking:  # the web view's pages too
        assert [(r["name"], r["journaled"]) for r in pages.skills(looking)] == [
            ("kept", True), ("shipped", False), ("deploy", False)]
        detail = pages.skill(looking, "deploy")
        assert detail["files"] == {"SKILL.md": skill("deploy"),
                                   "references/hosts.md": "web-1, web-2"}
        assert (detail["history"], detail["journaled"]) == ([], False)
        assert not any(e.type == "run.started" and e.data.kind == "adopt"  # type: ignore[attr-defined]
                       for e in looking.events())  # nothing adopted
    with opened(home) as h:
        h.start_session()
    after = listed()
    assert list(after) == ["kept", "shipped", "deploy"]
    assert all(row["journaled"] is True for row in after.values())
    assert (after["deploy"]["provenance"], after["shipped"]["provenance"]) == ("user", "bundled")
