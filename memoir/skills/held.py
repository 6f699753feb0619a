"""What a held skill write shows a person: Hermes's one-line gist and a diff.

A skill is too large to approve at a glance, so (as in Hermes, spec §1.9) every
skill write an agent or a review makes is held while ``skills.write_approval`` is
on; the person sees a gist in the list and the full change with ``memoir pending
show``.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from memoir import lazyre
from memoir.projections.skills import SKILL_FILE
from memoir.projections.state import State
from memoir.skills.model import canonical_file_path

__all__ = ["SKILL_ARGS", "skill_diff", "skill_gist", "skill_tool_args"]

#: The arguments of a ``skill_manage`` call that make the write.
SKILL_ARGS = ("action", "name", "content", "category", "file_path", "file_content",
              "old_string", "new_string", "replace_all", "absorbed_into")

_DESCRIPTION = lazyre.compile(r"^description:\s*(.+)$", re.MULTILINE)


def skill_tool_args(args: dict[str, Any]) -> dict[str, Any]:
    """The arguments worth keeping to replay a call (Hermes drops the unset ones)."""
    return {k: args[k] for k in SKILL_ARGS if args.get(k) is not None}


def skill_gist(args: dict[str, Any]) -> str:
    """One line saying what a ``skill_manage`` call would do (Hermes's wording)."""
    action, name = str(args.get("action", "")), str(args.get("name", ""))
    content = str(args.get("content") or "")
    file_path = str(args.get("file_path") or "")
    if action in ("create", "edit") and content:
        found = _DESCRIPTION.search(content)
        description = found.group(1).strip().strip("'\"")[:140] if found else ""
        verb = "create" if action == "create" else "rewrite"
        n = len(content)
        size = f"{n // 1024 + 1} KB" if n >= 1024 else f"{n} chars"
        return f"{verb} '{name}' — {description} ({size})" if description else \
            f"{verb} '{name}' ({size})"
    if action == "patch":
        old, new = str(args.get("old_string") or ""), str(args.get("new_string") or "")
        removed = old.count("\n") + 1 if old else 0
        added = new.count("\n") + 1 if new else 0
        return f"patch '{name}' {file_path or SKILL_FILE} (+{added}/-{removed} lines)"
    if action == "write_file":
        return f"write {file_path} in '{name}'"
    if action == "remove_file":
        return f"remove {file_path} from '{name}'"
    if action == "delete":
        return f"delete skill '{name}'"
    return f"{action} '{name}'"


def skill_diff(state: State, args: dict[str, Any], after: dict[str, str]) -> str:
    """A unified diff of what a held skill write changes, against ``state``; ``after``
    maps each file the write leaves to its new text (empty for a delete)."""
    name = str(args.get("name", ""))
    record = state.skills.live(name)
    action = args.get("action")
    if action == "delete":
        return f"delete skill '{name}'"
    if action == "remove_file":
        return f"remove file: {args.get('file_path')} from skill '{name}'"
    out = []
    for path, new in sorted(after.items()):
        old = record.file(path) if record is not None else None
        label = path if path == SKILL_FILE else canonical_file_path(path, name)[0] or path
        out.append("".join(difflib.unified_diff(
            (old or "").splitlines(keepends=True), new.splitlines(keepends=True),
            fromfile=f"a/{label}" if old is not None else "/dev/null",
            tofile=f"b/{label}")))
    return "".join(out) or "(no textual change)"
