"""Review events: what a background review of a session's turns did, or why it did not.

A review is a run (``run.started`` of kind ``review``): its memory and skill changes are
that run's events, written as actor ``reviewer.memory`` / ``reviewer.skills``, and one
of these closes it.  ``through_turn`` is the last turn it covered, so a session knows
which turns no review has seen yet.
"""

from __future__ import annotations

from memoir.events.types import Payload, event_type

__all__ = ["PAYLOADS", "ReviewCompleted", "ReviewFailed", "ReviewSkipped",
           "ReviewWriteLimitReached"]


@event_type("review.completed")
class ReviewCompleted(Payload, frozen=True, kw_only=True):
    """A review finished: what it looked at (``kinds``: memory, skills), the backend
    (``rules``, ``llm``), how many changes it made and a summary of them (from its own
    events, in the display mode of ``display.memory_notifications``)."""

    session_id: str
    through_turn: int
    kinds: tuple[str, ...]
    backend: str
    changes: int = 0
    summary: str = ""
    trigger: str = "nudge"

    def entities(self) -> tuple[str, ...]:
        return (f"session:{self.session_id}",)


@event_type("review.failed")
class ReviewFailed(Payload, frozen=True, kw_only=True):
    """A review could not finish (an exception, the LLM down, output it could not use):
    nothing it decided was written; ``reason`` says why."""

    session_id: str
    through_turn: int
    kinds: tuple[str, ...]
    backend: str
    reason: str
    trigger: str = "nudge"

    def entities(self) -> tuple[str, ...]:
        return (f"session:{self.session_id}",)


@event_type("review.skipped")
class ReviewSkipped(Payload, frozen=True, kw_only=True):
    """A review that was due did not run (the handle closed before it could, the queue
    was full); ``reason`` says why.  ``memoir review --session ID`` runs it by hand."""

    session_id: str
    through_turn: int
    kinds: tuple[str, ...]
    reason: str
    trigger: str = "nudge"

    def entities(self) -> tuple[str, ...]:
        return (f"session:{self.session_id}",)


@event_type("review.write_limit_reached")
class ReviewWriteLimitReached(Payload, frozen=True, kw_only=True):
    """A review made the ``limit`` writes it may (``reviewers.max_writes``); its later
    writes were refused.  A review that wants more is probably being steered by what it
    reads."""

    session_id: str
    through_turn: int
    limit: int

    def entities(self) -> tuple[str, ...]:
        return (f"session:{self.session_id}",)


#: Every payload type of this module, for the catalog (:mod:`memoir.events.catalog`).
PAYLOADS: tuple[type[Payload], ...] = (
    ReviewCompleted,
    ReviewFailed,
    ReviewSkipped,
    ReviewWriteLimitReached,
)
