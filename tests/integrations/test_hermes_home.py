"""``memoir import hermes`` / ``export hermes``: a whole Hermes home in and out, losslessly;
and the warts of sharing a home with Hermes (the curator's report path)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import memoir
from memoir.cli import cli
from memoir.curator import run_pass
from memoir.integrations.hermes_home import export_hermes, import_hermes
from memoir.oversight.revert import revert_run
from memoir.projections.state import State
from tests.support.oracle import hermes_python


def _skill(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}\n"


def _usage(**fields: Any) -> dict[str, Any]:
    record = {"created_by": None, "use_count": 0, "view_count": 0, "patch_count": 0,
              "last_used_at": None, "last_viewed_at": None, "last_patched_at": None,
              "created_at": "2025-01-01T00:00:00+00:00", "state": "active",
              "pinned": False, "archived_at": None}
    record.update(fields)
    return record


def make_hermes_home(root: Path) -> Path:
    """A Hermes home with something of everything Hermes stores for memory and skills."""
    files = {
        "memories/MEMORY.md": "The build uses make.\n§\nDeploys go through CI.\nTwo lines.\n"
                              "§\nThe build uses make.\n§\n  Spaces around.  ",
        "memories/USER.md": "Name is Ada.\n§\nPrefers tabs.",
        "skills/devops/deploy-app/SKILL.md": _skill("deploy-app", "Deploy the app.",
                                                    "# Deploy\nRun make deploy."),
        "skills/devops/deploy-app/references/notes.md": "Staging first.\n",
        "skills/devops/deploy-app/scripts/run.sh": "#!/bin/sh\nmake deploy\n",
        "skills/tabs/SKILL.md": _skill("tabs", "Tabs.", "Use tabs."),
        "skills/mine/SKILL.md": _skill("mine", "The agent's own.", "Agent notes."),
        "skills/pinned-one/SKILL.md": _skill("pinned-one", "Pinned.", "Keep me."),
        "skills/.archive/old-skill/SKILL.md": _skill("old-skill", "An old one.", "Old body."),
        "skills/.archive/old-skill/references/r.md": "old ref\n",
        "skills/.bundled_manifest": "tabs:0123abcd\nghost:4567ef01\n",
        "skills/.hub/lock.json": json.dumps({"version": 1, "installed": {"deploy-app": {
            "source": "github", "identifier": "acme/skills/deploy-app",
            "trust_level": "community", "installed_at": "2025-06-01T00:00:00+00:00"}}}),
        "skills/.curator_suppressed": "# pruned built-ins\nweb-search\n",
        "skills/.usage.json": json.dumps({
            "deploy-app": _usage(use_count=3, view_count=7, patch_count=1,
                                 last_used_at="2026-01-02T03:04:05+00:00",
                                 last_viewed_at="2026-01-03T03:04:05+00:00",
                                 created_at="2025-12-01T00:00:00+00:00", state="stale"),
            "mine": _usage(created_by="agent", use_count=2, patch_count=4,
                           last_patched_at="2026-02-02T00:00:00+00:00"),
            "pinned-one": _usage(created_by="agent", pinned=True),
            "old-skill": _usage(created_by="agent", use_count=1, state="archived",
                                archived_at="2026-02-01T00:00:00+00:00"),
        }, indent=2),
        "skills/.curator_state": json.dumps({
            "last_run_at": "2026-02-01T00:00:00+00:00", "last_run_duration_seconds": 12.5,
            "last_run_summary": "archived 1\nold-skill → (archived)",
            "last_run_summary_shown_at": None,
            "last_report_path": "/somewhere/logs/curator/20260201-000000",
            "paused": True, "run_count": 4}, indent=2),
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _essence(state: State) -> dict[str, Any]:
    """Everything Hermes stores, as the journal's state holds it."""
    skills = {}
    for name, r in state.skills.skills.items():
        skills[name] = dict(
            category=r.category, content=r.content, files=dict(r.files),
            provenance=r.provenance, created_by=r.created_by, state=r.state, pinned=r.pinned,
            use_count=r.use_count, view_count=r.view_count, patch_count=r.patch_count,
            last_used_at=r.last_used_at, last_viewed_at=r.last_viewed_at,
            last_patched_at=r.last_patched_at, created_at=r.created_at,
            archived_at=r.archived_at)
    cur = state.curator
    sources = state.skills.sources
    return {
        "memory": [e.text for e in state.memory.target("memory").entries],
        "user": [e.text for e in state.memory.target("user").entries],
        "skills": skills,
        "sources": (list(map(tuple, sources.bundled)), sources.hub, sources.hub_lock,
                    sources.suppressed),
        "curator": (cur.last_run_at, cur.last_run_duration_seconds, cur.last_run_summary,
                    cur.last_run_summary_shown_at, cur.last_report_path, cur.paused,
                    cur.run_count),
    }


@pytest.fixture
def hermes(tmp_path: Path) -> Path:
    return make_hermes_home(tmp_path / "hermes")


def test_import_takes_everything_hermes_stores(hermes: Path, tmp_path: Path) -> None:
    with memoir.open(tmp_path / "m", create=True) as mem:
        report = import_hermes(mem, hermes)
        got = _essence(mem.state)
        mine = [e for e in report.events if e.type != "memory.limits_set"]
        assert {e.actor for e in mine} == {"import"} and {e.run for e in mine} == {report.run}
    assert got["memory"] == ["The build uses make.", "Deploys go through CI.\nTwo lines.",
                             "Spaces around."]
    assert got["user"] == ["Name is Ada.", "Prefers tabs."]
    skills = got["skills"]
    assert set(skills) == {"deploy-app", "tabs", "mine", "pinned-one", "old-skill"}
    deploy = skills["deploy-app"]
    assert (deploy["category"], deploy["provenance"], deploy["state"]) == (
        "devops", "hub", "stale")
    assert deploy["files"] == {"references/notes.md": "Staging first.\n",
                               "scripts/run.sh": "#!/bin/sh\nmake deploy\n"}
    assert (deploy["use_count"], deploy["view_count"], deploy["patch_count"]) == (3, 7, 1)
    assert deploy["last_viewed_at"] == "2026-01-03T03:04:05+00:00"
    assert deploy["created_at"] == "2025-12-01T00:00:00+00:00"
    assert skills["tabs"]["provenance"] == "bundled"
    assert skills["mine"]["created_by"] == "agent" and skills["mine"]["patch_count"] == 4
    assert skills["pinned-one"]["pinned"] is True
    old = skills["old-skill"]
    assert (old["state"], old["archived_at"]) == ("archived", "2026-02-01T00:00:00+00:00")
    assert old["files"] == {"references/r.md": "old ref\n"}
    bundled, hub, hub_lock, suppressed = got["sources"]
    assert bundled == [("tabs", "0123abcd"), ("ghost", "4567ef01")]
    assert hub["deploy-app"]["identifier"] == "acme/skills/deploy-app"
    assert hub_lock == {"version": 1} and suppressed == ["web-search"]
    assert got["curator"] == ("2026-02-01T00:00:00+00:00", 12.5,
                              "archived 1\nold-skill → (archived)", None,
                              "/somewhere/logs/curator/20260201-000000", True, 4)


def test_importing_twice_changes_nothing(hermes: Path, tmp_path: Path) -> None:
    with memoir.open(tmp_path / "m", create=True) as mem:
        first = import_hermes(mem, hermes)
        head = mem.state.seq
        again = import_hermes(mem, hermes)
        assert first.events and again.events == []
        assert mem.state.seq == head
        assert again.skipped == {}


def test_import_export_import_is_an_identity(hermes: Path, tmp_path: Path) -> None:
    with memoir.open(tmp_path / "m1", create=True) as m1:
        import_hermes(m1, hermes)
        one = _essence(m1.state)
        export_hermes(m1, tmp_path / "h2")
    with memoir.open(tmp_path / "m2", create=True) as m2:
        import_hermes(m2, tmp_path / "h2")
        assert _essence(m2.state) == one
        # And a second round trip from the copy gives the same files again.
        export_hermes(m2, tmp_path / "h3")
    for rel in ("memories/MEMORY.md", "memories/USER.md", "skills/.usage.json",
                "skills/.curator_state", "skills/.bundled_manifest", "skills/.hub/lock.json",
                "skills/.archive/old-skill/SKILL.md", "skills/devops/deploy-app/SKILL.md"):
        assert (tmp_path / "h2" / rel).read_bytes() == (tmp_path / "h3" / rel).read_bytes(), rel


def test_export_refuses_a_folder_that_holds_anything(hermes: Path, tmp_path: Path) -> None:
    home = tmp_path / "m"
    memoir.open(home, create=True).close()
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "keep.txt").write_text("mine", encoding="utf-8")
    result = CliRunner().invoke(cli, ["--home", str(home), "export", "hermes",
                                      str(tmp_path / "busy")])
    assert result.exit_code != 0 and "not an empty folder" in result.output
    assert sorted(p.name for p in (tmp_path / "busy").iterdir()) == ["keep.txt"]


def test_cli_import_and_export_json(hermes: Path, tmp_path: Path) -> None:
    home = tmp_path / "m"
    runner = CliRunner()
    assert runner.invoke(cli, ["init", "--home", str(home)]).exit_code == 0
    first = runner.invoke(cli, ["--json", "--home", str(home), "import", "hermes", str(hermes)])
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert data["run"] and data["memory"] == {"memory": 3, "user": 2}
    assert sorted(data["skills"]) == ["deploy-app", "mine", "pinned-one", "tabs"]
    assert data["archived"] == ["old-skill"] and data["curator"] is True
    again = json.loads(runner.invoke(cli, ["--json", "--home", str(home), "import", "hermes",
                                           str(hermes)]).stdout)
    assert again["run"] is None and again["seqs"] == []
    out = runner.invoke(cli, ["--json", "--home", str(home), "export", "hermes",
                              str(tmp_path / "out")])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["files"] >= 10


def test_reverting_the_import_removes_what_it_added(hermes: Path, tmp_path: Path) -> None:
    with memoir.open(tmp_path / "m", create=True) as mem:
        with mem.start_session() as s:
            s.call_tool("memory", {"action": "add", "target": "memory",
                                   "content": "Mine before the import."})
        report = import_hermes(mem, hermes)
        revert_run(mem, report.run)
        state = mem.state
        assert [e.text for e in state.memory.target("memory").entries] == [
            "Mine before the import."]
        assert state.memory.target("user").entries == []
        assert state.skills.skills == {}


def test_bad_files_in_the_hermes_home_are_named_and_the_rest_imported(
        hermes: Path, tmp_path: Path) -> None:
    (hermes / "skills/.usage.json").write_text("{not json", encoding="utf-8")
    (hermes / "skills/broken").mkdir()
    (hermes / "skills/broken/SKILL.md").write_bytes(b"---\nname: broken\n---\n\xff\xfe")
    (hermes / "memories/USER.md").write_bytes(b"\xff\xfe bad bytes")
    with memoir.open(tmp_path / "m", create=True) as mem:
        report = import_hermes(mem, hermes)
        assert any(".usage.json" in k and "not JSON" in v for k, v in report.skipped.items())
        assert any("broken" in k for k in report.skipped)
        assert any("USER.md" in k for k in report.skipped)
        assert "deploy-app" in mem.state.skills.skills
        assert mem.state.memory.target("user").entries == []


# -- Hermes itself reads what memoir writes ---------------------------------------------------

PROBE = textwrap.dedent("""\
    import contextlib, io, json
    from tools.memory_tool import MemoryStore
    from tools import skill_usage
    from tools.skills_tool import skills_list
    from hermes_cli.curator import _cmd_status
    store = MemoryStore(memory_char_limit=100000, user_char_limit=100000)
    store.load_from_disk()
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        _cmd_status(None)
    print(json.dumps({
        "memory": store.memory_entries, "user": store.user_entries,
        "archived": sorted(skill_usage.list_archived_skill_names()),
        "bundled": sorted(skill_usage._read_bundled_manifest_names()),
        "hub": sorted(skill_usage._read_hub_installed_names()),
        "suppressed": sorted(skill_usage.read_suppressed_names()),
        "agent_created": sorted(skill_usage.list_agent_created_skill_names()),
        "usage": skill_usage.load_usage(),
        "skills": json.loads(skills_list()),
        "status": shown.getvalue(),
    }))
    """)


def _hermes_view(python: str, home: Path, cwd: Path) -> dict[str, Any]:
    env = {**os.environ, "HERMES_HOME": str(home)}
    done = subprocess.run([python, "-I", "-c", PROBE], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_hermes_reads_the_export_as_it_read_the_original(hermes: Path, tmp_path: Path) -> None:
    python = hermes_python()
    if python is None:
        pytest.skip("set MEMOIR_HERMES_PYTHON to a python with hermes-agent installed")
    with memoir.open(tmp_path / "m", create=True) as mem:
        import_hermes(mem, hermes)
        export_hermes(mem, tmp_path / "exported")
    before = _hermes_view(python, hermes, tmp_path)
    after = _hermes_view(python, tmp_path / "exported", tmp_path)
    for key in ("memory", "user", "archived", "bundled", "hub", "suppressed", "agent_created",
                "skills", "status"):
        assert after[key] == before[key], key
    for name, record in before["usage"].items():
        assert after["usage"][name] == record, name


def test_hermes_finds_the_report_of_a_memoir_curator_pass(tmp_path: Path) -> None:
    python = hermes_python()
    if python is None:
        pytest.skip("set MEMOIR_HERMES_PYTHON to a python with hermes-agent installed")
    home = tmp_path / "home"
    with memoir.open(home, create=True) as mem:
        run_pass(mem)
        mem.flush()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    status = _hermes_view(python, home, elsewhere)["status"]
    assert "last report:" in status and "(missing)" not in status


def test_python_api_imports_without_the_cli(hermes: Path, tmp_path: Path) -> None:
    # The integration works from a plain script (a host process), printing nothing.
    code = ("import sys, memoir\nfrom memoir.integrations.hermes_home import import_hermes\n"
            "with memoir.open(sys.argv[1], create=True) as m:\n"
            "    import_hermes(m, sys.argv[2])\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "m"), str(hermes)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""


# -- sharing a home with Hermes -----------------------------------------------------------------


def _home_with_skill(path: Path) -> None:
    from memoir.skills import skill_manage_call

    with memoir.open(path, create=True) as mem:
        skill_manage_call(mem, {"action": "create", "name": "deploy", "content": _skill(
            "deploy", "Deploy.", "Run make deploy.")}, by="agent")
        mem.flush()


def test_hermes_usage_records_are_adopted_not_left_as_drift(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _home_with_skill(home)
    usage = home / "skills/.usage.json"
    data = json.loads(usage.read_text(encoding="utf-8"))
    data["deploy"].update(view_count=5, use_count=2, pinned=True, state="stale",
                          last_viewed_at="2026-03-01T00:00:00+00:00")
    usage.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
    with memoir.open(home) as mem:
        mem.start_session().end()
        mem.flush()
        record = mem.state.skills.skills["deploy"]
        assert (record.view_count, record.use_count, record.pinned, record.state) == (
            5, 2, True, "stale")
        assert record.last_viewed_at == "2026-03-01T00:00:00+00:00"
        types = [e.type for e in mem.journal.read()]
        assert "skill.usage_set" in types and "skill.pinned" in types
        assert mem.projector.drift() == []
    assert json.loads(usage.read_text(encoding="utf-8"))["deploy"]["view_count"] == 5


def test_a_usage_record_of_a_skill_memoir_lacks_is_kept(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _home_with_skill(home)
    usage = home / "skills/.usage.json"
    data = json.loads(usage.read_text(encoding="utf-8"))
    data["deploy"]["view_count"] = 3
    data["made-by-hermes"] = _usage(created_by="agent", view_count=1)
    usage.write_text(json.dumps(data, indent=2), encoding="utf-8")
    with memoir.open(home) as mem:
        mem.start_session().end()
        mem.flush()
        assert mem.state.skills.skills["deploy"].view_count == 3
    # Not rewritten: Hermes's record of its new skill waits for the skill to be adopted.
    kept = json.loads(usage.read_text(encoding="utf-8"))
    assert kept["made-by-hermes"]["created_by"] == "agent"


def test_memoir_holds_hermes_memory_lock_while_it_writes(tmp_path: Path) -> None:
    import fcntl
    import threading
    import time

    home = tmp_path / "home"
    config = memoir.Config.model_validate({"projections": {"mode": "sync"}})
    with memoir.open(home, create=True, config=config) as mem:
        session = mem.start_session()
        session.call_tool("memory", {"action": "add", "content": "first"})
        lock = home / "memories/MEMORY.md.lock"
        with open(lock, "a+") as held:  # what Hermes does around its writes
            fcntl.flock(held, fcntl.LOCK_EX)
            done = threading.Event()
            threading.Thread(target=lambda: (session.call_tool(
                "memory", {"action": "add", "content": "second"}), done.set())).start()
            time.sleep(0.4)
            assert not done.is_set()
            assert (home / "memories/MEMORY.md").read_text(encoding="utf-8") == "first"
            fcntl.flock(held, fcntl.LOCK_UN)
        assert done.wait(10)
        assert (home / "memories/MEMORY.md").read_text(encoding="utf-8") == "first\n§\nsecond"


def test_hermes_own_telemetry_bumps_become_usage_events(tmp_path: Path) -> None:
    python = hermes_python()
    if python is None:
        pytest.skip("set MEMOIR_HERMES_PYTHON to a python with hermes-agent installed")
    home = tmp_path / "home"
    _home_with_skill(home)
    bump = ("from tools import skill_usage\n"
            "for _ in range(3): skill_usage.bump_view('deploy')\n"
            "skill_usage.bump_use('deploy')\n")
    done = subprocess.run([python, "-I", "-c", bump], env={**os.environ, "HERMES_HOME": str(home)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with memoir.open(home) as mem:
        mem.start_session().end()
        mem.flush()
        record = mem.state.skills.skills["deploy"]
        assert (record.view_count, record.use_count) == (3, 1)
        sets = [e for e in mem.journal.read() if e.type == "skill.usage_set"]
        assert sets and sets[-1].data.source == "hermes"
        assert mem.projector.drift() == []


def test_an_export_that_fails_leaves_nothing_under_the_name(
        hermes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memoir.integrations import hermes_home

    with memoir.open(tmp_path / "m", create=True) as mem:
        import_hermes(mem, hermes)
        calls = {"n": 0}
        real = hermes_home.safefs.write_file

        def failing(home: Path, rel: str, data: bytes, **kwargs: Any) -> None:
            calls["n"] += 1
            if calls["n"] == 5:
                raise OSError(28, "No space left on device")
            real(home, rel, data, **kwargs)

        monkeypatch.setattr(hermes_home.safefs, "write_file", failing)
        with pytest.raises(OSError):
            export_hermes(mem, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []


def test_a_skill_whose_folder_would_clash_with_memoirs_is_named_not_imported(
        hermes: Path, tmp_path: Path) -> None:
    from memoir.skills import skill_manage_call

    with memoir.open(tmp_path / "m", create=True) as mem:
        # memoir has a flat skill named like the Hermes home's category "devops".
        skill_manage_call(mem, {"action": "create", "name": "devops", "content": _skill(
            "devops", "Ops.", "Ops notes.")}, by="user")
        report = import_hermes(mem, hermes)
        assert "deploy-app" not in mem.state.skills.skills
        assert "nest in" in report.skipped["skills/deploy-app"]
        # Importing memoir's own export back changes nothing, archive included.
        export_hermes(mem, tmp_path / "out")
        assert import_hermes(mem, tmp_path / "out").events == []


def test_a_folder_that_is_not_a_hermes_home_is_refused(tmp_path: Path) -> None:
    home, other = tmp_path / "m", tmp_path / "photos"
    other.mkdir()
    memoir.open(home, create=True).close()
    result = CliRunner().invoke(cli, ["--home", str(home), "import", "hermes", str(other)])
    assert result.exit_code == 4 and "not a Hermes home" in result.output
