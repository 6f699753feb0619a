"""Records that chain but that no honest writer makes: the fold leaves them out.

Every command checks what it appends, so the fold (:meth:`State.apply`) trusts its
records — except that a shared journal can be written by anyone holding its writer
role, with a valid hash chain and a payload that decodes.  Before a record is folded,
:func:`vet` asks what every honest writer keeps to; a record that breaks it is
*quarantined*: not folded, listed with its reason (``State.quarantined``; ``memoir
verify`` and ``memoir status`` show it).  Records that do not even decode are
quarantined by the journal (:class:`~memoir.events.codec.Quarantined`).

The checks are functions of the state and the record alone (the fold stays a function
of the journal): an entry longer than its target's whole limit in force (no tool, no
reviewer and no adopted hand edit can save one) is the first.
"""

from __future__ import annotations

from collections.abc import Callable

from memoir.events.codec import Quarantined
from memoir.events.memory import EntryAdded, EntryReplaced
from memoir.events.types import Event, Payload
from memoir.projections.memory import MemoryState

__all__ = ["MAX_REASONS", "vet"]

#: At most this many quarantined records are kept with their reasons in the state (a
#: flood of forged rows must not grow every checkpoint); the count goes on.
MAX_REASONS = 1_000


def _entry_fits(memory: MemoryState, event: Event) -> str | None:
    data = event.data
    assert isinstance(data, EntryAdded | EntryReplaced)
    limit = memory.limits.get(data.target, 0)
    if limit and len(data.text) > limit:
        return (f"a {data.target} entry of {len(data.text):,} characters, over the whole "
                f"{data.target} limit in force ({limit:,}): no writer of memoir saves one")
    return None


_CHECKS: dict[type[Payload], Callable[[MemoryState, Event], str | None]] = {
    EntryAdded: _entry_fits,
    EntryReplaced: _entry_fits,
}


def vet(memory: MemoryState, event: Event) -> str | None:
    """Why ``event`` must not be folded into a state whose memory is ``memory`` (None:
    fold it)."""
    data = event.data
    if isinstance(data, Quarantined):
        return data.reason
    check = _CHECKS.get(type(data))
    return check(memory, event) if check is not None else None
