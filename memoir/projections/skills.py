"""The skills projection: every skill's current files, provenance, telemetry and
lifecycle, folded from ``skill.*`` events.  (Fold handlers and renderers: to be filled
by the skills work; this module fixes the state's shape.)"""

from __future__ import annotations

import msgspec

__all__ = ["SkillRecord", "SkillsState"]


class SkillRecord(msgspec.Struct, kw_only=True):
    """One skill as of some seq.  Timestamps come from event ``ts`` (ISO-8601 UTC)."""

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

    @property
    def last_activity_at(self) -> str | None:
        """The latest of used / viewed / patched (creation excluded), as Hermes derives it."""
        times = [t for t in (self.last_used_at, self.last_viewed_at, self.last_patched_at) if t]
        return max(times) if times else None


class SkillsState(msgspec.Struct):
    skills: dict[str, SkillRecord] = msgspec.field(default_factory=dict)
