"""A whole Hermes home into the journal, and a memoir home out as a Hermes home.

:func:`import_hermes` takes, in one run (actor ``import``): the entries of MEMORY.md
and USER.md (as Hermes reads them: split on ``§``, stripped, deduplicated), every skill
under ``skills/`` with its support files and provenance (``.bundled_manifest``,
``.hub/lock.json``, ``.usage.json``'s ``created_by``), its pin, its usage counts and
dates and its state (``.usage.json``), the archived skills of ``skills/.archive/``, the
sources files themselves and ``.curator_state``.  What is already in the journal is
left alone, so importing the same home twice changes nothing the second time.

:func:`export_hermes` writes a folder Hermes 0.19.0 reads as its own: the projected
files of the home (MEMORY.md, USER.md, the skills tree, ``.usage.json``,
``.curator_state`` and the curator reports) with the archive flat under
``skills/.archive/<name>/`` as Hermes keeps it, plus the imported sources files.
Import → export → import gives the journal's state back: every entry, skill file,
count, date, pin, state, source record and curator field.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memoir.credentials import find_credentials
from memoir.engine.commit import Caller, Decision
from memoir.engine.engine import Engine
from memoir.errors import ValidationError
from memoir.events.curator import CuratorStateImported
from memoir.events.skills import SkillArchived, SkillsSourcesImported
from memoir.events.types import Event, Payload
from memoir.fs import safefs
from memoir.ids import short_id
from memoir.integrations.hermes_mirror import hermes_entries
from memoir.memory.adoption import plan_adoption
from memoir.names import check_shown_path
from memoir.projections.memory import TARGETS
from memoir.projections.render import memory_file, render_all, renderers_for
from memoir.projections.skills import ARCHIVE_DIR, SkillRecord
from memoir.projections.state import State
from memoir.skills.importer import (
    FoundSkill,
    creation_events,
    read_records,
    record_object,
    scan_skills,
)
from memoir.skills.usage import record_events
from memoir.threats import all_threats

__all__ = ["HermesExport", "HermesImport", "export_hermes", "import_hermes"]

_CURATOR_FIELDS = ("last_run_at", "last_run_duration_seconds", "last_run_summary",
                   "last_run_summary_shown_at", "last_report_path", "paused", "run_count")


@dataclass
class HermesImport:
    """What :func:`import_hermes` did."""

    run: str
    source: Path
    events: list[Event] = field(default_factory=list)
    #: target → entries added.
    memory: dict[str, int] = field(default_factory=dict)
    skills: list[str] = field(default_factory=list)
    archived: list[str] = field(default_factory=list)
    #: Skills whose counts, dates or state were taken from ``.usage.json``.
    usage: list[str] = field(default_factory=list)
    sources: bool = False
    curator: bool = False
    #: What could not be imported (a path or a skill) → why.
    skipped: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"run": self.run if self.events else None, "source": str(self.source),
                "seqs": [e.seq for e in self.events], "memory": self.memory,
                "skills": self.skills, "archived": self.archived, "usage": self.usage,
                "sources": self.sources, "curator": self.curator, "skipped": self.skipped}


@dataclass
class _Scan:
    memory: dict[str, list[str]]
    active: list[FoundSkill]
    archived: list[FoundSkill]
    usage: dict[str, dict[str, Any]]
    sources: SkillsSourcesImported | None
    curator: dict[str, Any] | None


def _scan(source: Path, skipped: dict[str, str]) -> _Scan:
    if not source.is_dir():
        raise ValidationError(f"{source} is not a folder")
    if not (source / "memories").is_dir() and not (source / "skills").is_dir():
        raise ValidationError(f"{source} is not a Hermes home: it has neither memories/ "
                              "nor skills/ (HERMES_HOME, ~/.hermes by default, has them)")
    memory: dict[str, list[str]] = {}
    for target in TARGETS:
        path = source / memory_file(target)
        try:
            entries = hermes_entries(source, target)
        except ValidationError as exc:
            skipped[str(path)] = str(exc).removeprefix(f"{path}: ")
            entries = []
        memory[target] = []
        for number, text in enumerate(entries, start=1):
            # An import is a background write: no credential, no instruction a write
            # would refuse, enters the journal from another home.
            kinds = find_credentials(text)
            threats = all_threats(text)
            if kinds or threats:
                skipped[f"{path}:entry {number}"] = (
                    f"holds what looks like a credential ({', '.join(kinds)})" if kinds else
                    f"matches threat pattern(s) {', '.join(threats)}") + "; not imported"
            else:
                memory[target].append(text)
    skills = source / "skills"
    if not skills.is_dir():
        return _Scan(memory, [], [], {}, None, None)
    records = read_records(skills, skipped)
    active = scan_skills(skills, "import", skipped, records=records)
    # The archive's provenance records live beside the live skills.
    archive = skills / ".archive"
    if archive.is_symlink():
        skipped[str(archive)] = "a symbolic link; memoir does not follow links in a " \
                                "folder it imports"
    archived = scan_skills(archive, "import", skipped, records=records) \
        if archive.is_dir() and not archive.is_symlink() else []
    sources = SkillsSourcesImported(
        bundled=records.bundled, hub=records.hub, hub_lock=records.hub_lock,
        suppressed=records.suppressed,
    ) if records.bundled or records.hub or records.hub_lock or records.suppressed else None
    return _Scan(memory, active, archived, records.usage, sources,
                 record_object(skills / ".curator_state", skipped))


def _same(record: SkillRecord, skill: FoundSkill, archived: bool) -> bool:
    # Hermes keeps its archive flat: an archived skill's category is not compared.
    return record.content == skill.content and record.files == skill.files and \
        (archived or record.category == skill.category)


def _plan_skills(state: State, scan: _Scan, report: HermesImport,
                 source: Path) -> list[Payload]:
    events: list[Payload] = []
    known = state.skills.skills
    taken: set[str] = set()
    # A category folder and a flat skill of the same name cannot both exist on disk.
    categories = {r.category for r in known.values() if r.category}
    flat = {r.name for r in known.values() if r.category is None}
    for archived, group in ((False, scan.active), (True, scan.archived)):
        for skill in group:
            where = f"skills/{'.archive/' if archived else ''}{skill.name}"
            record = known.get(skill.name)
            if skill.name in taken:
                report.skipped[where] = f"a second skill named '{skill.name}'"
                continue
            taken.add(skill.name)
            if record is not None:
                if record.archived != archived or not _same(record, skill, archived):
                    report.skipped[where] = (f"memoir already has a skill '{skill.name}' "
                                             "with other content or state; left as it is")
                    continue
            elif not archived and ((skill.category in flat) or (
                    skill.category is None and skill.name in categories)):
                report.skipped[where] = "its folder would nest in, or hold, another skill's"
                continue
            else:
                if archived:
                    pass  # the archive lives apart from the tree's folders
                elif skill.category:
                    categories.add(skill.category)
                else:
                    flat.add(skill.name)
                events += creation_events(skill)
                (report.archived if archived else report.skills).append(skill.name)
                if archived:
                    events.append(SkillArchived(name=skill.name,
                                                reason=f"archived in {source.name or source}"))
            raw = scan.usage.get(skill.name)
            if raw is None:
                continue
            # A skill created now starts as the creation leaves it.
            base = record or SkillRecord(name=skill.name, pinned=skill.pinned,
                                         state="archived" if archived else "active")
            usage = record_events(skill.name, base, raw, reason="as in the Hermes home")
            if usage:
                events += usage
                report.usage.append(skill.name)
    return events


def _curator_event(state: State, raw: dict[str, Any] | None) -> CuratorStateImported | None:
    if raw is None:
        return None
    values: dict[str, Any] = {key: raw.get(key) for key in _CURATOR_FIELDS}
    values["paused"] = bool(values["paused"])
    count = values["run_count"]
    values["run_count"] = count if isinstance(count, int) and count >= 0 else 0
    duration = values["last_run_duration_seconds"]
    values["last_run_duration_seconds"] = float(duration) if isinstance(
        duration, int | float) and not isinstance(duration, bool) else None
    for key in ("last_run_at", "last_run_summary", "last_run_summary_shown_at",
                "last_report_path"):
        if not isinstance(values[key], str):
            values[key] = None
    if check_shown_path(values["last_report_path"]) is not None:
        values["last_report_path"] = None  # '../../etc/passwd' is no report
    cur = state.curator
    if cur.written and all(getattr(cur, key) == values[key] for key in _CURATOR_FIELDS):
        return None
    return CuratorStateImported(**values)


def import_hermes(engine: Engine, source: str | os.PathLike[str], *,
                  run: str | None = None) -> HermesImport:
    """Import the Hermes home at ``source`` as one run (see the module docstring)."""
    root = Path(source).expanduser()
    report = HermesImport(run=run or short_id("import-"), source=root)
    scan = _scan(root, report.skipped)

    def decide(state: State) -> Decision[None]:
        report.memory, report.skills, report.archived, report.usage = {}, [], [], []
        events: list[Payload] = []
        for target in TARGETS:
            have = [e.text for e in state.memory.target(target).entries]
            held = set(have)
            new = [t for t in scan.memory[target] if t not in held]
            if new:
                events += plan_adoption(state, target, have + new, memory_file(target))
                report.memory[target] = len(new)
        events += _plan_skills(state, scan, report, root)
        sources = scan.sources
        current = state.skills.sources
        if sources is not None and (
                list(map(tuple, sources.bundled)) != list(map(tuple, current.bundled))
                or sources.hub != current.hub or sources.hub_lock != current.hub_lock
                or sources.suppressed != current.suppressed):
            events.append(sources)
            report.sources = True
        curator = _curator_event(state, scan.curator)
        if curator is not None:
            events.append(curator)
            report.curator = True
        summary = (f"imported the Hermes home {root.name or root}: "
                   f"{sum(report.memory.values())} memory entries, {len(report.skills)} "
                   f"skills, {len(report.archived)} archived")
        return Decision(events=events, summary=summary)

    report.events, _ = engine.commit(decide, by=Caller(actor="import", run=report.run,
                                                       run_kind="import"))
    return report


# -- export ---------------------------------------------------------------------------------


@dataclass
class HermesExport:
    """What :func:`export_hermes` wrote."""

    dest: Path
    head: int
    files: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"dest": str(self.dest), "head": self.head, "files": len(self.files)}


def _flat_archive(state: State) -> dict[str, str]:
    """Folder prefixes to rewrite: memoir keeps an archived skill's category
    (``skills/.archive/category/name/``), Hermes keeps the archive flat."""
    return {f"{ARCHIVE_DIR}/{r.category}/{r.name}/": f"{ARCHIVE_DIR}/{r.name}/"
            for r in state.skills.skills.values() if r.archived and r.category}


def _moved(rel: str, moves: dict[str, str]) -> str:
    for old, new in moves.items():
        if rel.startswith(old):
            return new + rel[len(old):]
    return rel


def _source_files(state: State) -> dict[str, bytes]:
    sources = state.skills.sources
    out: dict[str, bytes] = {}
    if sources.bundled:
        out["skills/.bundled_manifest"] = "".join(
            f"{name}:{digest}\n" for name, digest in sources.bundled).encode("utf-8")
    # Written as imported, records of skills memoir no longer has included: they are
    # Hermes's record of what it installed (a re-import must find them unchanged).
    if sources.hub or sources.hub_lock:
        lock = {**sources.hub_lock, "installed": sources.hub}
        out["skills/.hub/lock.json"] = json.dumps(lock, indent=2, ensure_ascii=False).encode()
    if sources.suppressed:
        out["skills/.curator_suppressed"] = "".join(
            f"{name}\n" for name in sources.suppressed).encode("utf-8")
    return out


def export_hermes(engine: Engine, dest: str | os.PathLike[str]) -> HermesExport:
    """Write the home as a Hermes home into ``dest``, which must not exist or be an
    empty folder (an export never overwrites anything).  The files are written into a
    folder beside it, renamed into place once complete: an export that fails leaves no
    half-written home under the name."""
    target = Path(dest).expanduser()
    if target.is_symlink():
        raise ValidationError(f"{target} is a symbolic link; export hermes writes a new "
                              "folder and never through a link: give a path that does not "
                              "exist yet")
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ValidationError(f"{target} is not an empty folder; export hermes writes a new "
                              "Hermes home and never overwrites one")
    state = engine.state
    rendered = render_all(state, renderers_for(target.absolute()))
    moves = _flat_archive(state)
    files = {_moved(rel, moves): data for rel, data in rendered.items() if data is not None}
    files.update(_source_files(state))
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.export-", dir=target.parent))
    try:
        for rel in sorted(files):
            # Paths come from the journal: written by the no-follow walk, which refuses
            # any that would leave the staging folder.
            safefs.write_file(staging, rel, files[rel])
        (staging / "memories").mkdir(exist_ok=True)
        if target.exists():
            target.rmdir()  # empty, checked above
        os.rename(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return HermesExport(dest=target, head=state.seq, files=sorted(files))
