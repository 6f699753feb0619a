"""Which reviewer runs: what ``reviewers.backend`` names, ``auto`` resolved.  A module of
its own, light to import, so that ``memoir status`` can say it without loading the
reviewers."""

from __future__ import annotations

from memoir import semantic
from memoir.config import Config

__all__ = ["backend_in_effect"]


def backend_in_effect(config: Config) -> str:
    """The reviewer ``reviewers.backend`` names; ``auto`` is ``semantic`` where hybrid
    recall would embed (the semantic extra importable, ``episodic.semantic`` not
    ``off``), else ``rules``."""
    if config.reviewers.backend != "auto":
        return config.reviewers.backend
    return "semantic" if config.episodic.semantic != "off" and semantic.available() \
        else "rules"
