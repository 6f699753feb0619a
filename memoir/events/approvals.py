"""Write approval: a write an agent or a review proposed, waiting for a person.

With ``memory.write_approval`` or ``skills.write_approval`` on (spec §1.9), a write
that would land is not made: it is journaled as ``write.pending`` with the exact tool
arguments that make it.  A person then approves it — ``write.approved``, appended in
the same write as the events the replayed call makes, so the journal says who
approved what and what it changed — or rejects it (``write.rejected``).
"""

from __future__ import annotations

from typing import Any, Literal

from memoir.events.types import Payload, event_type

__all__ = ["PAYLOADS", "PendingApproved", "PendingRejected", "Subsystem", "WritePending"]

Subsystem = Literal["memory", "skills"]


class _PendingPayload(Payload, frozen=True, kw_only=True):
    pending_id: str

    def entities(self) -> tuple[str, ...]:
        return (f"pending:{self.pending_id}",)


@event_type("write.pending")
class WritePending(_PendingPayload, frozen=True, kw_only=True):
    """A write held for approval: ``args`` are the tool call's arguments (``memory`` or
    ``skill_manage``) that make it when approved; ``summary`` says it in one line;
    ``origin`` is ``foreground`` or ``background_review`` (Hermes's words)."""

    subsystem: Subsystem
    action: str
    summary: str
    origin: str
    args: dict[str, Any]


@event_type("write.approved")
class PendingApproved(_PendingPayload, frozen=True, kw_only=True):
    """A person approved a pending write; the events of the replayed call follow in
    the same append.  ``proposed_by`` is the actor that proposed it; ``result`` the
    replayed call's message."""

    proposed_by: str
    result: str = ""


@event_type("write.rejected")
class PendingRejected(_PendingPayload, frozen=True, kw_only=True):
    """A person rejected a pending write; nothing was written."""

    proposed_by: str
    reason: str = ""


#: Every payload type of this module, for the catalog (:mod:`memoir.events.catalog`).
PAYLOADS: tuple[type[Payload], ...] = (WritePending, PendingApproved, PendingRejected)
