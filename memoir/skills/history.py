"""Time travel for skills: a skill as of any seq, and every version it went through.

Both follow from the fold: ``skill_at`` folds the journal prefix (from a checkpoint),
``skill_history`` reads the skill's events, each of which states who changed what,
in which run, and (for content) the full text before and after.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from memoir.engine.port import Home
from memoir.errors import NotFoundError
from memoir.events.present import skill_detail as describe
from memoir.events.skills import (
    SkillContentSet,
    SkillCreated,
    SkillFileRemoved,
    SkillFileWritten,
    SkillPatched,
)
from memoir.events.types import Event
from memoir.lookup import did_you_mean
from memoir.projections.skills import SkillRecord, shown_path, skill_dir
from memoir.skills.model import description_of

__all__ = ["TELEMETRY", "SkillVersion", "describe", "patch_of", "skill_at", "skill_history",
           "skill_row", "unified"]

#: Event types that count use, not change; left out of a history unless asked for.
TELEMETRY = frozenset({"skill.viewed", "skill.used", "skill.write_rejected"})


@dataclass(frozen=True)
class SkillVersion:
    """One event in a skill's life."""

    seq: int
    ts: str
    actor: str
    run: str | None
    session: str | None
    type: str
    summary: str
    #: The change as a unified diff (only when asked for: ``patches=True``).
    patch: str = ""


def skill_at(engine: Home, name: str, seq: int | None = None) -> SkillRecord | None:
    """Skill ``name`` as it was right after ``seq`` (default: now); None if it did not
    exist then."""
    return engine.view(seq).skills.skills.get(name)


def patch_of(event: Event) -> str:
    """The change a skill event made to its files, as unified diffs ("" for none)."""
    data = event.data
    folder = f"skills/{getattr(data, 'name', '?')}"
    if isinstance(data, SkillCreated):
        files = {"SKILL.md": data.content, **data.files}
        return "".join(unified(None, text, f"{folder}/{rel}") for rel, text in files.items())
    if isinstance(data, SkillContentSet):
        return unified(data.previous, data.content, f"{folder}/SKILL.md")
    if isinstance(data, SkillPatched | SkillFileWritten):
        return unified(data.previous, data.content, f"{folder}/{data.file}")
    if isinstance(data, SkillFileRemoved):
        return unified(data.previous, None, f"{folder}/{data.file}")
    return ""


def unified(before: str | None, after: str | None, path: str) -> str:
    """A unified diff of one file (``/dev/null`` for a side that does not exist).

    When neither side ends with a newline (MEMORY.md and USER.md never do: entries are
    joined by ``\n§\n``), the missing newline is no change, so the lines are compared
    as if both had one: an entry appended after the last one shows as added, not as the
    last one removed and added again."""
    if before == after:
        return ""
    if before and after and not before.endswith("\n") and not after.endswith("\n"):
        before, after = before + "\n", after + "\n"
    lines = difflib.unified_diff(
        (before or "").splitlines(keepends=True), (after or "").splitlines(keepends=True),
        fromfile=f"a/{path}" if before is not None else "/dev/null",
        tofile=f"b/{path}" if after is not None else "/dev/null")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)


def skill_history(engine: Home, name: str, *, telemetry: bool = False,
                  patches: bool = False) -> list[SkillVersion]:
    """Every event of skill ``name`` in journal order (views, uses and refusals only
    with ``telemetry``; each change's diff with ``patches``).  Raises NotFoundError if
    the journal never knew the skill."""
    versions = []
    known = False
    for event in engine.events(types=["skill.*"]):
        if getattr(event.data, "name", None) != name:
            continue
        known = True
        if not telemetry and event.type in TELEMETRY:
            continue
        versions.append(SkillVersion(
            seq=event.seq, ts=event.ts, actor=event.actor, run=event.run,
            session=event.session, type=event.type, summary=describe(event.data),
            patch=patch_of(event) if patches else "",
        ))
    if not known:
        raise NotFoundError(f"the journal has no skill named '{name}'"
                            f"{did_you_mean(name, engine.state.skills.skills)}")
    return versions


def skill_row(record: SkillRecord, *, journaled: bool = True) -> dict[str, Any]:
    """A skill as ``memoir skills list --json`` and the web view show it: state,
    provenance, owner, pin, usage and where it lives (``root``: the entry of
    ``skills.external_dirs`` it lives in; ``journaled`` False: a skill of an external
    folder not in the journal yet)."""
    return {
        "name": record.name, "category": record.category, "state": record.state,
        "provenance": record.provenance, "created_by": record.created_by,
        "pinned": record.pinned, "protected": record.protected, "archived": record.archived,
        "use_count": record.use_count, "view_count": record.view_count,
        "patch_count": record.patch_count, "last_activity_at": record.last_activity_at,
        "created_at": record.created_at, "archived_at": record.archived_at,
        "absorbed_into": record.absorbed_into, "archive_reason": record.archive_reason,
        "path": shown_path(skill_dir(record), [record.root]),
        "description": description_of(record.content),
        "root": record.root, "journaled": journaled,
    }
