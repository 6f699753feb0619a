"""Pending writes: what waits for a person's approval (``write.*`` events).

A ``write.pending`` adds a :class:`PendingWrite`; ``write.approved`` and
``write.rejected`` resolve it.  Resolved writes stay readable in the journal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from memoir.events.approvals import PendingApproved, PendingRejected, WritePending
from memoir.events.types import Event, Payload

__all__ = ["FOLDS", "ApprovalsState", "PendingWrite"]


class PendingWrite(msgspec.Struct, kw_only=True):
    """One write waiting for approval, as it was proposed."""

    id: str
    subsystem: str
    action: str
    summary: str
    origin: str
    args: dict[str, Any]
    actor: str
    session: str | None = None
    staged_seq: int = 0
    staged_at: str = ""


class ApprovalsState(msgspec.Struct):
    #: pending id → the write, in the order they were proposed.
    pending: dict[str, PendingWrite] = msgspec.field(default_factory=dict)


def _pending(approvals: ApprovalsState, event: Event) -> None:
    data = event.data
    assert isinstance(data, WritePending)
    approvals.pending[data.pending_id] = PendingWrite(
        id=data.pending_id, subsystem=data.subsystem, action=data.action,
        summary=data.summary, origin=data.origin, args=dict(data.args), actor=event.actor,
        session=event.session, staged_seq=event.seq, staged_at=event.ts)


def _resolved(approvals: ApprovalsState, event: Event) -> None:
    approvals.pending.pop(getattr(event.data, "pending_id", ""), None)


#: payload type → fold step on :class:`ApprovalsState` (composed by
#: :mod:`memoir.projections.state`).
FOLDS: dict[type[Payload], Callable[[ApprovalsState, Event], None]] = {
    WritePending: _pending,
    PendingApproved: _resolved,
    PendingRejected: _resolved,
}
