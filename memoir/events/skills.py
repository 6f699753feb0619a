"""Skill events: procedural memory (SKILL.md and its support files), its telemetry and
its lifecycle.

A skill is keyed by its ``name`` everywhere (directory name and frontmatter name
must agree), which fixes Hermes's split between directory and frontmatter keys.
Every content change carries the full new text and the text it replaced, so any
version of any file of any skill can be read back from the journal.

Entities (for conflict checks and revert): content and lifecycle events touch
``skill:<name>``; telemetry (viewed, used) touches ``skill-usage:<name>`` only, so a
view after a patch never counts as a conflicting change; a refused write touches
nothing.
"""

from __future__ import annotations

from typing import Any, Literal

from memoir.events.types import Payload, event_type, require
from memoir.names import (
    check_category,
    check_content_size,
    check_file_content,
    check_name,
    check_skill_file,
    check_skill_key,
    is_record_line,
)

__all__ = [
    "PAYLOADS",
    "Provenance",
    "SkillArchived",
    "SkillContentSet",
    "SkillCreated",
    "SkillDeleted",
    "SkillFileRemoved",
    "SkillFileWritten",
    "SkillPatched",
    "SkillPinned",
    "SkillRestored",
    "SkillStateChanged",
    "SkillUnpinned",
    "SkillUsageSet",
    "SkillUsed",
    "SkillViewed",
    "SkillWriteRejected",
    "SkillsSourcesImported",
]

#: Where a skill came from, recorded once when it enters the journal.
#: ``external``: a skill of ``skills.external_dirs``, journaled where it lives.
Provenance = Literal["agent", "user", "bundled", "hub", "import", "external"]
LifecycleState = Literal["active", "stale", "archived"]


class _SkillPayload(Payload, frozen=True, kw_only=True):
    name: str

    def __post_init__(self) -> None:
        # The name is a folder of the skills tree (see memoir.names).
        require("name", check_skill_key(self.name))

    def entities(self) -> tuple[str, ...]:
        return (f"skill:{self.name}",)


def _require_files(name: str, files: dict[str, str]) -> None:
    for path, text in files.items():
        require("files", check_skill_file(path, name)
                or check_file_content(text, path))


def _require_key(field: str, name: str | None) -> None:
    if name is not None:
        require(field, check_skill_key(name))


def _check_root(root: str | None) -> str | None:
    """Why ``root`` cannot name an external skills folder (None: it can, or is None).

    The journal only names the folder as the configuration wrote it; where it is on
    disk is decided by the configuration of the home that reads the journal."""
    if root is None:
        return None
    if not root.strip() or len(root) > 1024:
        return "must be a configured folder of skills.external_dirs (1-1024 characters)"
    if any(ord(c) < 32 or ord(c) == 127 for c in root):
        return "must not hold control characters"
    return None


@event_type("skill.created")
class SkillCreated(_SkillPayload, frozen=True, kw_only=True):
    """A new skill with its SKILL.md text; ``files`` holds support files it came with."""

    category: str | None = None
    content: str
    provenance: Provenance
    files: dict[str, str] = {}
    protected: bool = False
    #: Owner when it differs from what ``provenance`` implies: an imported skill that
    #: Hermes's ``.usage.json`` marked ``created_by: "agent"`` stays agent-owned.
    created_by: str | None = None
    #: When an archived skill has this name: the name it is kept under from now on
    #: (``<name>-<archived YYYYMMDDHHMMSS>``, Hermes's suffix), so the name is free.
    archived_as: str | None = None
    #: The ``skills.external_dirs`` entry, as configured, the skill lives in (None: the
    #: home's skills tree).  Its files are written there, in place.
    root: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        require("category", _stored_category(self.category))
        require("content", check_content_size(self.content))
        _require_files(self.name, self.files)
        _require_key("archived_as", self.archived_as)
        require("root", _check_root(self.root))

    def entities(self) -> tuple[str, ...]:
        own = (f"skill:{self.name}",)
        return (*own, f"skill:{self.archived_as}") if self.archived_as else own


@event_type("skill.content_set")
class SkillContentSet(_SkillPayload, frozen=True, kw_only=True):
    """SKILL.md rewritten in full (``skill_manage edit``)."""

    content: str
    previous: str

    def __post_init__(self) -> None:
        super().__post_init__()
        require("content", check_content_size(self.content))


@event_type("skill.patched")
class SkillPatched(_SkillPayload, frozen=True, kw_only=True):
    """A find-and-replace in SKILL.md or a support file; full texts before and after."""

    file: str
    content: str
    previous: str
    old_string: str
    new_string: str
    replacements: int

    def __post_init__(self) -> None:
        super().__post_init__()
        require("file", check_skill_file(self.file, self.name, skill_md=True))
        require("content", check_content_size(self.content) if self.file == "SKILL.md"
                else check_file_content(self.content, self.file))


@event_type("skill.file_written")
class SkillFileWritten(_SkillPayload, frozen=True, kw_only=True):
    """A support file created or overwritten; ``previous`` is None for a new file."""

    file: str
    content: str
    previous: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        require("file", check_skill_file(self.file, self.name)
                or check_file_content(self.content, self.file))


@event_type("skill.file_removed")
class SkillFileRemoved(_SkillPayload, frozen=True, kw_only=True):
    file: str
    previous: str

    def __post_init__(self) -> None:
        super().__post_init__()
        require("file", check_skill_file(self.file, self.name))


@event_type("skill.archived")
class SkillArchived(_SkillPayload, frozen=True, kw_only=True):
    """Moved to ``skills/.archive/[category/]name``; says whether it was absorbed into an
    umbrella skill (which exists) or pruned, and why."""

    absorbed_into: str | None = None
    reason: str
    previous_state: LifecycleState = "active"

    def __post_init__(self) -> None:
        super().__post_init__()
        _require_key("absorbed_into", self.absorbed_into)


@event_type("skill.restored")
class SkillRestored(_SkillPayload, frozen=True, kw_only=True):
    """Brought back from the archive to its original category path; ``as_name``
    gives a copy archived under a suffixed name (see ``SkillCreated.archived_as``)
    its own name back."""

    reason: str = ""
    as_name: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.as_name is not None:
            require("as_name", check_name(self.as_name))

    def entities(self) -> tuple[str, ...]:
        own = (f"skill:{self.name}",)
        return (*own, f"skill:{self.as_name}") if self.as_name else own


@event_type("skill.deleted")
class SkillDeleted(_SkillPayload, frozen=True, kw_only=True):
    """Removed by a person.  Its content stays readable in the events before this one;
    ``content`` and ``files`` repeat the last version so a revert needs nothing else."""

    absorbed_into: str | None = None
    category: str | None = None
    content: str
    files: dict[str, str] = {}
    provenance: Provenance = "agent"
    created_by: str | None = None
    #: The external folder the skill lived in (see :class:`SkillCreated`).
    root: str | None = None
    #: The journal forgets the skill and its files stay where they are (the revert of
    #: the run that brought an external folder's skill into the journal).
    keep_files: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        require("category", _stored_category(self.category))
        _require_key("absorbed_into", self.absorbed_into)
        _require_files(self.name, self.files)
        require("root", _check_root(self.root))


@event_type("skill.pinned")
class SkillPinned(_SkillPayload, frozen=True, kw_only=True):
    pass


@event_type("skill.unpinned")
class SkillUnpinned(_SkillPayload, frozen=True, kw_only=True):
    pass


@event_type("skill.viewed")
class SkillViewed(_SkillPayload, frozen=True, kw_only=True):
    """``skill_view`` read the skill (or one of its files); counted once per call."""

    file: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.file is not None:
            require("file", check_skill_file(self.file, self.name, skill_md=True))

    def entities(self) -> tuple[str, ...]:
        return (f"skill-usage:{self.name}",)


@event_type("skill.used")
class SkillUsed(_SkillPayload, frozen=True, kw_only=True):
    """The skill was activated (slash command, preload, cron run)."""

    via: str = "activation"

    def entities(self) -> tuple[str, ...]:
        return (f"skill-usage:{self.name}",)


@event_type("skill.state_changed")
class SkillStateChanged(_SkillPayload, frozen=True, kw_only=True):
    """A lifecycle transition active ↔ stale (archiving has its own event)."""

    from_state: LifecycleState
    to_state: LifecycleState
    reason: str = ""


@event_type("skill.write_rejected")
class SkillWriteRejected(_SkillPayload, frozen=True, kw_only=True):
    """A skill change refused by a guard (background actor on a protected skill, …)."""

    action: str
    reason: str
    guard: str

    def __post_init__(self) -> None:
        pass  # records what was refused, whatever name it was given; names no folder

    def entities(self) -> tuple[str, ...]:
        return ()


@event_type("skill.usage_set")
class SkillUsageSet(_SkillPayload, frozen=True, kw_only=True):
    """The skill's telemetry as another program recorded it — a Hermes ``.usage.json``
    record, imported or adopted from a home both use: these counts and times replace
    memoir's.  ``source`` names that program."""

    source: str = "hermes"
    created_at: str | None = None
    use_count: int = 0
    view_count: int = 0
    patch_count: int = 0
    last_used_at: str | None = None
    last_viewed_at: str | None = None
    last_patched_at: str | None = None
    archived_at: str | None = None

    def entities(self) -> tuple[str, ...]:
        return (f"skill-usage:{self.name}",)


@event_type("skill.sources_imported")
class SkillsSourcesImported(Payload, frozen=True, kw_only=True):
    """What a Hermes home records about where its skills came from, kept so an export
    writes it back: ``bundled`` (``.bundled_manifest``: name → hash, in file order),
    ``hub`` (``.hub/lock.json``'s ``installed`` records), ``hub_lock`` (that file's other
    top-level keys) and ``suppressed`` (``.curator_suppressed``).  Replaces what an
    earlier import recorded."""

    bundled: list[tuple[str, str]] = []
    hub: dict[str, Any] = {}
    hub_lock: dict[str, Any] = {}
    suppressed: list[str] = []

    def __post_init__(self) -> None:
        # Written back line by line (``name:hash``, ``name``) by an export.
        for name, digest in self.bundled:
            if not is_record_line(name) or ":" in name or not is_record_line(digest):
                require("bundled", f"{name!r}: {digest!r} is not a manifest line")
        for name in self.suppressed:
            if not is_record_line(name):
                require("suppressed", f"{name!r} is not one line")

    def entities(self) -> tuple[str, ...]:
        return ("skills:sources",)


def _stored_category(category: str | None) -> str | None:
    """A category as the journal keeps it: None, or one folder name, already stripped."""
    if category is not None and (category != category.strip() or not category):
        return f"category {category!r} is not stored stripped"
    return check_category(category)


#: Every payload type of this module, for the catalog (:mod:`memoir.events.catalog`).
PAYLOADS: tuple[type[Payload], ...] = (
    SkillCreated,
    SkillContentSet,
    SkillPatched,
    SkillFileWritten,
    SkillFileRemoved,
    SkillArchived,
    SkillRestored,
    SkillDeleted,
    SkillPinned,
    SkillUnpinned,
    SkillViewed,
    SkillUsed,
    SkillStateChanged,
    SkillWriteRejected,
    SkillUsageSet,
    SkillsSourcesImported,
)
