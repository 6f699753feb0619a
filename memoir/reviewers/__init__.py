"""Background reviewers: they read a session's recorded turns and save what is worth
saving, through the same tools as the agent, one run per review (see ``review.py``);
``queue.py`` runs them off the caller's thread; ``rules.py`` is the offline default."""

from __future__ import annotations

from memoir.reviewers.queue import ReviewQueue
from memoir.reviewers.review import (
           REVIEW_TOOLS,
           Backend,
           Review,
           ReviewRequest,
           run_review,
           summarize,
)
from memoir.reviewers.rules import RulesBackend

__all__ = ["REVIEW_TOOLS", "Backend", "Review", "ReviewQueue", "ReviewRequest", "RulesBackend",
           "run_review", "summarize"]
