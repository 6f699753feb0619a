"""Skills from ``skills.external_dirs``: folders outside the home that the agent may
read but memoir does not own (spec §3.1).

Hermes reads extra skill folders next to ``HOME/skills/``; local skills win on a name
collision; background actors (reviewers, the curator) may not change them.  memoir
reads them the same way, at call time, and never writes to them: they are not in the
journal, so a change to one could not be audited, replayed or undone.  A foreground
change (an agent asked by a person to patch a shared skill) therefore first copies the
skill into the home as the person's — a ``skill.created`` of actor ``user`` in a run of
its own — and the change applies to the copy, which from then on shadows the external
folder (see docs/differences.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from memoir.errors import ValidationError
from memoir.fs.outside import read_text
from memoir.projections.skills import SKILL_FILE, SkillRecord
from memoir.skills.importer import read_skill_files, skill_folders
from memoir.skills.model import MAX_FILE_BYTES, check_found_skill_md, check_name

__all__ = ["ExternalSkill", "expand_dir", "external_skills"]


@dataclass(frozen=True)
class ExternalSkill:
    """A skill found in an external folder: its record (provenance ``external``, never
    journaled), the configured folder it was found in and its own folder."""

    record: SkillRecord
    root: Path
    folder: Path


def expand_dir(entry: str) -> Path:
    """A configured folder with ``~`` and ``${VAR}`` expanded, as Hermes expands them."""
    return Path(os.path.expandvars(os.path.expanduser(entry)))


def external_skills(dirs: Iterable[str], *, home: Path | None = None
                    ) -> dict[str, ExternalSkill]:
    """Every skill in the configured folders, by name (the first folder wins on a
    collision).  A folder that is missing or is the home's own skills folder is
    skipped; an unreadable SKILL.md is skipped."""
    found: dict[str, ExternalSkill] = {}
    own = (home / "skills").resolve() if home is not None else None
    for entry in dirs:
        root = expand_dir(entry)
        try:
            if not root.is_dir() or (own is not None and root.resolve() == own):
                continue
        except OSError:
            continue
        for folder in skill_folders(root):
            parts = folder.relative_to(root).parts
            name = parts[-1]
            if len(parts) > 2 or name in found or check_name(name):
                continue
            try:
                content = read_text(folder / SKILL_FILE, limit=MAX_FILE_BYTES,
                                    follow_links=False, what="SKILL.md")
            except ValidationError:
                continue
            if check_found_skill_md(content):
                continue
            record = SkillRecord(
                name=name, category=parts[0] if len(parts) == 2 else None,
                provenance="external", created_by="external", content=content,
                files=read_skill_files(folder, name, {}))
            found[name] = ExternalSkill(record, root, folder)
    return found
