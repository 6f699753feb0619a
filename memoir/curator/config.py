"""The curator's configuration section, with Hermes's defaults (spec §8)."""

from __future__ import annotations

from typing import Any

import pydantic

from memoir.config import Config
from memoir.errors import ConfigError

__all__ = ["CuratorConfig", "curator_config"]


class CuratorConfig(pydantic.BaseModel):
    """``curator:`` in ``config.yaml``.  Keys and defaults are Hermes's."""

    model_config = pydantic.ConfigDict(extra="forbid", validate_assignment=True, frozen=True)

    enabled: bool = True
    interval_hours: float = pydantic.Field(168, gt=0)
    # Unlike Hermes (whose callers always pass an infinite idle time), memoir measures
    # idleness from the journal, so this gate takes effect.
    min_idle_hours: float = pydantic.Field(2, ge=0)
    stale_after_days: int = pydantic.Field(30, ge=1)
    archive_after_days: int = pydantic.Field(90, ge=1)
    prune_builtins: bool = True
    consolidate: bool = False


def curator_config(config: Config | None) -> CuratorConfig:
    """The curator section of ``config``: ``config.curator`` once the main config has
    the section, else ``config.extra["curator"]``, else the defaults."""
    if config is None:
        return CuratorConfig()
    section: Any = getattr(config, "curator", None)
    if isinstance(section, CuratorConfig):
        return section
    if section is not None and hasattr(section, "model_dump"):
        return CuratorConfig.model_validate(section.model_dump())
    raw = config.extra.get("curator") if isinstance(config.extra, dict) else None
    if raw is None:
        return CuratorConfig()
    try:
        return CuratorConfig.model_validate(raw)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"curator.{where}: {first['msg']}") from None
