"""The skills projection: every skill's current files, provenance, telemetry and
lifecycle, folded from ``skill.*`` events.

The fold steps here are pure functions of ``(SkillsState, Event)``, composed into
:class:`memoir.projections.state.State` through :data:`FOLDS`.  Like every fold they
never fail — an event naming a skill that is not there changes nothing — and take
every time from ``event.ts``.

Where a skill lives on disk is a function of its record (:func:`skill_paths`), so
the fold also remembers, per skill name, the paths a skill no longer occupies
(``SkillsState.vacated``): the renderer writes "no file" there, which is how an
archive, a restore, a removed file or a deleted skill disappears from the tree,
both incrementally and in a rebuild from scratch.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import msgspec

from memoir.events.skills import (
    SkillArchived,
    SkillContentSet,
    SkillCreated,
    SkillDeleted,
    SkillFileRemoved,
    SkillFileWritten,
    SkillPatched,
    SkillPinned,
    SkillRestored,
    SkillsSourcesImported,
    SkillStateChanged,
    SkillUnpinned,
    SkillUsageSet,
    SkillUsed,
    SkillViewed,
)
from memoir.events.types import Event, Payload

__all__ = [
    "ARCHIVE_DIR",
    "FOLDS",
    "SKILLS_DIR",
    "SKILL_FILE",
    "SkillRecord",
    "SkillSources",
    "SkillsState",
    "created_owner",
    "event_names",
    "external_key",
    "fold_skill_event",
    "shown_path",
    "skill_dir",
    "skill_location",
    "skill_paths",
    "split_external",
]

#: Where the skills tree lives in a home, and where archived skills go.
SKILLS_DIR = "skills"
ARCHIVE_DIR = "skills/.archive"
SKILL_FILE = "SKILL.md"
#: Where the files of a skill of ``skills.external_dirs`` are, in the paths the
#: projection and the manifest use: ``@external/<key>/[category/]name/…``, ``key`` a
#: digest of the configured entry (:func:`external_key`).  The materializer maps the key
#: to the folder this home's configuration names; a key it does not know is never
#: written (the journal never says where on disk a file goes).
EXTERNAL_DIR = "@external"


class SkillRecord(msgspec.Struct, kw_only=True):
    """One skill as of some seq.  Timestamps come from event ``ts`` (ISO-8601 UTC).

    ``created_by`` is ``"agent"`` when the skill belongs to the agent (background
    actors may maintain it, and ``.usage.json`` says ``created_by: "agent"`` as
    Hermes's curator expects); otherwise it names the owner (``user``, ``bundled``,
    ``hub``, ``import``).  ``files`` maps support-file paths (``references/x.md``)
    to their text; SKILL.md is ``content``.
    """

    name: str
    category: str | None = None
    provenance: str = "agent"
    created_by: str = "agent"
    created_at: str = ""
    content: str = ""
    files: dict[str, str] = msgspec.field(default_factory=dict)
    state: str = "active"
    pinned: bool = False
    protected: bool = False
    use_count: int = 0
    view_count: int = 0
    patch_count: int = 0
    last_used_at: str | None = None
    last_viewed_at: str | None = None
    last_patched_at: str | None = None
    archived_at: str | None = None
    absorbed_into: str | None = None
    archive_reason: str | None = None
    #: seq of the ``skill.created`` event and of the last event that changed a file.
    created_seq: int = 0
    updated_seq: int = 0
    updated_at: str = ""
    #: Number of content versions (1 at creation, +1 per edit, patch, file change).
    version: int = 0
    #: The ``skills.external_dirs`` entry the skill lives in (None: the home's tree).
    root: str | None = None

    @property
    def last_activity_at(self) -> str | None:
        """The latest of used / viewed / patched (creation excluded), as Hermes derives it."""
        times = [t for t in (self.last_used_at, self.last_viewed_at, self.last_patched_at) if t]
        return max(times) if times else None

    @property
    def activity_count(self) -> int:
        return self.use_count + self.view_count + self.patch_count

    @property
    def archived(self) -> bool:
        return self.state == "archived"

    def file(self, path: str) -> str | None:
        """The text of ``SKILL.md`` or of a support file, None if there is no such file."""
        return self.content if path == SKILL_FILE else self.files.get(path)


class SkillSources(msgspec.Struct, kw_only=True):
    """What a Hermes home recorded about where its skills came from (see
    :class:`~memoir.events.skills.SkillsSourcesImported`)."""

    bundled: list[tuple[str, str]] = msgspec.field(default_factory=list)
    hub: dict[str, Any] = msgspec.field(default_factory=dict)
    hub_lock: dict[str, Any] = msgspec.field(default_factory=dict)
    suppressed: list[str] = msgspec.field(default_factory=list)


class SkillsState(msgspec.Struct):
    skills: dict[str, SkillRecord] = msgspec.field(default_factory=dict)
    #: name → home-relative paths the skill once occupied and no longer does.
    vacated: dict[str, list[str]] = msgspec.field(default_factory=dict)
    #: A Hermes home's records of its skills' sources (bundled, hub), kept for export.
    sources: SkillSources = msgspec.field(default_factory=SkillSources)

    def live(self, name: str) -> SkillRecord | None:
        """The skill if it exists and is not archived (what agent tools may touch)."""
        record = self.skills.get(name)
        return record if record is not None and not record.archived else None


def external_key(entry: str) -> str:
    """The short stable key of a ``skills.external_dirs`` entry in projected paths."""
    return hashlib.blake2s(entry.encode("utf-8"), digest_size=6).hexdigest()


def skill_dir(record: SkillRecord) -> str:
    """The home-relative folder of a skill: ``skills/[category/]name`` or the same
    path under ``skills/.archive/`` (the category is kept, unlike Hermes); a skill of
    an external folder is at ``@external/<key>/[category/]name`` (see
    :data:`EXTERNAL_DIR`)."""
    middle = f"{record.category}/" if record.category else ""
    if record.root is not None and not record.archived:
        return f"{EXTERNAL_DIR}/{external_key(record.root)}/{middle}{record.name}"
    base = ARCHIVE_DIR if record.archived else SKILLS_DIR
    return f"{base}/{middle}{record.name}"


def split_external(rel: str) -> tuple[str, str] | None:
    """(key, path below the external folder) of a path under :data:`EXTERNAL_DIR`;
    None for any other path."""
    if not rel.startswith(EXTERNAL_DIR + "/"):
        return None
    key, _, rest = rel[len(EXTERNAL_DIR) + 1:].partition("/")
    return key, rest


def shown_path(rel: str, entries: Iterable[str | None]) -> str:
    """``rel`` as a person reads it: a file of an external folder under the folder's
    entry of ``skills.external_dirs`` (``~/team/ops/x/SKILL.md``), other paths as they
    are (``entries``: the entries that may be named)."""
    split = split_external(rel)
    if split is None:
        return rel
    key, rest = split
    named = {external_key(e): e for e in entries if e}
    return f"{named[key].rstrip('/')}/{rest}" if key in named else rel


def skill_location(record: SkillRecord, root: str, roots: Mapping[str, str]) -> tuple[str, str]:
    """(the skills folder the skill lives under, its folder below that): ``root`` (the
    home's skills folder) and ``[.archive/][category/]name``, or for a skill of an
    external folder the folder ``roots`` gives its entry (the entry itself when this
    home has none) and ``[category/]name``."""
    if record.root is not None and not record.archived:
        return roots.get(record.root, record.root).rstrip("/"), \
            skill_dir(record).split("/", 2)[2]
    return root.rstrip("/"), skill_dir(record)[len(SKILLS_DIR) + 1:]


def skill_paths(record: SkillRecord) -> dict[str, str]:
    """Every file of the skill: home-relative path → text."""
    folder = skill_dir(record)
    paths = {f"{folder}/{SKILL_FILE}": record.content}
    for rel, text in record.files.items():
        paths[f"{folder}/{rel}"] = text
    return paths


# -- fold steps ----------------------------------------------------------------------------

Fold = Callable[[SkillsState, Event], None]


def event_names(data: object) -> list[str]:
    """The skill names an event touches: its own and, for a rename, the other one."""
    names = [getattr(data, "name", None), getattr(data, "archived_as", None),
             getattr(data, "as_name", None)]
    return [n for n in names if isinstance(n, str)]


def _paths_of(skills: SkillsState, name: str) -> set[str]:
    record = skills.skills.get(name)
    return set(skill_paths(record)) if record is not None else set()


def fold_skill_event(skills: SkillsState, event: Event) -> None:
    """Apply one skill event (others are ignored), keeping ``vacated`` exact."""
    step = _STEPS.get(type(event.data))
    if step is None:
        return
    names = event_names(event.data)
    before = {name: _paths_of(skills, name) for name in names}
    step(skills, event)
    if isinstance(event.data, SkillDeleted) and event.data.keep_files:
        return  # the files stay on disk: nothing is vacated
    after = {name: _paths_of(skills, name) for name in names}
    live = set().union(*after.values()) if after else set()
    for name in names:
        gone = before[name] - after[name]
        if not gone and name not in skills.vacated:
            continue
        vacated = (set(skills.vacated.get(name, ())) | gone) - live
        if vacated:
            skills.vacated[name] = sorted(vacated)
        else:
            skills.vacated.pop(name, None)


def _changed(record: SkillRecord, event: Event) -> None:
    record.version += 1
    record.updated_seq = event.seq
    record.updated_at = event.ts
    # Hermes bumps the patch counter on edit, patch, write_file and remove_file; every
    # content change counts here, whoever made it (a hand edit adopted, a revert).
    record.patch_count += 1
    record.last_patched_at = event.ts


def _rename(skills: SkillsState, old: str, new: str) -> SkillRecord | None:
    record = skills.skills.pop(old, None)
    if record is not None:
        record.name = new
        skills.skills[new] = record
    return record


def created_owner(data: SkillCreated) -> str:
    """Who a new skill belongs to: the event's ``created_by``, else its provenance
    (``agent`` for the agent's own)."""
    return data.created_by or data.provenance


def _created(skills: SkillsState, event: Event) -> None:
    data = event.data
    assert isinstance(data, SkillCreated)
    existing = skills.skills.get(data.name)
    if data.archived_as and existing is not None and existing.archived \
            and data.archived_as not in skills.skills:
        _rename(skills, data.name, data.archived_as)
    created_by = created_owner(data)
    skills.skills[data.name] = SkillRecord(
        name=data.name, category=data.category, provenance=data.provenance,
        created_by=created_by, created_at=event.ts, content=data.content,
        files=dict(data.files), protected=data.protected, created_seq=event.seq,
        updated_seq=event.seq, updated_at=event.ts, version=1, root=data.root,
    )


def _content_set(skills: SkillsState, event: Event) -> None:
    data = event.data
    assert isinstance(data, SkillContentSet)
    record = skills.skills.get(data.name)
    if record is not None:
        record.content = data.content
        _changed(record, event)


def _file_set(skills: SkillsState, event: Event) -> None:
    # A patch and a write both carry the file's full new text.
    data = event.data
    assert isinstance(data, SkillPatched | SkillFileWritten)
    record = skills.skills.get(data.name)
    if record is None:
        return
    if data.file == SKILL_FILE:
        record.content = data.content
    else:
        record.files[data.file] = data.content
    _changed(record, event)


def _file_removed(skills: SkillsState, event: Event) -> None:
    data = event.data
    assert isinstance(data, SkillFileRemoved)
    record = skills.skills.get(data.name)
    if record is not None and data.file in record.files:
        del record.files[data.file]
        _changed(record, event)


def _archived(skills: SkillsState, event: Event) -> None:
    data = event.data
    assert isinstance(data, SkillArchived)
    record = skills.skills.get(data.name)
    if record is None:
        return
    record.state = "archived"
    record.archived_at = event.ts
    record.absorbed_into = data.absorbed_into
    record.archive_reason = data.reason


def _restored(skills: SkillsState, event: Event) -> None:
    data = event.data
    assert isinstance(data, SkillRestored)
    record = skills.skills.get(data.name)
    if record is None:
        return
    if data.as_name and data.as_name not in skills.skills:
        record = _rename(skills, data.name, data.as_name) or record
    record.state = "active"
    record.archived_at = None
    record.absorbed_into = None
    record.archive_reason = None


def _deleted(skills: SkillsState, event: Event) -> None:
    data = event.data
    assert isinstance(data, SkillDeleted)
    skills.skills.pop(data.name, None)


def _pinned(skills: SkillsState, event: Event) -> None:
    record = skills.skills.get(getattr(event.data, "name", ""))
    if record is not None:
        record.pinned = True


def _unpinned(skills: SkillsState, event: Event) -> None:
    record = skills.skills.get(getattr(event.data, "name", ""))
    if record is not None:
        record.pinned = False


def _viewed(skills: SkillsState, event: Event) -> None:
    record = skills.skills.get(getattr(event.data, "name", ""))
    if record is not None:
        record.view_count += 1
        record.last_viewed_at = event.ts


def _used(skills: SkillsState, event: Event) -> None:
    record = skills.skills.get(getattr(event.data, "name", ""))
    if record is not None:
        record.use_count += 1
        record.last_used_at = event.ts


def _usage_set(skills: SkillsState, event: Event) -> None:
    data = event.data
    assert isinstance(data, SkillUsageSet)
    record = skills.skills.get(data.name)
    if record is None:
        return
    if data.created_at:
        record.created_at = data.created_at
    record.use_count, record.view_count = data.use_count, data.view_count
    record.patch_count = data.patch_count
    record.last_used_at, record.last_viewed_at = data.last_used_at, data.last_viewed_at
    record.last_patched_at = data.last_patched_at
    if record.archived and data.archived_at:
        record.archived_at = data.archived_at


def _sources(skills: SkillsState, event: Event) -> None:
    data = event.data
    assert isinstance(data, SkillsSourcesImported)
    skills.sources = SkillSources(bundled=[(n, h) for n, h in data.bundled],
                                  hub=dict(data.hub), hub_lock=dict(data.hub_lock),
                                  suppressed=list(data.suppressed))


def _state_changed(skills: SkillsState, event: Event) -> None:
    data = event.data
    assert isinstance(data, SkillStateChanged)
    record = skills.skills.get(data.name)
    if record is None:
        return
    record.state = data.to_state
    if data.to_state == "active":
        record.archived_at = None
    elif data.to_state == "archived" and record.archived_at is None:
        record.archived_at = event.ts


#: payload class → the step :func:`fold_skill_event` runs for it.
_STEPS: dict[type[Payload], Fold] = {
    SkillCreated: _created,
    SkillContentSet: _content_set,
    SkillPatched: _file_set,
    SkillFileWritten: _file_set,
    SkillFileRemoved: _file_removed,
    SkillArchived: _archived,
    SkillRestored: _restored,
    SkillDeleted: _deleted,
    SkillPinned: _pinned,
    SkillUnpinned: _unpinned,
    SkillViewed: _viewed,
    SkillUsed: _used,
    SkillStateChanged: _state_changed,
    SkillUsageSet: _usage_set,
    SkillsSourcesImported: _sources,
}
#: payload class → fold step on :class:`SkillsState` (composed by :mod:`memoir.projections.state`).
FOLDS: dict[type[Payload], Fold] = dict.fromkeys(_STEPS, fold_skill_event)
