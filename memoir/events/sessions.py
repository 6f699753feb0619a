"""Session events: a session starts pinned to the journal position of its start event."""

from __future__ import annotations

from memoir.events.types import Payload, event_type

__all__ = ["PAYLOADS", "SessionEnded", "SessionStarted"]


@event_type("session.started")
class SessionStarted(Payload, frozen=True, kw_only=True):
    """A session began.  Its prompt is rendered from the state at this event's seq."""

    session_id: str
    platform: str = "cli"
    parent: str | None = None

    def entities(self) -> tuple[str, ...]:
        return (f"session:{self.session_id}",)


@event_type("session.ended")
class SessionEnded(Payload, frozen=True, kw_only=True):
    """A session ended."""

    session_id: str
    reason: str = "closed"

    def entities(self) -> tuple[str, ...]:
        return (f"session:{self.session_id}",)


#: Every payload type of this module, for the catalog (:mod:`memoir.events.catalog`).
PAYLOADS: tuple[type[Payload], ...] = (
    SessionStarted,
    SessionEnded,
)
