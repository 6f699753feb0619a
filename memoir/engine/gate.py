"""The approval gate both write tools pass through (spec §1.9).

With ``memory.write_approval`` or ``skills.write_approval`` on, a write by anyone but a
person (actor ``user``) that would land is not made: the decision's events become one
``write.pending`` holding the exact tool arguments, and the result says the write is
staged.  A write that would fail fails now, as it would later.  A person's approval
replays the held call: its ``write.approved`` goes first, in the same append as the
events the call makes (nothing is appended if the call fails).  The memory tool and
``skill_manage`` build a gate per call and hand it their decision's outcome.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from memoir.errors import NotFoundError
from memoir.events.approvals import PendingApproved, Subsystem, WritePending
from memoir.events.types import Payload
from memoir.ids import random_hex
from memoir.projections.approvals import PendingWrite
from memoir.projections.state import State

__all__ = ["ApprovalGate", "Held"]


@dataclass(frozen=True)
class Held:
    """What a held write says of itself: its action, a one-line summary, where it comes
    from (``foreground`` or ``background_review``) and the tool arguments that make it."""

    action: str
    summary: str
    origin: str
    args: dict[str, Any]


@dataclass(frozen=True)
class ApprovalGate:
    """One call's gate: whether its write is held (the setting is on and the actor is
    not a person), or which held write it replays (``approving``)."""

    subsystem: Subsystem
    hold: bool
    approving: PendingWrite | None = None
    pending_id: str = field(default_factory=lambda: random_hex(4))

    @classmethod
    def of(cls, subsystem: Subsystem, *, actor: str, enabled: bool,
           approving: PendingWrite | None) -> ApprovalGate:
        return cls(subsystem, approving is None and actor != "user" and enabled, approving)

    def passes(self, state: State, events: Sequence[Payload], *, success: bool,
               message: str, held: Callable[[], Held]
               ) -> tuple[list[Payload], dict[str, Any] | None]:
        """The events to append, and the result that replaces the call's own (None:
        the call's own stands): a replayed write's approval first, or the write held
        (``held`` says what it is, asked only then)."""
        if self.approving is not None:
            if self.approving.id not in state.approvals.pending:
                raise NotFoundError(f"no pending write {self.approving.id!r} (approved or "
                                    "rejected meanwhile?)")
            if not success:
                return list(events), None
            return [PendingApproved(pending_id=self.approving.id,
                                    proposed_by=self.approving.actor, result=message),
                    *events], None
        if not (self.hold and success and events):
            return list(events), None
        what = held()
        staged = WritePending(pending_id=self.pending_id, subsystem=self.subsystem,
                              action=what.action, summary=what.summary, origin=what.origin,
                              args=what.args)
        return [staged], {
            "success": True, "staged": True, "pending_id": self.pending_id,
            "message": (f"Staged for approval ({self.subsystem}.write_approval is on). "
                        "Not yet saved — review with `memoir pending`.")}
