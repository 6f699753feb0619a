"""Bringing an existing skills tree (e.g. a Hermes ``skills/`` folder) into the journal
as one run.

Each ``[category/]name/SKILL.md`` becomes a ``skill.created`` carrying its support
files, with the provenance the caller gives (``bundled``, ``hub``, ``import``…).  When
the folder is a Hermes skills root its own records refine that: names in
``.bundled_manifest`` are ``bundled``, names in ``.hub/lock.json`` are ``hub``, a
``.usage.json`` record with ``created_by: "agent"`` keeps the skill agent-owned, and
``pinned: true`` is carried over as a pin.  Folders that break a rule (the
frontmatter name differs from the folder, a bad name, nesting deeper than one
category) and files that cannot be kept (outside the support folders, not UTF-8
text, too large) are skipped and reported; nothing is half-imported.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memoir.credentials import find_credentials
from memoir.engine.commit import Caller, Decision
from memoir.engine.port import Home
from memoir.errors import ValidationError
from memoir.events.skills import SkillCreated, SkillPinned
from memoir.events.types import Event, Payload
from memoir.fs.outside import read_text
from memoir.ids import short_id
from memoir.names import is_record_line
from memoir.projections.skills import SKILL_FILE
from memoir.projections.state import State
from memoir.skills.model import (
    MAX_FILE_BYTES,
    PROTECTED_SKILLS,
    canonical_file_path,
    check_category,
    check_file_content,
    check_found_skill_md,
    check_name,
)

__all__ = [
    "PROVENANCES",
    "FoundSkill",
    "HermesRecords",
    "ImportReport",
    "creation_events",
    "import_skills",
    "manifest_lines",
    "read_records",
    "read_skill_files",
    "record_object",
    "scan_skills",
    "skill_folders",
]

PROVENANCES = ("agent", "user", "bundled", "hub", "import")
# Folders Hermes never scans for skills.
_EXCLUDED = frozenset({
    ".git", ".github", ".hub", ".archive", ".venv", "venv", "node_modules", "site-packages",
    "__pycache__", ".tox", ".nox", ".pytest_cache", ".mypy_cache", ".ruff_cache",
})


@dataclass
class ImportReport:
    """What an import did: its run, events, the skills imported and what was skipped."""

    run: str
    events: list[Event] = field(default_factory=list)
    imported: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)


@dataclass
class FoundSkill:
    name: str
    category: str | None
    content: str
    files: dict[str, str]
    provenance: str
    created_by: str | None
    pinned: bool


#: The largest Hermes record file read (``.usage.json`` and friends are kilobytes).
MAX_RECORDS_BYTES = 16 * 1024 * 1024


@dataclass
class HermesRecords:
    """What a Hermes skills root records about its skills: ``.bundled_manifest`` (name
    and hash, in file order), ``.hub/lock.json`` (its ``installed`` records, and its
    other keys), ``.curator_suppressed`` (sorted, comments left out) and ``.usage.json``
    (name → record)."""

    bundled: list[tuple[str, str]] = field(default_factory=list)
    hub: dict[str, Any] = field(default_factory=dict)
    hub_lock: dict[str, Any] = field(default_factory=dict)
    suppressed: list[str] = field(default_factory=list)
    usage: dict[str, dict[str, Any]] = field(default_factory=dict)


_LINK = "a symbolic link; memoir does not follow links in a folder it imports"
_CREDENTIAL = "holds what looks like a credential ({}); not imported (store no secret)"


def _record_text(path: Path, skipped: dict[str, str], root: Path | None = None) -> str | None:
    """The text of a record file (None: there is none).  Neither the file nor a folder
    between ``root`` and it is followed if it is a link: that is named in ``skipped``."""
    base = root if root is not None else path.parent
    here = base
    for part in path.relative_to(base).parts:
        here = here / part
        if here.is_symlink():
            skipped[str(here)] = _LINK
            return None
    if not path.exists():
        return None
    try:
        return read_text(path, limit=MAX_RECORDS_BYTES, what=path.name, follow_links=False)
    except ValidationError as exc:
        skipped[str(path)] = str(exc).removeprefix(f"{path}: ")
        return None


def record_object(path: Path, skipped: dict[str, str],
                  root: Path | None = None) -> dict[str, Any] | None:
    """The JSON object in ``path``; None when there is none (a file that is not one is
    named in ``skipped``, as are links: see :func:`_record_text`)."""
    text = _record_text(path, skipped, root)
    if text is None:
        return None
    try:
        data = json.loads(text)
    except RecursionError:
        skipped[str(path)] = "JSON nested too deeply to be a Hermes record"
        return None
    except ValueError as exc:
        skipped[str(path)] = f"not JSON ({exc})"
        return None
    if not isinstance(data, dict):
        skipped[str(path)] = "not a JSON object"
        return None
    return data


def manifest_lines(text: str, where: str, skipped: dict[str, str]) -> list[tuple[str, str]]:
    """The ``(name, hash)`` lines of a ``.bundled_manifest`` text, in file order; a line
    that cannot be one is named in ``skipped`` (``where:line``)."""
    lines: list[tuple[str, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        name, _, digest = line.strip().partition(":")
        name, digest = name.strip(), digest.strip()
        if not name:
            continue
        if is_record_line(name) and is_record_line(digest):
            lines.append((name, digest))
        else:
            skipped[f"{where}:{number}"] = "not a 'name:hash' line (control characters)"
    return lines


def read_records(root: Path, skipped: dict[str, str]) -> HermesRecords:
    """The records of the Hermes skills root ``root`` (see :class:`HermesRecords`); a
    file that cannot be read is named in ``skipped`` and counts as empty."""
    records = HermesRecords()
    manifest = root / ".bundled_manifest"
    records.bundled = manifest_lines(_record_text(manifest, skipped) or "", str(manifest),
                                     skipped)
    lock = record_object(root / ".hub" / "lock.json", skipped, root) or {}
    installed = lock.get("installed")
    records.hub = dict(installed) if isinstance(installed, dict) else {}
    records.hub_lock = {k: v for k, v in lock.items() if k != "installed"}
    suppressed = _record_text(root / ".curator_suppressed", skipped) or ""
    records.suppressed = sorted({line.strip() for line in suppressed.splitlines()
                                 if line.strip() and not line.strip().startswith("#")
                                 and is_record_line(line.strip())})
    usage = record_object(root / ".usage.json", skipped) or {}
    records.usage = {str(k): v for k, v in usage.items() if isinstance(v, dict)}
    return records


def skill_folders(root: Path, skipped: dict[str, str] | None = None) -> list[Path]:
    """Every folder under ``root`` holding a SKILL.md (Hermes's excluded and hidden
    folders skipped; a skill's own folders are not searched for more skills).  A folder
    that is a link is not followed; ``skipped`` names it."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        if SKILL_FILE in filenames and Path(dirpath) != root:
            found.append(Path(dirpath))
            dirnames[:] = []  # a skill's folders hold its files, not more skills
            continue
        dirnames[:] = sorted(d for d in dirnames if d not in _EXCLUDED and not d.startswith("."))
        _skip_links(Path(dirpath), dirnames, skipped)
    return sorted(found)


def _skip_links(folder: Path, dirnames: list[str], skipped: dict[str, str] | None) -> None:
    """Drop the links from ``dirnames`` (os.walk would list them and not enter them),
    naming each in ``skipped``."""
    for name in list(dirnames):
        if (folder / name).is_symlink():
            dirnames.remove(name)
            if skipped is not None:
                skipped[str(folder / name)] = _LINK


def read_skill_files(folder: Path, name: str, skipped: dict[str, str]) -> dict[str, str]:
    """A skill folder's support files (path → text); what cannot be one goes in
    ``skipped`` with the reason.  Links are never followed."""
    files: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        _skip_links(Path(dirpath), dirnames, skipped)
        for fname in sorted(filenames):
            full = Path(dirpath) / fname
            inner = full.relative_to(folder).as_posix()
            if inner == SKILL_FILE or fname.startswith("."):
                continue
            path, problem = canonical_file_path(inner, name)
            if problem or path is None or path == SKILL_FILE:
                skipped[str(full)] = problem or "a second SKILL.md"
                continue
            try:
                text = read_text(full, limit=MAX_FILE_BYTES, follow_links=False,
                                 what="skill file")
            except ValidationError as exc:
                skipped[str(full)] = str(exc).removeprefix(f"{full}: ")
                continue
            problem = check_file_content(text, inner)
            kinds = find_credentials(text)
            if problem or kinds:
                skipped[str(full)] = problem or _CREDENTIAL.format(", ".join(kinds))
                continue
            files[path] = text
    return files


def scan_skills(root: Path, provenance: str, skipped: dict[str, str], *,
                records: HermesRecords | None = None) -> list[FoundSkill]:
    """Every skill folder under ``root``, read, with the provenance and ownership the
    Hermes ``records`` give it (default: those of ``root``, a skills root); what cannot
    be imported goes in ``skipped``."""
    records = records if records is not None else read_records(root, skipped)
    bundled = {name for name, _digest in records.bundled}
    hub, usage = set(records.hub), records.usage
    found: list[FoundSkill] = []
    for folder in skill_folders(root, skipped):
        parts = folder.relative_to(root).parts
        skill_md = folder / SKILL_FILE
        if len(parts) > 2:
            skipped[str(skill_md)] = "nested deeper than one category folder"
            continue
        name, category = parts[-1], (parts[0] if len(parts) == 2 else None)
        try:
            content = read_text(skill_md, limit=MAX_FILE_BYTES, follow_links=False,
                                what="SKILL.md")
        except ValidationError as exc:
            skipped[str(skill_md)] = str(exc).removeprefix(f"{skill_md}: ")
            continue
        problem = check_name(name) or check_category(category) or check_found_skill_md(content)
        kinds = find_credentials(content)
        if problem or kinds:
            skipped[str(skill_md)] = problem or _CREDENTIAL.format(", ".join(kinds))
            continue
        record = usage.get(name, {})
        origin = "bundled" if name in bundled else "hub" if name in hub else provenance
        found.append(FoundSkill(
            name=name, category=category, content=content,
            files=read_skill_files(folder, name, skipped), provenance=origin,
            created_by=("agent" if record.get("created_by") == "agent" and origin not in
                        ("bundled", "hub") else None),
            pinned=bool(record.get("pinned")) and origin not in ("bundled", "hub"),
        ))
    return found


def creation_events(skill: FoundSkill) -> list[Payload]:
    """The events that bring ``skill`` into the journal: its creation, and its pin."""
    events: list[Payload] = [SkillCreated(
        name=skill.name, category=skill.category, content=skill.content,
        provenance=skill.provenance, files=skill.files,  # type: ignore[arg-type]
        protected=skill.name in PROTECTED_SKILLS, created_by=skill.created_by)]
    if skill.pinned:
        events.append(SkillPinned(name=skill.name))
    return events


def import_skills(
    engine: Home, folder: str | os.PathLike[str], *, provenance: str = "import",
    actor: str = "user", run: str | None = None,
) -> ImportReport:
    """Import every skill under ``folder`` as one run (see the module docstring)."""
    if provenance not in PROVENANCES:
        raise ValidationError(
            f"provenance must be one of {', '.join(PROVENANCES)}, not {provenance!r}"
        )
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise ValidationError(f"{root} is not a folder")
    report = ImportReport(run=run or short_id("import-"))
    found = scan_skills(root, provenance, report.skipped)

    def decide(state: State) -> Decision[None]:
        events: list[Payload] = []
        imported: list[str] = []
        taken = dict(state.skills.skills)
        categories = {r.category for r in taken.values() if r.category}
        flat = {r.name for r in taken.values() if r.category is None}
        for skill in found:
            where = str(root / (f"{skill.category}/" if skill.category else "") / skill.name)
            if skill.name in taken or skill.name in imported:
                report.skipped[where] = f"a skill named '{skill.name}' already exists"
                continue
            if (skill.category in flat) or (skill.category is None and skill.name in categories):
                report.skipped[where] = "its folder would nest in, or hold, another skill's"
                continue
            events += creation_events(skill)
            imported.append(skill.name)
            if skill.category:
                categories.add(skill.category)
            else:
                flat.add(skill.name)
        report.imported = imported
        return Decision(events=events, summary=(
            f"imported {len(imported)} skill(s) from {root.name or root} as {provenance}"))

    report.events, _ = engine.commit(decide, by=Caller(actor=actor, run=report.run,
                                                       run_kind="import"))
    return report
