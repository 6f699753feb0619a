"""Background reviewers: they read a session's recorded turns and save what is worth
saving, through the same tools as the agent, one run per review (see ``review.py``);
``queue.py`` runs them off the caller's thread; ``rules.py`` is the offline default;
``choice.py`` says which one runs.

The names below are imported on first use: a command that only asks which reviewer is
in effect (``memoir status``) loads none of them.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["REVIEW_TOOLS", "Backend", "Review", "ReviewQueue", "ReviewRequest", "RulesBackend",
           "run_review", "summarize"]

_WHERE = {"ReviewQueue": "queue", "RulesBackend": "rules", "REVIEW_TOOLS": "review",
          "Backend": "review", "Review": "review", "ReviewRequest": "review",
          "run_review": "review", "summarize": "review"}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f"memoir.reviewers.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'memoir.reviewers' has no attribute {name!r}")
