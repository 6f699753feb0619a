"""Skills from ``skills.external_dirs``: folders outside the home that hold skills the
agent may use — a team's repository, say (spec §3.1).

Hermes reads them next to ``HOME/skills/`` (a local skill wins on a name collision),
lets a foreground agent change them in place and refuses background actors
(reviewers, the curator).  memoir does the same, journaled: before the first change
to an external skill, the skill as it is on disk enters the journal where it lives (a
``skill.created`` with ``root`` naming the configured entry, actor ``user``, in a run
of kind ``adopt``); from then on each change is an event like any other, the
projection writes it in the external folder (see
:data:`memoir.projections.skills.EXTERNAL_DIR`), a revert puts the old text back
there, and an edit made there by someone else (a ``git pull``) is adopted as a hand
edit is.  Until then, an external skill is read from disk at call time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from memoir.errors import ValidationError
from memoir.fs.outside import read_text
from memoir.projections.skills import SKILL_FILE, SkillRecord
from memoir.skills.importer import read_skill_files, skill_folders
from memoir.skills.model import MAX_FILE_BYTES, check_found_skill_md, check_name

__all__ = ["ExternalSkill", "external_skills"]


@dataclass(frozen=True)
class ExternalSkill:
    """A skill found in an external folder and not yet in the journal: its record
    (provenance ``external``, ``root`` the configured entry), the folder it was found
    in (links resolved) and its own folder."""

    record: SkillRecord
    root: Path
    folder: Path


def external_skills(roots: Mapping[str, str], skipped: dict[str, str] | None = None,
                    ) -> dict[str, ExternalSkill]:
    """Every skill in the folders of ``roots`` (entry -> folder, as
    :func:`memoir.engine.places.external_roots` finds them), by name (the first folder
    wins on a collision).  A folder that is missing or overlaps the home's own files is skipped
    (:func:`memoir.engine.places.external_roots`).  A skill folder memoir does not take
    — deeper than ``[category/]name`` (Hermes finds those too: a difference,
    docs/differences.md), a bad name, a name an earlier folder took, an unreadable or
    malformed SKILL.md, a link — is named in ``skipped`` (its path under the entry, as a
    person wrote it -> why), never silently left out."""
    found: dict[str, ExternalSkill] = {}
    links: dict[str, str] = {}
    for entry, folder_of in roots.items():
        root = Path(folder_of)

        def skip(folder: Path, why: str, entry: str = entry, root: Path = root) -> None:
            if skipped is not None:
                below = folder.relative_to(root).as_posix()
                skipped[f"{entry.rstrip('/')}/{below}"] = why

        for folder in skill_folders(root, links):
            parts = folder.relative_to(root).parts
            name = parts[-1]
            if len(parts) > 2:
                skip(folder, "nested deeper than category/name: memoir does not see it "
                             "(move it to <category>/<name>)")
                continue
            problem = check_name(name)
            if problem:
                skip(folder, problem)
                continue
            if name in found:
                skip(folder, f"a skill named '{name}' was found first in "
                             f"{found[name].record.root}")
                continue
            try:
                content = read_text(folder / SKILL_FILE, limit=MAX_FILE_BYTES,
                                    follow_links=False, what="SKILL.md")
            except ValidationError as exc:
                skip(folder, str(exc))
                continue
            problem = check_found_skill_md(content)
            if problem:
                skip(folder, problem)
                continue
            record = SkillRecord(
                name=name, category=parts[0] if len(parts) == 2 else None,
                provenance="external", created_by="external", content=content,
                files=read_skill_files(folder, name, {}), root=entry)
            found[name] = ExternalSkill(record, root, folder)
        for link in list(links):
            skip(Path(link), "a link: memoir never follows one out of an external folder")
            del links[link]
    return found
