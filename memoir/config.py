"""Configuration: a pydantic model with Hermes's defaults, read from ``config.yaml`` in
the home, with a few environment overrides.

Keys mirror Hermes's where they mean the same thing (``memory.memory_char_limit``,
``curator.interval_hours`` …) so a Hermes user finds them where they expect.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

import pydantic
import yaml

from memoir.errors import ConfigError, ValidationError
from memoir.reading import read_text

__all__ = [
    "CONFIG_FILE",
    "Config",
    "CuratorConfig",
    "JournalConfig",
    "MemoryConfig",
    "ProjectionsConfig",
    "SkillsConfig",
    "load_config",
]

CONFIG_FILE = "config.yaml"


class _Section(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", validate_assignment=True)


def _approval_flag(value: Any) -> Any:
    """``write_approval`` as Hermes reads it: a bool, or one of the strings on, true,
    yes, 1, approve, enabled (any other string is off)."""
    if isinstance(value, str):
        return value.strip().lower() in {"on", "true", "yes", "1", "approve", "enabled"}
    return value


#: A ``write_approval`` key (spec §1.9): hold the section's writes for a person.
ApprovalFlag = Annotated[bool, pydantic.BeforeValidator(_approval_flag)]


class MemoryConfig(_Section):
    memory_char_limit: int = pydantic.Field(2200, ge=1, le=1_000_000)
    user_char_limit: int = pydantic.Field(1375, ge=1, le=1_000_000)
    nudge_interval: int = pydantic.Field(10, ge=0)
    #: Adopt a well-formed hand edit of MEMORY.md / USER.md (as the person's, actor
    #: ``user``) when a session starts and before an agent writes to the file, as Hermes
    #: re-reads its files.  Off: every hand edit waits for ``memoir adopt``.
    adopt_hand_edits: bool = True
    #: Hold every memory write an agent or a review makes for a person's approval
    #: (``memoir pending``); a person's own writes are never held.
    write_approval: ApprovalFlag = False


class JournalConfig(_Section):
    durability: Literal["always", "batch", "never"] = "always"
    lock_timeout_seconds: float = pydantic.Field(60.0, gt=0)
    checkpoint_every: int = pydantic.Field(10_000, ge=100)
    #: A file (outside the home) holding the key that seals the chain's head and keys
    #: the checkpoints' digests; ``$MEMOIR_KEY`` takes precedence.  See docs/guarantees.md.
    key_file: str | None = None


class ProjectionsConfig(_Section):
    """``projections:`` — how MEMORY.md, USER.md and the skills tree are kept up to date.

    ``background`` (default): a commit returns once its events are durable in the
    journal; a thread of the handle writes the files a moment later, coalescing bursts
    of commits into one write.  :meth:`Memoir.flush` (and closing the handle) waits for
    them.  ``sync``: every commit writes its files before it returns.
    """

    mode: Literal["background", "sync"] = "background"
    #: How long the background writer lets commits accumulate before writing (ms).
    coalesce_ms: float = pydantic.Field(20.0, ge=0, le=10_000)


class SkillsConfig(_Section):
    """``skills:`` — keys and defaults are Hermes's."""

    #: Threat-scan the skills a foreground agent writes too (background writes, from
    #: reviewers and the curator, are always scanned).
    guard_agent_created: bool = False
    #: Adopt hand edits of a skill's folder (and skills placed in the tree by hand) as
    #: the person's before an agent changes or loads that skill, as Hermes reads the
    #: tree.  Off: they wait for ``memoir adopt``.
    adopt_hand_edits: bool = True
    #: Extra folders of skills the agent may read (``~`` and ``${VAR}`` expanded); local
    #: skills win on a name collision, and memoir never writes to them.
    external_dirs: list[str] = pydantic.Field(default_factory=list)
    #: Hold every skill write an agent or a review makes for a person's approval.
    write_approval: ApprovalFlag = False


class CuratorConfig(_Section):
    """``curator:`` — keys and defaults are Hermes's (spec §8)."""

    enabled: bool = True
    interval_hours: float = pydantic.Field(168, gt=0)
    # Unlike Hermes (whose callers always pass an infinite idle time), memoir measures
    # idleness from the journal, so this gate takes effect.
    min_idle_hours: float = pydantic.Field(2, ge=0)
    stale_after_days: int = pydantic.Field(30, ge=1)
    archive_after_days: int = pydantic.Field(90, ge=1)
    prune_builtins: bool = True
    consolidate: bool = False


class Config(_Section):
    """Everything configurable; every field has Hermes's default where Hermes has one."""

    memory: MemoryConfig = pydantic.Field(default_factory=MemoryConfig)
    journal: JournalConfig = pydantic.Field(default_factory=JournalConfig)
    projections: ProjectionsConfig = pydantic.Field(default_factory=ProjectionsConfig)
    skills: SkillsConfig = pydantic.Field(default_factory=SkillsConfig)
    curator: CuratorConfig = pydantic.Field(default_factory=CuratorConfig)
    extra: dict[str, Any] = pydantic.Field(default_factory=dict)


_ENV = {
    "MEMOIR_DURABILITY": ("journal", "durability"),
    "MEMOIR_PROJECTIONS": ("projections", "mode"),
    "MEMOIR_MEMORY_CHAR_LIMIT": ("memory", "memory_char_limit"),
    "MEMOIR_USER_CHAR_LIMIT": ("memory", "user_char_limit"),
}


def load_config(home: Path) -> Config:
    """Read ``home/config.yaml`` (missing → defaults) and apply environment overrides."""
    path = home / CONFIG_FILE
    raw: Any = {}
    if path.exists():
        try:
            raw = yaml.safe_load(read_text(path, limit=1 << 20, what="config file")) or {}
        except ValidationError as exc:
            raise ConfigError(str(exc)) from None
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: not valid YAML: {exc}") from None
        if not isinstance(raw, dict):
            raise ConfigError(f"{path}: expected a mapping at the top level")
    from_env: dict[tuple[str, str], str] = {}
    for var, (section, key) in _ENV.items():
        if var in os.environ:
            from_env[(section, key)] = var
            raw.setdefault(section, {})
            if not isinstance(raw[section], dict):
                raise ConfigError(f"{path}: '{section}' must be a mapping")
            raw[section][key] = os.environ[var]
    try:
        return Config.model_validate(raw)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        loc = [str(p) for p in first["loc"]]
        env_var = from_env.get((loc[0], loc[1])) if len(loc) >= 2 else None
        source = f"${env_var} (overrides {path})" if env_var else str(path)
        raise ConfigError(f"{source}: {where}: {first['msg']}") from None
