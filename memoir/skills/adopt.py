"""Hand edits of the skills tree: finding them (drift) and adopting them as ``user``
events.

memoir writes the skills tree; a person may still edit a SKILL.md, add or remove a
support file, drop in a new skill folder or delete one.  :func:`skills_drift` finds
every such change by comparing the disk with what the journal renders:

- ``modified``: a projected file whose bytes memoir never wrote;
- ``removed``: a projected file memoir wrote that is gone;
- ``added``: a file under ``skills/`` memoir never wrote (hidden files and
  ``*.bak.<n>`` copies excepted).

:func:`adopt_skills` turns them into events of one run, checked by the rules every
write passes: a changed SKILL.md becomes ``skill.content_set``, a support file
``skill.file_written`` / ``skill.file_removed``, a new folder with a SKILL.md a
``skill.created`` with provenance ``user``, a skill folder removed entirely a
``skill.deleted``.  A change that breaks a rule (bad frontmatter, a pinned skill
removed) raises :class:`~memoir.errors.ValidationError` naming the file, and nothing
is adopted; files that cannot belong to a skill (outside the support folders,
binary, inside the archive, ``.usage.json``) are left alone and reported as ignored.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field

from memoir.engine.adoption import adopt
from memoir.engine.files import FilesView
from memoir.engine.port import Home
from memoir.errors import AdoptionConflict, RejectedError, ValidationError
from memoir.events.skills import (
    Provenance,
    SkillContentSet,
    SkillCreated,
    SkillFileRemoved,
    SkillFileWritten,
)
from memoir.events.types import Event, Payload
from memoir.ids import short_id
from memoir.projections.render.skills import USAGE_FILE, usage_json
from memoir.projections.skills import (
    ARCHIVE_DIR,
    SKILL_FILE,
    SKILLS_DIR,
    SkillRecord,
    skill_dir,
    skill_paths,
)
from memoir.projections.state import State
from memoir.skills.guards import delete_events
from memoir.skills.importer import MAX_RECORDS_BYTES, manifest_lines
from memoir.skills.manage import archive_key, layout_clash
from memoir.skills.model import (
    PROTECTED_SKILLS,
    canonical_file_path,
    check_category,
    check_file_content,
    check_found_skill_md,
    check_name,
)

__all__ = [
    "Adoption",
    "SkillDrift",
    "adopt_skills",
    "adoption_bases",
    "adoption_events",
    "folder_adoption_events",
    "hand_placed_folder",
    "placed_provenance",
    "placed_skill_folders",
    "skill_folder_drift",
    "skills_drift",
    "tree_drift",
]

_USAGE = USAGE_FILE


@dataclass(frozen=True)
class SkillDrift:
    """One hand change in the skills tree (``path`` is home-relative)."""

    path: str
    kind: str  # "modified" | "added" | "removed" | "blocked" (a link or folder in its place)
    skill: str | None = None


@dataclass
class Adoption:
    """What :func:`adopt_skills` did: the run, its events, and files it left alone."""

    run: str
    events: list[Event] = field(default_factory=list)
    adopted: list[str] = field(default_factory=list)
    ignored: dict[str, str] = field(default_factory=dict)


def _owner_of(state: State, rel: str) -> SkillRecord | None:
    for record in state.skills.skills.values():
        if rel.startswith(skill_dir(record) + "/"):
            return record
    return None


def _drift(files: FilesView, state: State, records: list[SkillRecord],
           folders: list[str]) -> list[SkillDrift]:
    # Under the projection lock: a file the background writer is removing or renaming
    # right now must not look deleted or added by hand.
    with files.settled():
        return _drift_settled(files, state, records, folders)


def _drift_settled(files: FilesView, state: State, records: list[SkillRecord],
                   folders: list[str]) -> list[SkillDrift]:
    found: list[SkillDrift] = []
    projected: dict[str, tuple[str, bytes]] = {}
    for record in records:
        for rel, text in skill_paths(record).items():
            projected[rel] = (record.name, text.encode("utf-8"))
    for rel, (name, data) in sorted(projected.items()):
        actual = files.read(rel)
        drift = files.drifted(rel, data) if actual is None else None
        if drift is not None and not drift.deleted:
            # A link or a folder where the file goes: not an edit memoir could adopt or
            # would hide; it is reported as a file memoir cannot write.
            found.append(SkillDrift(rel, "blocked", name))
        elif actual is None:
            if files.wrote(rel):
                found.append(SkillDrift(rel, "removed", name))
        elif files.drifted(rel, data) is not None:
            found.append(SkillDrift(rel, "modified", name))
    seen: set[str] = set()
    for folder in folders:
        # Hidden folders are other tools' (.hub, .curator_backups), except the archive.
        for rel in files.files_under(folder, hidden=(ARCHIVE_DIR,)):
            if rel in projected or rel in seen or rel == _USAGE:
                continue
            seen.add(rel)
            if files.drifted(rel, None) is None:
                continue  # a file memoir wrote and will remove; not a hand edit
            owner = _owner_of(state, rel)
            found.append(SkillDrift(rel, "added", owner.name if owner else None))
    return found


def tree_drift(state: State, files: FilesView) -> list[SkillDrift]:
    """Every hand change in the skills tree, against ``state`` (for decisions)."""
    files.reload()
    records = list(state.skills.skills.values())
    # The skills of external folders live outside the tree: their folders too.
    outside = [skill_dir(r) for r in records if r.root is not None and not r.archived]
    found = _drift(files, state, records, [SKILLS_DIR, *outside])
    if files.read(_USAGE) is not None and files.drifted(_USAGE, usage_json(state)) is not None:
        found.append(SkillDrift(_USAGE, "modified"))
    return sorted(found, key=lambda d: d.path)


def skills_drift(engine: Home, state: State | None = None) -> list[SkillDrift]:
    """Every hand change in the skills tree, against ``state`` (default: the head)."""
    return tree_drift(state if state is not None else engine.state, engine.files)


def skill_folder_drift(files: FilesView, state: State, name: str,
                       category: str | None = None) -> list[SkillDrift]:
    """Hand changes in one skill's folder (for a skill not yet created: any file in
    the folder it would get)."""
    record = state.skills.skills.get(name)
    if record is not None:
        return _drift(files, state, [record], [skill_dir(record)])
    folder = f"{SKILLS_DIR}/{category}/{name}" if category else f"{SKILLS_DIR}/{name}"
    return _drift(files, state, [], [folder])


# -- adoption --------------------------------------------------------------------------------


def _read_text(files: FilesView, rel: str) -> str | None:
    data = files.read(rel)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _fail(rel: str, problem: str) -> ValidationError:
    return ValidationError(
        f"{rel} was edited by hand and cannot be adopted: {problem} Fix it and run "
        "`memoir adopt` again, or `memoir rebuild --force` to discard the edit."
    )


def _three_way(rel: str, base: str | None, edited: str, current: str | None,
               force: bool) -> bool:
    """Whether the hand edit ``edited`` of ``rel`` is to be adopted: not when it is what
    the journal says already; a conflict when the journal changed the file since the
    version the person started from (``base``), unless ``force``."""
    if edited == current:
        return False
    if base is not None and current != base and edited != base and not force:
        raise AdoptionConflict(
            f"{rel} was edited by hand while memoir changed it too (the journal holds a "
            "newer version than the one the edit started from); edit the file again from "
            "`memoir skills show`, or run `memoir adopt --force` to keep the hand edit",
            clashes=[rel])
    return True


def _adopt_existing(files: FilesView, state: State, record: SkillRecord,
                    drifts: list[SkillDrift], ignored: dict[str, str],
                    bases: Mapping[str, str | None], force: bool) -> list[Payload]:
    folder = skill_dir(record) + "/"
    removed = {d.path for d in drifts if d.kind == "removed"}
    if folder + SKILL_FILE in removed:
        if removed >= set(skill_paths(record)) and not any(d.kind == "added" for d in drifts):
            try:
                return delete_events(state, record.name, actor="user")
            except RejectedError as exc:
                raise _fail(folder + SKILL_FILE, str(exc)) from None
        raise _fail(folder + SKILL_FILE, "SKILL.md was removed but the skill's other files "
                                         "remain; remove the whole folder to delete it.")
    events: list[Payload] = []
    for d in drifts:
        inner = d.path[len(folder):]
        if d.kind == "removed":
            events.append(SkillFileRemoved(name=record.name, file=inner,
                                           previous=record.files[inner]))
            continue
        text = _read_text(files, d.path)
        if text is not None and d.path in bases and not _three_way(
                d.path, bases[d.path], text, record.file(inner), force):
            continue
        if inner == SKILL_FILE:
            if text is None:
                raise _fail(d.path, "it is not UTF-8 text.")
            problem = check_found_skill_md(text)
            if problem:
                raise _fail(d.path, problem)
            events.append(SkillContentSet(name=record.name, content=text,
                                          previous=record.content))
            continue
        path, problem = canonical_file_path(inner, record.name)
        if problem or path is None or text is None:
            ignored[d.path] = problem or "not UTF-8 text (memoir keeps text files only)"
            continue
        problem = check_file_content(text, d.path)
        if problem:
            raise _fail(d.path, problem)
        events.append(SkillFileWritten(name=record.name, file=path, content=text,
                                       previous=record.files.get(path)))
    return events


def _record_text(files: FilesView, rel: str) -> str:
    data = files.read(rel)
    if data is None or len(data) > MAX_RECORDS_BYTES:
        return ""
    return data.decode("utf-8", "replace")


def placed_provenance(files: FilesView) -> dict[str, Provenance]:
    """Where Hermes's records in the home's skills folder say skills came from, by
    name: ``hub`` for the ``installed`` names of ``skills/.hub/lock.json``, else
    ``bundled`` for the names of ``skills/.bundled_manifest`` (Hermes asks the hub
    first).  These files are Hermes's, never memoir's: ``hermes skills`` writes them when
    it seeds or installs a skill beside memoir, and a skill it put there is adopted with
    that provenance, not as a person's.  Unreadable records say nothing."""
    origins: dict[str, Provenance] = {name: "bundled" for name, _digest in manifest_lines(
        _record_text(files, f"{SKILLS_DIR}/.bundled_manifest"), ".bundled_manifest", {})}
    try:
        lock = json.loads(_record_text(files, f"{SKILLS_DIR}/.hub/lock.json") or "{}")
    except (ValueError, RecursionError):
        lock = {}
    installed = lock.get("installed") if isinstance(lock, dict) else None
    origins.update({str(name): "hub" for name in installed or ()}
                   if isinstance(installed, dict) else {})
    return origins


def _adopt_new(files: FilesView, state: State, added: list[str],
               ignored: dict[str, str]) -> list[Payload]:
    """New hand-made skills: a SKILL.md at ``skills/[category/]name/`` and its files,
    a person's unless Hermes's records say it was bundled or installed from the hub."""
    origins = placed_provenance(files) if added else {}
    roots: dict[str, tuple[str, str | None]] = {}
    for rel in added:
        parts = rel.split("/")
        if parts[-1] == SKILL_FILE and parts[1] != ".archive" and len(parts) in (3, 4):
            category = parts[1] if len(parts) == 4 else None
            roots["/".join(parts[:-1]) + "/"] = (parts[-2], category)
    events: list[Payload] = []
    claimed: set[str] = set()
    for folder, (name, category) in sorted(roots.items()):
        skill_md = folder + SKILL_FILE
        text = _read_text(files, skill_md)
        problem = (check_name(name) or check_category(category)
                   or (None if text is not None else "it is not UTF-8 text.")
                   or check_found_skill_md(text))
        if problem:
            raise _fail(skill_md, problem)
        assert text is not None
        existing = state.skills.skills.get(name)
        if existing is not None and not existing.archived:
            raise _fail(skill_md, f"a skill named '{name}' already exists at "
                                  f"{skill_dir(existing)}; memoir cannot "
                                  "adopt a moved or copied skill folder.")
        clash = layout_clash(state, name, category)
        if clash:
            raise _fail(skill_md, clash)
        support: dict[str, str] = {}
        for rel in added:
            if not rel.startswith(folder) or rel == skill_md:
                continue
            claimed.add(rel)
            inner = rel[len(folder):]
            path, path_problem = canonical_file_path(inner, name)
            content = _read_text(files, rel)
            if path_problem or path is None or content is None:
                ignored[rel] = path_problem or "not UTF-8 text (memoir keeps text files only)"
                continue
            size_problem = check_file_content(content, rel)
            if size_problem:
                raise _fail(rel, size_problem)
            support[path] = content
        claimed.add(skill_md)
        events.append(SkillCreated(name=name, category=category, content=text,
                                   provenance=origins.get(name, "user"),
                                   files=support,
                                   protected=name in PROTECTED_SKILLS,
                                   # An archived skill of that name frees it, as a
                                   # create over an archived name does.
                                   archived_as=(archive_key(state, existing)
                                                if existing is not None else None)))
    for rel in added:
        if rel not in claimed:
            ignored[rel] = "not inside a skill folder with a SKILL.md"
    return events


def adoption_events(state: State, files: FilesView, *,
                    bases: Mapping[str, str | None] | None = None, force: bool = False,
                    ) -> tuple[list[Payload], list[str], dict[str, str]]:
    """The events that adopt every hand change, the paths adopted, and the paths left
    alone with the reason (a decision: ``files`` is the view it was given).

    ``bases`` holds, per edited file, the text memoir last wrote there (what the person
    started from): an edit of a file the journal changed since is a conflict
    (:class:`~memoir.errors.AdoptionConflict`) unless ``force``.
    """
    drifts = tree_drift(state, files)
    ignored: dict[str, str] = {}
    by_skill: dict[str, list[SkillDrift]] = {}
    strays: list[str] = []
    for d in drifts:
        if d.path == _USAGE:
            ignored[d.path] = ("telemetry is rendered from the journal; `memoir rebuild "
                               "--force` rewrites it")
        elif d.kind == "blocked":
            ignored[d.path] = ("a link or a folder stands where the file goes; memoir does "
                               "not follow links below its home")
        elif d.skill is not None:
            by_skill.setdefault(d.skill, []).append(d)
        else:
            strays.append(d.path)
    events: list[Payload] = []
    for name in sorted(by_skill):
        events += _adopt_existing(files, state, state.skills.skills[name], by_skill[name],
                                  ignored, bases or {}, force)
    events += _adopt_new(files, state, strays, ignored)
    adopted = sorted(d.path for d in drifts if d.path not in ignored)
    return events, adopted, ignored


def adoption_bases(engine: Home, state: State) -> dict[str, str | None]:
    """For every edited skill file, the text memoir last wrote there (None: unknown)."""
    bases: dict[str, str | None] = {}
    views: dict[int, State] = {}
    for d in tree_drift(state, engine.files):
        if d.kind != "modified" or d.skill is None:
            continue
        at = engine.files.written_at(d.path)
        if at is None or at > state.seq:
            continue
        if at not in views:
            views[at] = engine.view(at)
        record = views[at].skills.skills.get(d.skill)
        bases[d.path] = None
        if record is not None:
            inner = d.path[len(skill_dir(record)) + 1:]
            bases[d.path] = record.file(inner) if d.path.startswith(skill_dir(record)) \
                else None
    return bases


def placed_skill_folders(files: FilesView, state: State | None = None) -> list[str]:
    """The home-relative folders (``skills/[category/]name``) of the skills placed in the
    tree by hand — a regular ``SKILL.md`` there that memoir did not write and that is no
    live skill's of ``state`` — found cheaply: one listing of ``skills/`` and one of
    each folder in it that is not a live skill's own (links and hidden folders skipped,
    no file read).  Hand edits of live skills are not looked for (:func:`tree_drift`)."""
    top = files.absolute(SKILLS_DIR)
    live = set() if state is None else {
        (r.category, r.name) for r in state.skills.skills.values() if not r.archived}
    found: list[str] = []

    def folders(path: str) -> list[str]:
        try:
            with os.scandir(path) as entries:
                return sorted(e.name for e in entries
                              if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
        except OSError:
            return []

    def holds_skill(*parts: str) -> bool:
        # One memoir wrote, for a skill since deleted or archived, is the projection
        # catching up, not a folder a person placed.
        try:
            mode = os.lstat(os.path.join(top, *parts, SKILL_FILE)).st_mode
        except OSError:
            return False
        return stat.S_ISREG(mode) and not files.wrote("/".join((SKILLS_DIR, *parts,
                                                                SKILL_FILE)))

    for first in folders(top):
        if (None, first) in live:
            continue
        if holds_skill(first):
            found.append(f"{SKILLS_DIR}/{first}")
            continue
        found += [f"{SKILLS_DIR}/{first}/{second}" for second in folders(os.path.join(top, first))
                  if (first, second) not in live and holds_skill(first, second)]
    return found


def hand_placed_folder(files: FilesView, name: str) -> str | None:
    """The folder of a skill named ``name`` that a person placed in the tree by hand
    (``skills/[category/]name/SKILL.md``, not written by memoir), or None."""
    return next((folder for folder in placed_skill_folders(files)
                 if folder.rsplit("/", 1)[-1] == name), None)


def folder_adoption_events(state: State, files: FilesView, name: str, *,
                           bases: Mapping[str, str | None] | None = None,
                           ) -> tuple[list[Payload], list[str], dict[str, str]]:
    """The events that adopt the hand changes of one skill's folder — or, for a name the
    journal does not know, of a skill folder placed by hand — and what was adopted and
    left alone, as :func:`adoption_events` says them for the whole tree.  A conflict
    or a change that breaks a rule raises, as there."""
    ignored: dict[str, str] = {}
    record = state.skills.skills.get(name)
    if record is not None and not record.archived:
        drifts = [d for d in skill_folder_drift(files, state, name) if d.kind != "blocked"]
        if not drifts:
            return [], [], ignored
        events = _adopt_existing(files, state, record, drifts, ignored, bases or {}, False)
        return events, sorted(d.path for d in drifts if d.path not in ignored), ignored
    folder = hand_placed_folder(files, name)
    if folder is None:
        return [], [], ignored
    added = [rel for rel in files.files_under(folder) if not files.wrote(rel)]
    events = _adopt_new(files, state, added, ignored)
    return events, sorted(rel for rel in added if rel not in ignored), ignored


def adopt_skills(engine: Home, *, run: str | None = None, force: bool = False) -> Adoption:
    """Adopt every hand change in the skills tree as ``user`` events of one run."""
    report = Adoption(run=run or short_id("adopt-"))
    engine.files.reload()
    bases = adoption_bases(engine, engine.state)

    def adopter(state: State, files: FilesView, force: bool) -> tuple[list[Payload],
                                                                     list[str]]:
        events, report.adopted, report.ignored = adoption_events(state, files, bases=bases,
                                                                 force=force)
        return events, report.adopted

    report.events = adopt(engine, [adopter], force=force, run=report.run, summary=(
        f"adopted hand edits of {len(report.adopted)} file(s) in the skills tree")).events
    return report
