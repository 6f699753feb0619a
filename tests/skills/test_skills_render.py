"""The skills tree and ``.usage.json`` as projections of the journal."""

from __future__ import annotations

import json
import shutil
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
from memoir.errors import MemoirError
from memoir.skills import (
    archive_events,
    delete_events,
    pin_events,
    record_use,
    restore_events,
    skill_manage_call,
    skill_view_call,
    usage_json,
)


def skill_md(name: str, body: str = "Do the thing.\n") -> str:
    return f"---\nname: {name}\ndescription: the {name} skill — ünïcode\n---\n{body}"


def tree(home: Path) -> dict[str, bytes]:
    top = home / "skills"
    return {p.relative_to(home).as_posix(): p.read_bytes()
            for p in sorted(top.rglob("*")) if p.is_file()} if top.exists() else {}


def flushed_tree(handle: Memoir) -> dict[str, bytes]:
    """The skills tree on disk once the files the last commits owe are written."""
    handle.flush()
    return tree(handle.home)


def read_flushed(handle: Memoir, rel: str) -> str:
    """A projected file's text once the files the last commits owe are written."""
    handle.flush()
    return (handle.home / rel).read_text(encoding="utf-8")


def agent(handle: Memoir, **args: Any) -> dict[str, Any]:
    """A skill_manage call of a background review: what the agent comes to own."""
    return skill_manage_call(handle, args, by="reviewer.skills")


def person(handle: Memoir, build: Any) -> None:
    handle.commit(lambda s: Decision(events=build(s)), by="user")


@pytest.fixture
def handle(home: Path) -> Memoir:
    return memoir.open(home, clock=FakeClock())


def test_skills_live_at_their_category_path_with_their_files(handle: Memoir) -> None:
    agent(handle, action="create", name="flat", content=skill_md("flat"))
    agent(handle, action="create", name="deep", content=skill_md("deep"), category="ops")
    agent(handle, action="write_file", name="deep", file_path="templates/t/x.yaml",
          file_content="k: v\n")
    assert set(flushed_tree(handle)) == {
        "skills/.usage.json", "skills/flat/SKILL.md", "skills/ops/deep/SKILL.md",
        "skills/ops/deep/templates/t/x.yaml",
    }
    assert flushed_tree(handle)["skills/ops/deep/SKILL.md"] == skill_md("deep").encode()


def test_archive_keeps_the_category_and_restore_brings_it_back(handle: Memoir) -> None:
    agent(handle, action="create", name="deep", content=skill_md("deep"), category="ops")
    agent(handle, action="write_file", name="deep", file_path="references/r.md",
          file_content="R")
    person(handle, lambda s: archive_events(s, "deep", actor="user", reason="unused"))
    files = set(flushed_tree(handle))
    archived = {"skills/.archive/ops/deep/SKILL.md", "skills/.archive/ops/deep/references/r.md"}
    assert archived <= files
    assert not any(f.startswith("skills/ops/") for f in files)
    person(handle, lambda s: restore_events(s, "deep", actor="user"))
    files = set(flushed_tree(handle))
    assert {"skills/ops/deep/SKILL.md", "skills/ops/deep/references/r.md"} <= files
    assert not any(f.startswith("skills/.archive/") for f in files)


def test_removed_files_and_deleted_skills_leave_no_file(handle: Memoir) -> None:
    agent(handle, action="create", name="a", content=skill_md("a"))
    agent(handle, action="write_file", name="a", file_path="scripts/s.sh", file_content="x")
    skill_manage_call(handle, {"action": "remove_file", "name": "a",
                               "file_path": "scripts/s.sh"}, by="agent")
    handle.flush()
    assert not (handle.home / "skills/a/scripts/s.sh").exists()
    person(handle, lambda s: delete_events(s, "a", actor="user"))
    assert set(flushed_tree(handle)) == set()


def test_usage_json_has_hermes_fields_and_formatting(handle: Memoir) -> None:
    agent(handle, action="create", name="b", content=skill_md("b"))
    person(handle, lambda s: [*pin_events(s, "b", actor="user")])
    skill_view_call(handle, {"name": "b"}, by="agent")
    record_use(handle, "b")
    text = read_flushed(handle, "skills/.usage.json")
    data = json.loads(text)
    assert text == json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)
    ts = "2026-01-01T00:00:00.000000+00:00"
    assert data == {"b": {
        "created_by": "agent", "use_count": 1, "view_count": 1, "patch_count": 0,
        "last_used_at": ts, "last_viewed_at": ts, "last_patched_at": None,
        "created_at": ts, "state": "active", "pinned": True, "archived_at": None,
    }}


def test_usage_json_says_who_owns_a_skill_and_forgets_deleted_ones(handle: Memoir) -> None:
    skill_manage_call(handle, {"action": "create", "name": "mine", "content": skill_md("mine")},
        by="user")
    agent(handle, action="create", name="agents", content=skill_md("agents"))
    person(handle, lambda s: archive_events(s, "agents", actor="user", reason="old"))
    data = json.loads(read_flushed(handle, "skills/.usage.json"))
    assert data["mine"]["created_by"] is None
    assert (data["agents"]["state"], data["agents"]["created_by"]) == ("archived", "agent")
    assert data["agents"]["archived_at"] is not None
    person(handle, lambda s: delete_events(s, "agents", actor="user"))
    assert set(json.loads(read_flushed(handle, "skills/.usage.json"))) == {"mine"}
    assert usage_json(memoir.State()) is None


# -- rebuild equals incremental -------------------------------------------------------------

NAMES = ["a", "b", "c"]
OPS = st.lists(st.tuples(
    st.sampled_from(["create", "patch", "write", "remove", "archive", "restore", "delete",
                     "pin", "unpin", "view", "use", "edit"]),
    st.sampled_from(NAMES),
    st.sampled_from([None, "ops", "dev"]),
    st.sampled_from(["references/x.md", "assets/y.txt", "templates/z/w.md"]),
), min_size=1, max_size=20)


def apply_op(handle: Memoir, op: tuple[str, str, str | None, str], step: int) -> None:
    kind, name, category, path = op
    builders = {
        "archive": lambda s: archive_events(s, name, actor="user", reason="tidy"),
        "restore": lambda s: restore_events(s, name, actor="user"),
        "delete": lambda s: delete_events(s, name, actor="user"),
        "pin": lambda s: pin_events(s, name, actor="user"),
        "unpin": lambda s: memoir.skills.unpin_events(s, name, actor="user"),
    }
    try:
        if kind in builders:
            person(handle, builders[kind])
        elif kind == "view":
            skill_view_call(handle, {"name": name}, by="agent")
        elif kind == "use":
            record_use(handle, name)
        else:
            args = {
                "create": {"action": "create", "content": skill_md(name), "category": category},
                "edit": {"action": "edit", "content": skill_md(name, f"v{step}\n")},
                "patch": {"action": "patch", "old_string": "thing", "new_string": f"t{step}",
                          "replace_all": True},
                "write": {"action": "write_file", "file_path": path,
                          "file_content": f"{step}\n"},
                "remove": {"action": "remove_file", "file_path": path},
            }[kind]
            agent(handle, name=name, **args)
    except MemoirError:
        pass  # a refused command appends nothing; the sequence goes on


@settings(max_examples=30)
@given(OPS)
def test_rebuilding_from_the_journal_gives_the_same_tree(ops: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        live, fresh = Path(tmp) / "live", Path(tmp) / "fresh"
        handle = memoir.open(live, clock=FakeClock())
        for step, op in enumerate(ops):
            apply_op(handle, op, step)
        handle.flush()
        incremental = tree(live)
        handle.close()
        fresh.mkdir()
        shutil.copy(live / "journal.jsonl", fresh / "journal.jsonl")
        rebuilt = memoir.open(fresh)
        rebuilt.rebuild()
        assert tree(fresh) == incremental
        # And in place: after the tree is deleted by hand.
        shutil.rmtree(live / "skills", ignore_errors=True)
        again = memoir.open(live)
        again.rebuild()
        assert tree(live) == incremental
