"""The curator's configuration section, with Hermes's defaults (spec §8)."""

from __future__ import annotations

from memoir.config import Config, CuratorConfig

__all__ = ["CuratorConfig", "curator_config"]


def curator_config(config: Config | None) -> CuratorConfig:
    """The curator section of ``config`` (the defaults when there is no config)."""
    return CuratorConfig() if config is None else config.curator
