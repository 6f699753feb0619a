"""Replay skill steps against a real Hermes Agent install and print what happened.

A standalone script, like ``hermes_oracle.py``: run it with the Python of a virtualenv
that has ``hermes-agent`` installed (``MEMOIR_HERMES_PYTHON``), never import it from
pytest.  ``tests/skills/test_skills_parity.py`` drives it.

Input (stdin): ``{"config": "<config.yaml text>", "steps": [step, ...]}``.  A step is an
object with ``do`` and, for tool calls, ``origin`` (``foreground`` or
``background_review``):

- ``{"do": "manage", "args": {...}}``: ``skill_manage(**args)``;
- ``{"do": "view", "args": {...}}``: the ``skill_view`` tool (its read marks, which a
  background review needs before it writes, and its telemetry);
- ``{"do": "pin" | "unpin", "name": n}``: what ``hermes curator pin|unpin`` does (a
  bundled or hub skill refused), result ``{ok}`` and the refusal's ``message``;
- ``{"do": "archive" | "restore", "name": n}``: ``skill_usage.archive_skill`` /
  ``restore_skill`` as ``hermes curator archive|restore`` call them (a pinned skill is
  not archived), result ``{ok, message}``;
- ``{"do": "write", "path": p, "text": t}``: a hand edit of ``skills/<p>`` (of
  ``<outside>/<p>`` with ``"outside": true``);
- ``{"do": "mkdir", "path": p}``, ``{"do": "remove", "path": p}``;
- ``{"do": "symlink", "path": p, "to": "<outside>/x"}``: a link in the tree pointing to
  ``<outside>`` (a folder beside the home) or into the tree (``<skills>/x``);
- ``{"do": "bundled" | "hub", "name": n, "text": t}``: a skill folder ``skills/<n>``
  with SKILL.md ``t``, marked bundled (``.bundled_manifest``) or hub-installed.

Output (stdout): ``{"steps": [{"result": ..., "tree": {...}, "outside": {...}}]}`` where
a tree maps relative paths to file text, ``"<dir>"`` for an empty folder or
``"-> <target>"`` for a link, and every string has the home and the outside folder
replaced by ``<home>`` and ``<outside>``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any


def tree(root: Path) -> dict[str, str]:
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
            if path.is_symlink():
                found[rel] = "-> " + os.readlink(path)
            else:
                found[rel] = path.read_bytes().decode("utf-8", "replace")
    return found


def main() -> None:
    doc = json.load(sys.stdin)
    with tempfile.TemporaryDirectory(prefix="hermes-skills-") as tmp:
        home = Path(tmp) / "home"
        outside = Path(tmp) / "outside"
        home.mkdir()
        outside.mkdir()
        skills = home / "skills"
        skills.mkdir()
        os.environ["HERMES_HOME"] = str(home)
        config = doc.get("config", "").replace("<outside>", str(outside))
        (home / "config.yaml").write_text(config, encoding="utf-8")

        from tools import skill_usage  # type: ignore[import-not-found]
        from tools.skill_manager_tool import skill_manage  # type: ignore[import-not-found]
        from tools.skill_provenance import (  # type: ignore[import-not-found]
            reset_current_write_origin,
            set_current_write_origin,
        )

        # The tool as the agent loop calls it: skill_view plus its telemetry bumps.
        from tools.skills_tool import (  # type: ignore[import-not-found]
            _skill_view_with_bump as skill_view_tool,
        )

        def place(text: str) -> str:
            return text.replace("<outside>", str(outside)).replace("<skills>", str(skills))

        def clean(value: Any) -> Any:
            text = json.dumps(value, ensure_ascii=False)
            text = text.replace(str(outside), "<outside>").replace(str(home), "<home>")
            return json.loads(text)

        records = []
        for step in doc["steps"]:
            token = set_current_write_origin(step.get("origin", "foreground"))
            result: Any = None
            try:
                do = step["do"]
                if do == "manage":
                    result = json.loads(skill_manage(**step["args"]))
                elif do == "view":
                    result = json.loads(skill_view_tool(step["args"]))
                elif do in ("pin", "unpin"):
                    # What `hermes curator pin|unpin` does (hermes_cli/curator.py).
                    name = step["name"]
                    if not skill_usage.is_agent_created(name):
                        result = {"ok": False, "message": (
                            f"'{name}' is bundled or hub-installed — cannot pin (only "
                            "agent-created skills participate in curation)" if do == "pin"
                            else f"'{name}' is bundled or hub-installed — there's nothing "
                            "to unpin (curator only tracks agent-created skills)")}
                    else:
                        skill_usage.set_pinned(name, do == "pin")
                        result = {"ok": True}
                elif do == "archive" and skill_usage.get_record(step["name"]).get("pinned"):
                    # `hermes curator archive` refuses a pinned skill before it archives.
                    result = {"ok": False, "message": f"'{step['name']}' is pinned"}
                elif do in ("archive", "restore"):
                    act = skill_usage.archive_skill if do == "archive" \
                        else skill_usage.restore_skill
                    ok, message = act(step["name"])
                    result = {"ok": ok, "message": message}
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
                    folder = skills / step["name"]
                    folder.mkdir(parents=True, exist_ok=True)
                    (folder / "SKILL.md").write_text(step["text"], encoding="utf-8")
                    if do == "bundled":
                        with (skills / ".bundled_manifest").open("a", encoding="utf-8") as f:
                            f.write(f"{step['name']}:0\n")
                    else:
                        lock = skills / ".hub" / "lock.json"
                        lock.parent.mkdir(exist_ok=True)
                        data = json.loads(lock.read_text()) if lock.exists() else \
                            {"version": 1, "installed": {}}
                        data["installed"][step["name"]] = {"install_path": step["name"]}
                        lock.write_text(json.dumps(data))
                else:
                    raise SystemExit(f"skills_oracle: unknown step {do!r}")
            except Exception as exc:  # a step that raises is a finding, not a crash
                result = {"exception": type(exc).__name__, "message": str(exc)}
            finally:
                reset_current_write_origin(token)
            records.append(clean({"result": result, "tree": tree(skills),
                                  "outside": tree(outside)}))
    print(json.dumps({"steps": records}, ensure_ascii=False))


if __name__ == "__main__":
    main()
