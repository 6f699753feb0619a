"""skill_manage, skill_view and the archive rules step for step against the real Hermes.

Each scenario is a list of steps (see ``skills_oracle.py``) run in a throwaway Hermes
home and in a memoir home; after every step the two results and the two skills trees
must agree.  Results agree when ``success``, the keys, ``message`` and ``error`` are
equal once the home's path and the two products' own command names are written the
same way.  Trees agree file for file (metadata files and the archive, whose layout
differs on purpose, are compared by what they mean).

Skipped unless ``MEMOIR_HERMES_PYTHON`` names a python with hermes-agent installed.
The deliberate differences are asserted separately, in memoir-only tests, and listed
in docs/differences.md.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

import memoir
from memoir.clock import FakeClock
from memoir.engine import Caller
from memoir.skills import (
    change_lifecycle,
    import_skills,
    skill_manage_call,
    skill_view_call,
)
from tests.support.oracle import hermes_python
from tests.support.paths import SUPPORT

pytestmark = pytest.mark.skipif(
    hermes_python() is None,
    reason="set MEMOIR_HERMES_PYTHON to a python with hermes-agent installed",
)

ORACLE = SUPPORT / "skills_oracle.py"
HIDDEN = (".usage.json", ".bundled_manifest", ".hub", ".curator_state", ".archive",
          ".curator_suppressed")


def skill(name: str, body: str = "1. Do the thing.\n", description: str | None = None) -> str:
    return (f"---\nname: {name}\ndescription: {description or 'how to ' + name}\n---\n"
            f"# {name}\n\n{body}")


def run_hermes(steps: list[dict[str, Any]], config: str = "") -> list[dict[str, Any]]:
    python = hermes_python()
    assert python is not None
    proc = subprocess.run(
        [python, "-I", str(ORACLE)], input=json.dumps({"config": config, "steps": steps}),
        capture_output=True, text=True, timeout=180, env={"PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out: list[dict[str, Any]] = json.loads(proc.stdout)["steps"]
    return out


def _tree(root: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    if not root.exists():
        return found
    for folder, dirs, files in os.walk(root):
        base = Path(folder)
        for name in sorted(dirs):
            path = base / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                found[rel] = "-> " + os.readlink(path)
            elif not any(path.iterdir()):
                found[rel] = "<dir>"
        for name in sorted(files):
            path = base / name
            rel = str(path.relative_to(root))
            found[rel] = ("-> " + os.readlink(path) if path.is_symlink()
                          else path.read_bytes().decode("utf-8", "replace"))
    return found


def run_memoir(steps: list[dict[str, Any]], tmp: Path,
               config: str = "") -> list[dict[str, Any]]:
    home, outside = tmp / "home", tmp / "outside"
    outside.mkdir(parents=True)
    (home / "skills").mkdir(parents=True)
    if config:
        (home / "config.yaml").write_text(config.replace("<outside>", str(outside)),
                                          encoding="utf-8")
    skills = home / "skills"
    records: list[dict[str, Any]] = []
    viewed: dict[str, set[Any]] = {"foreground": set(), "background_review": set()}
    with memoir.open(home, clock=FakeClock()) as handle:
        handle.materializer.fsync = False

        def place(text: str) -> str:
            return text.replace("<outside>", str(outside)).replace("<skills>", str(skills))

        for step in steps:
            origin = step.get("origin", "foreground")
            actor = "agent" if origin == "foreground" else "reviewer.skills"
            do = step["do"]
            result: Any = None
            if do == "manage":
                result = skill_manage_call(handle, dict(step["args"]),
                                           viewed=viewed[origin], by=actor)
            elif do == "view":
                result, mark = skill_view_call(handle, dict(step["args"]), by=actor)
                if mark is not None:
                    viewed[origin].add(mark)
            elif do in ("pin", "unpin", "archive", "restore"):
                try:
                    change_lifecycle(handle, do, step["name"], by=Caller(actor="user"),
                                     reason="by hand")
                    result = {"ok": True}
                except memoir.MemoirError as exc:
                    result = {"ok": False, "message": str(exc)}
            elif do == "write":
                path = (outside if step.get("outside") else skills) / step["path"]
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(step["text"], encoding="utf-8")
            elif do == "mkdir":
                (skills / step["path"]).mkdir(parents=True, exist_ok=True)
            elif do == "remove":
                (skills / step["path"]).unlink()
            elif do == "symlink":
                link = skills / step["path"]
                link.parent.mkdir(parents=True, exist_ok=True)
                link.symlink_to(place(step["to"]))
            elif do in ("bundled", "hub"):
                # memoir learns a skill's origin when it enters the journal.
                with tempfile.TemporaryDirectory() as src:
                    folder = Path(src) / step["name"]
                    folder.mkdir()
                    (folder / "SKILL.md").write_text(step["text"], encoding="utf-8")
                    import_skills(handle, src, provenance=do)
            else:
                raise AssertionError(f"unknown step {do!r}")
            handle.flush()
            text = json.dumps({"result": result, "tree": _tree(skills),
                               "outside": _tree(outside)}, ensure_ascii=False)
            text = text.replace(str(outside), "<outside>").replace(str(home), "<home>")
            records.append(json.loads(text))
    return records


def normal(text: str) -> str:
    """A message with each product's own words for the same thing made equal."""
    text = re.sub(r" It is archived \(.*?\): ask the user to run `memoir skills restore "
                  r"\S+` if it is needed again\.", "", text)
    text = re.sub(r" It is archived; the user can bring it back with `memoir skills restore "
                  r"\S+`\.", "", text)
    return (text.replace(" in active profile 'default'", "")
            .replace("`hermes curator unpin", "`memoir skills unpin"))


def visible(tree: dict[str, str]) -> dict[str, str]:
    """The tree without metadata, and without empty folders inside a skill (Hermes
    leaves the ones a removed file's parent folders become; memoir prunes them)."""
    def in_skill(rel: str) -> bool:
        parts = rel.split("/")
        return any("/".join([*parts[:i], "SKILL.md"]) in tree for i in range(1, len(parts)))

    return {rel: v for rel, v in tree.items()
            if not rel.startswith(HIDDEN) and not (v == "<dir>" and in_skill(rel))}


def archived(tree: dict[str, str]) -> list[tuple[str, str]]:
    """The archived skills: (folder name without the archive-time suffix, SKILL.md)."""
    return sorted((re.sub(r"-\d{14}(-\d+)?$", "", rel.split("/")[-2]), text)
                  for rel, text in tree.items()
                  if rel.startswith(".archive/") and rel.endswith("/SKILL.md"))


def compare(steps: list[dict[str, Any]], theirs: list[dict[str, Any]],
            ours: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    for i, (step, h, m) in enumerate(zip(steps, theirs, ours, strict=True)):
        where = f"step {i} {json.dumps(step)[:160]}"
        hr, mr = h["result"], m["result"]
        if step["do"] in ("manage", "view"):
            assert isinstance(hr, dict), (where, hr)
            for key in ("success",):
                if hr.get(key) != mr.get(key):
                    problems.append(f"{where}: {key} hermes {hr!r} memoir {mr!r}")
            for key in ("message", "error"):
                if key in hr and normal(str(hr[key])) != normal(str(mr.get(key))):
                    problems.append(f"{where}: {key}\n  hermes {hr[key]!r}\n  memoir "
                                    f"{mr.get(key)!r}")
            if step["do"] == "manage" and set(hr) != set(mr):
                problems.append(f"{where}: keys hermes {sorted(hr)} memoir {sorted(mr)}")
        elif step["do"] in ("archive", "restore", "pin", "unpin") and hr["ok"] != mr["ok"]:
            problems.append(f"{where}: ok hermes {hr} memoir {mr}")
        elif step["do"] in ("pin", "unpin") and not hr["ok"] and \
                not str(mr["message"]).startswith(hr["message"]):
            problems.append(f"{where}: message hermes {hr} memoir {mr}")
        if visible(h["tree"]) != visible(m["tree"]):
            problems.append(f"{where}: tree\n  hermes {visible(h['tree'])}\n  memoir "
                            f"{visible(m['tree'])}")
        if archived(h["tree"]) != archived(m["tree"]):
            problems.append(f"{where}: archive hermes {archived(h['tree'])} memoir "
                            f"{archived(m['tree'])}")
        if h["outside"] != m["outside"]:
            problems.append(f"{where}: outside hermes {h['outside']} memoir {m['outside']}")
    return problems


def check(steps: list[dict[str, Any]], tmp: Path, config: str = "") -> None:
    theirs = run_hermes(steps, config)
    ours = run_memoir(steps, tmp, config)
    problems = compare(steps, theirs, ours)
    assert not problems, "\n".join(problems[:12])


def manage(origin: str = "foreground", **args: Any) -> dict[str, Any]:
    return {"do": "manage", "origin": origin, "args": args}


def view(origin: str = "foreground", **args: Any) -> dict[str, Any]:
    return {"do": "view", "origin": origin, "args": args}


BG = "background_review"

SCENARIOS: dict[str, list[dict[str, Any]]] = {
    "lifecycle of one skill": [
        manage(action="create", name="foo", content=skill("foo"), category="dev"),
        manage(action="patch", name="foo", old_string="Do the thing", new_string="Do it"),
        manage(action="write_file", name="foo", file_path="references/a.md",
               file_content="notes"),
        manage(action="write_file", name="foo", file_path="scripts/x/run.sh",
               file_content="echo hi\n"),
        manage(action="remove_file", name="foo", file_path="scripts/x/run.sh"),
        manage(action="edit", name="foo", content=skill("foo", "2. Other.\n")),
        manage(action="delete", name="foo"),
    ],
    "frontmatter name differs from the skill's name": [
        manage(action="create", name="my-skill", content=skill("test-skill")),
        manage(action="edit", name="my-skill", content=skill("other-name", "x\n")),
        manage(action="patch", name="my-skill", old_string="x", new_string="y"),
        manage(action="write_file", name="my-skill", file_path="SKILL.md",
               file_content=skill("third", "z\n")),
        manage(action="write_file", name="my-skill", file_path="references/r.md",
               file_content="r"),
        manage(action="remove_file", name="my-skill", file_path="references/r.md"),
        manage(action="delete", name="my-skill"),
    ],
    "validation errors": [
        manage(action="create", name="Bad Name", content=skill("x")),
        manage(action="create", name="x" * 65, content=skill("x")),
        manage(action="create", name="ok", content=skill("ok"), category="a/b"),
        manage(action="create", name="ok", content=skill("ok"), category="Bad"),
        manage(action="create", name="ok", content="no frontmatter"),
        manage(action="create", name="ok", content="---\nname: ok\n"),
        manage(action="create", name="ok", content="---\n: [\n---\nbody\n"),
        manage(action="create", name="ok", content="---\n- a\n---\nbody\n"),
        manage(action="create", name="ok", content="---\ndescription: d\n---\nbody\n"),
        manage(action="create", name="ok", content="---\nname: ok\n---\nbody\n"),
        manage(action="create", name="ok", content="---\nname: ok\ndescription: d\n---\n\n"),
        manage(action="create", name="ok", content=skill("ok", description="d" * 1025)),
        manage(action="create", name="ok", content=skill("ok", "x" * 100_001)),
        manage(action="create", name="ok"),
        manage(action="edit", name="ok"),
        manage(action="patch", name="ok"),
        manage(action="patch", name="ok", old_string="a"),
        manage(action="write_file", name="ok"),
        manage(action="write_file", name="ok", file_path="references/a.md"),
        manage(action="remove_file", name="ok"),
        manage(action="frobnicate", name="ok"),
        manage(action="create", name="ok", content=skill("ok")),
        manage(action="create", name="ok", content=skill("ok")),
        manage(action="write_file", name="ok", file_path="other/a.md", file_content="x"),
        manage(action="write_file", name="ok", file_path="references", file_content="x"),
        manage(action="write_file", name="ok", file_path="../x.md", file_content="x"),
        manage(action="write_file", name="ok", file_path="references/../../x.md",
               file_content="x"),
        manage(action="write_file", name="ok", file_path="references/big.md",
               file_content="é" * 600_000),
        manage(action="write_file", name="ok", file_path="references/long.md",
               file_content="a" * 100_001),
        manage(action="patch", name="ok", old_string="zzz", new_string="y"),
        manage(action="patch", name="ok", old_string="# ok", new_string="# ok", file_path="x"),
        manage(action="patch", name="ok", old_string="a", new_string="b",
               file_path="references/none.md"),
        manage(action="patch", name="ok", old_string="---\nname: ok", new_string="name: ok"),
        manage(action="remove_file", name="ok", file_path="references/none.md"),
        manage(action="edit", name="nope", content=skill("nope")),
        manage(action="patch", name="nope", old_string="a", new_string="b"),
        manage(action="delete", name="nope"),
        manage(action="write_file", name="nope", file_path="references/a.md",
               file_content="x"),
        manage(action="remove_file", name="nope", file_path="references/a.md"),
        manage(action="delete", name="ok", absorbed_into="ok"),
        manage(action="delete", name="ok", absorbed_into="ghost"),
    ],
    "provenance and background guards": [
        manage(action="create", name="asked", content=skill("asked")),
        manage(BG, action="create", name="learned", content=skill("learned")),
        manage(BG, action="patch", name="learned", old_string="Do", new_string="Did"),
        view(BG, name="learned"),
        manage(BG, action="patch", name="learned", old_string="Do", new_string="Did"),
        view(BG, name="asked"),
        manage(BG, action="edit", name="asked", content=skill("asked", "new\n")),
        manage(BG, action="delete", name="learned"),
        manage(BG, action="delete", name="learned", absorbed_into="asked"),
        manage(BG, action="create", name="again", content=skill("again")),
        {"do": "pin", "name": "again"},
        view(BG, name="again"),
        manage(BG, action="patch", name="again", old_string="Do", new_string="Did"),
        manage(action="delete", name="again"),
        manage(action="patch", name="again", old_string="Do", new_string="Did"),
        manage(BG, action="write_file", name="again", file_path="references/a.md",
               file_content="x"),
    ],
    "bundled and hub skills": [
        {"do": "bundled", "name": "shipped", "text": skill("shipped")},
        {"do": "hub", "name": "fetched", "text": skill("fetched")},
        view(BG, name="shipped"),
        manage(BG, action="patch", name="shipped", old_string="Do", new_string="Did"),
        view(BG, name="fetched"),
        manage(BG, action="patch", name="fetched", old_string="Do", new_string="Did"),
        manage(action="patch", name="shipped", old_string="Do", new_string="Did"),
        manage(action="patch", name="fetched", old_string="Do", new_string="Did"),
    ],
    "symlinks in the tree": [
        manage(action="create", name="foo", content=skill("foo")),
        {"do": "symlink", "path": "foo/references", "to": "<outside>"},
        manage(action="write_file", name="foo", file_path="references/escape.md",
               file_content="x"),
        {"do": "write", "path": "../../outside/target.md", "text": "outside text"},
        {"do": "symlink", "path": "foo/templates/t.md", "to": "<outside>/target.md"},
        manage(action="write_file", name="foo", file_path="templates/t.md",
               file_content="through the link"),
    ],
    "links that leave a skill, read and changed": [
        manage(action="create", name="foo", content=skill("foo")),
        {"do": "write", "path": "../../outside/target.md", "text": "outside text"},
        {"do": "symlink", "path": "foo/references/t.md", "to": "<outside>/target.md"},
        view(name="foo", file_path="references/t.md"),
        manage(action="patch", name="foo", file_path="references/t.md", old_string="outside",
               new_string="x"),
        manage(action="remove_file", name="foo", file_path="references/t.md"),
        {"do": "symlink", "path": "foo/templates", "to": "<outside>"},
        view(name="foo", file_path="templates/target.md"),
        manage(action="remove_file", name="foo", file_path="templates/target.md"),
        manage(action="patch", name="foo", file_path="templates/target.md",
               old_string="outside", new_string="x"),
        {"do": "archive", "name": "nope"},
        {"do": "restore", "name": "nope"},
    ],
    "hand-placed skills are found by name": [
        {"do": "write", "path": "bodyless/SKILL.md",
         "text": "---\nname: bodyless\ndescription: only a description\n---\n"},
        view(name="bodyless"),
        {"do": "write", "path": "handmade/SKILL.md", "text": skill("handmade")},
        manage(action="patch", name="handmade", old_string="Do", new_string="Did"),
        {"do": "write", "path": "ops/other/SKILL.md", "text": skill("other")},
        manage(action="write_file", name="other", file_path="references/a.md",
               file_content="x"),
        manage(action="create", name="other", content=skill("other")),
        manage(action="delete", name="other"),
    ],
    "archive rules and a name archived twice": [
        {"do": "bundled", "name": "shipped", "text": skill("shipped")},
        {"do": "hub", "name": "fetched", "text": skill("fetched")},
        {"do": "archive", "name": "fetched"},
        {"do": "archive", "name": "shipped"},
        {"do": "restore", "name": "shipped"},
        manage(action="create", name="foo", content=skill("foo", "first\n")),
        {"do": "archive", "name": "foo"},
        manage(action="patch", name="foo", old_string="first", new_string="x"),
        manage(action="create", name="foo", content=skill("foo", "second\n")),
        manage(action="patch", name="foo", old_string="second", new_string="2nd"),
        {"do": "archive", "name": "foo"},
        {"do": "restore", "name": "bar"},
    ],
    "hand edits before a write": [
        manage(action="create", name="foo", content=skill("foo")),
        {"do": "write", "path": "foo/SKILL.md", "text": skill("foo", "1. Edited by hand.\n")},
        manage(action="patch", name="foo", old_string="by hand", new_string="by a person"),
        {"do": "write", "path": "foo/references/mine.md", "text": "my notes"},
        manage(action="write_file", name="foo", file_path="references/a.md",
               file_content="x"),
        manage(action="delete", name="foo"),
    ],
}


LOCK = json.dumps({"version": 1, "installed": {"fetched": {"install_path": "fetched"}}})

#: Skills Hermes itself put in the tree: folders and its records, written beside memoir.
PLACED_UPSTREAM: list[dict[str, Any]] = [
    {"do": "write", "path": "shipped/SKILL.md", "text": skill("shipped")},
    {"do": "write", "path": ".bundled_manifest", "text": "shipped:0\n"},
    {"do": "write", "path": "fetched/SKILL.md", "text": skill("fetched")},
    {"do": "write", "path": ".hub/lock.json", "text": LOCK},
]

#: Scenarios run with ``curator.prune_builtins: false`` (bundled skills are upstream's).
UPSTREAM_SCENARIOS: dict[str, list[dict[str, Any]]] = {
    "hand-placed bundled and hub skills refuse pins and shadowing restores": [
        *PLACED_UPSTREAM,
        {"do": "pin", "name": "shipped"},
        {"do": "unpin", "name": "shipped"},
        {"do": "pin", "name": "fetched"},
        {"do": "unpin", "name": "fetched"},
        {"do": "archive", "name": "shipped"},
        {"do": "write", "path": "mine/SKILL.md", "text": skill("mine")},
        {"do": "pin", "name": "mine"},
        {"do": "archive", "name": "mine"},
        {"do": "unpin", "name": "mine"},
        {"do": "archive", "name": "mine"},
        {"do": "write", "path": "mine/SKILL.md", "text": skill("mine", "other\n")},
        {"do": "write", "path": ".bundled_manifest", "text": "shipped:0\nmine:0\n"},
        {"do": "restore", "name": "mine"},
        manage(BG, action="patch", name="mine", old_string="other", new_string="x"),
    ],
}

SCENARIOS["hand-placed bundled and hub skills, as Hermes put them"] = [
    *PLACED_UPSTREAM,
    {"do": "archive", "name": "shipped"},
    {"do": "archive", "name": "fetched"},
    view(BG, name="shipped"),
    view(BG, name="fetched"),
    manage(BG, action="patch", name="fetched", old_string="Do", new_string="Did"),
    manage(action="patch", name="fetched", old_string="Do", new_string="Did"),
    {"do": "restore", "name": "shipped"},
    manage(BG, action="patch", name="shipped", old_string="Do", new_string="Did"),
    {"do": "write", "path": "mine/SKILL.md", "text": skill("mine")},
    {"do": "archive", "name": "mine"},
    {"do": "restore", "name": "mine"},
    manage(action="patch", name="mine", old_string="Do", new_string="Did"),
]


@pytest.mark.parametrize("name", sorted(UPSTREAM_SCENARIOS))
def test_upstream_skills_scenario_matches_hermes(name: str, tmp_path: Path) -> None:
    check(UPSTREAM_SCENARIOS[name], tmp_path, config="curator:\n  prune_builtins: false\n")


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_skills_scenario_matches_hermes(name: str, tmp_path: Path) -> None:
    check(SCENARIOS[name], tmp_path)


def test_external_skills_are_read_and_kept_from_background_writes(tmp_path: Path) -> None:
    check([
        {"do": "write", "outside": True, "path": "shared/ops/team-tool/SKILL.md",
         "text": skill("team-tool")},
        {"do": "write", "outside": True, "path": "shared/ops/team-tool/references/r.md",
         "text": "reference"},
        view(name="team-tool"),
        view(name="team-tool", file_path="references/r.md"),
        view(BG, name="team-tool"),
        manage(BG, action="patch", name="team-tool", old_string="Do", new_string="Did"),
        manage(BG, action="delete", name="team-tool", absorbed_into="x"),
        manage(action="create", name="team-tool", content=skill("team-tool")),
        manage(action="create", name="mine", content=skill("mine")),
        view(name="mine"),
    ], tmp_path, config="skills:\n  external_dirs:\n    - <outside>/shared\n")


EXTERNAL = "skills:\n  external_dirs:\n    - <outside>/shared\n"


def test_a_foreground_agent_changes_external_skills_in_place(tmp_path: Path) -> None:
    check([
        {"do": "write", "outside": True, "path": "shared/ops/team-tool/SKILL.md",
         "text": skill("team-tool")},
        {"do": "write", "outside": True, "path": "shared/ops/team-tool/references/r.md",
         "text": "reference"},
        {"do": "write", "outside": True, "path": "shared/flat/SKILL.md",
         "text": skill("flat")},
        manage(action="patch", name="team-tool", old_string="Do", new_string="Did"),
        view(name="team-tool"),
        manage(action="write_file", name="team-tool", file_path="scripts/run.sh",
               file_content="echo hi\n"),
        manage(action="patch", name="team-tool", file_path="references/r.md",
               old_string="reference", new_string="the reference"),
        manage(action="remove_file", name="team-tool", file_path="scripts/run.sh"),
        manage(action="edit", name="team-tool", content=skill("team-tool", "2. Other.\n")),
        view(BG, name="team-tool"),
        manage(BG, action="patch", name="team-tool", old_string="Other", new_string="More"),
        manage(action="create", name="team-tool", content=skill("team-tool")),
        manage(action="delete", name="team-tool"),
        manage(action="edit", name="flat", content=skill("flat", "3. Flat.\n")),
        manage(action="delete", name="flat"),
        manage(action="create", name="team-tool", content=skill("team-tool")),
    ], tmp_path, config=EXTERNAL)


def test_external_skills_edited_by_someone_else_stay_theirs(tmp_path: Path) -> None:
    check([
        {"do": "write", "outside": True, "path": "shared/team-tool/SKILL.md",
         "text": skill("team-tool")},
        manage(action="patch", name="team-tool", old_string="Do", new_string="Did"),
        # A teammate's change arrives (a git pull): the next change starts from it.
        {"do": "write", "outside": True, "path": "shared/team-tool/SKILL.md",
         "text": skill("team-tool", "1. Pulled.\n")},
        view(name="team-tool"),
        manage(action="patch", name="team-tool", old_string="Pulled", new_string="Merged"),
        {"do": "write", "outside": True, "path": "shared/team-tool/references/new.md",
         "text": "added by a teammate"},
        view(name="team-tool", file_path="references/new.md"),
        manage(action="remove_file", name="team-tool", file_path="references/new.md"),
    ], tmp_path, config=EXTERNAL)


def test_bundled_skills_are_archived_only_while_pruning_builtins_is_on(tmp_path: Path) -> None:
    check([
        {"do": "bundled", "name": "shipped", "text": skill("shipped")},
        {"do": "archive", "name": "shipped"},
        manage(action="patch", name="shipped", old_string="Do", new_string="Did"),
    ], tmp_path, config="curator:\n  prune_builtins: false\n")
