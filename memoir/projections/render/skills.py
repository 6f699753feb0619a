"""The skills tree as a projection: ``skills/[category/]name/…``, the archive under
``skills/.archive/[category/]name/…`` and the telemetry file ``skills/.usage.json``.

:class:`SkillsRenderer` is one of :data:`memoir.projections.render.RENDERERS`.
Its ``touched`` names ``.usage.json`` and, for events that change a skill's files or
their place, a token for the skill (``\\0skill:<name>``, a string no real path can
be); ``files`` expands a token to the skill's current files and to ``None`` for
every path the skill has vacated, so an archive, a restore, a removed file or a
deleted skill leaves no stale file behind, in an incremental write and in a rebuild
alike.

``.usage.json`` holds one record per skill (archived ones included, deleted ones
forgotten) with Hermes's eleven fields, written as Hermes writes it:
``json.dumps(…, indent=2, sort_keys=True, ensure_ascii=False)``, no final newline.
``created_by`` is ``"agent"`` for a skill the agent owns and null otherwise, so a
Hermes curator pointed at the home curates exactly what memoir's guards allow.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from memoir.events.skills import PAYLOADS as SKILL_PAYLOADS
from memoir.events.skills import (
    SkillArchived,
    SkillContentSet,
    SkillCreated,
    SkillDeleted,
    SkillFileRemoved,
    SkillFileWritten,
    SkillPatched,
    SkillRestored,
    SkillStateChanged,
    SkillWriteRejected,
)
from memoir.events.types import Event
from memoir.projections.skills import SKILLS_DIR, SkillRecord, event_names, skill_paths
from memoir.projections.state import State

__all__ = ["USAGE_FILE", "SkillsRenderer", "usage_json", "usage_record"]

USAGE_FILE = f"{SKILLS_DIR}/.usage.json"
_TOKEN = "\0skill:"
#: Events that change a skill's files or where they live; the others (views, uses,
#: pins) change only ``.usage.json``, so they never rewrite a skill's files.
_MOVES_FILES = (SkillCreated, SkillContentSet, SkillPatched, SkillFileWritten, SkillFileRemoved,
                SkillArchived, SkillRestored, SkillDeleted, SkillStateChanged)


def usage_record(record: SkillRecord) -> dict[str, Any]:
    """A skill's ``.usage.json`` record, field for field as Hermes keeps it."""
    return {
        "created_by": "agent" if record.created_by == "agent" else None,
        "use_count": record.use_count,
        "view_count": record.view_count,
        "last_used_at": record.last_used_at,
        "last_viewed_at": record.last_viewed_at,
        "patch_count": record.patch_count,
        "last_patched_at": record.last_patched_at,
        "created_at": record.created_at,
        "state": record.state,
        "pinned": record.pinned,
        "archived_at": record.archived_at,
    }


def usage_json(state: State) -> bytes | None:
    """The bytes of ``skills/.usage.json``; None (no file) while there are no skills."""
    skills = state.skills.skills
    if not skills:
        return None
    data = {name: usage_record(record) for name, record in skills.items()}
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False).encode("utf-8")


class SkillsRenderer:
    """Renders the skills tree and ``.usage.json`` (see the module docstring)."""

    name = "skills"
    #: Payload types that can change the tree or .usage.json.
    watches: tuple[type, ...] = tuple(c for c in SKILL_PAYLOADS if c is not SkillWriteRejected)

    def touched(self, events: Sequence[Event]) -> set[str]:
        paths: set[str] = set()
        for event in events:
            if not event.type.startswith("skill.") or isinstance(event.data, SkillWriteRejected):
                continue
            names = event_names(event.data)
            if names:
                if isinstance(event.data, _MOVES_FILES):
                    paths.update(_TOKEN + name for name in names)
                paths.add(USAGE_FILE)
        return paths

    def files(self, state: State, paths: set[str] | None) -> dict[str, bytes | None]:
        skills = state.skills
        if paths is None:
            names: set[str] = set(skills.skills) | set(skills.vacated)
            wanted: set[str] = {USAGE_FILE}
        else:
            names = {p[len(_TOKEN):] for p in paths if p.startswith(_TOKEN)}
            wanted = {p for p in paths if not p.startswith(_TOKEN)}
        out: dict[str, bytes | None] = {}
        # Every vacated path first: a path one skill left may be another's now (a
        # rename), and what a skill holds wins.
        for name in sorted(names):
            for rel in skills.vacated.get(name, ()):
                out[rel] = None
        for name in sorted(names):
            record = skills.skills.get(name)
            if record is not None:
                for rel, text in skill_paths(record).items():
                    out[rel] = text.encode("utf-8")
        if USAGE_FILE in wanted:
            out[USAGE_FILE] = usage_json(state)
            wanted.discard(USAGE_FILE)
        if wanted:
            # Real paths asked for by name: answer from the whole tree.
            everything = self.files(state, None)
            for rel in wanted:
                if rel in everything:
                    out[rel] = everything[rel]
        return out
