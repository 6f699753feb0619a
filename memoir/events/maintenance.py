"""Maintenance events: what was done to the journal itself.

A repair cuts damaged bytes out of the journal (they are kept in a file beside it).
It appends ``journal.repaired`` saying what it cut and, when asked to salvage, which
records it re-appended from the cut bytes: records after damage cannot be checked
against the trusted part of the chain, so the journal says so instead of passing
them off as verified.
"""

from __future__ import annotations

from memoir.events.types import Payload, event_type

__all__ = ["PAYLOADS", "JournalRepaired"]


@event_type("journal.repaired")
class JournalRepaired(Payload, frozen=True, kw_only=True):
    """``memoir repair`` cut ``cut_bytes`` after seq ``kept_head`` (saved in the file
    named ``saved_to``, beside the journal).  ``salvaged`` lists the original seqs of the
    records re-appended right after this one (unverified: their integrity could not be
    checked from a trusted record); ``left_out`` those that were not."""

    cut_bytes: int
    kept_head: int
    saved_to: str
    salvaged: list[int] = []
    left_out: list[int] = []
    reason: str = ""


#: Every payload type of this module, for the catalog (:mod:`memoir.events.catalog`).
PAYLOADS: tuple[type[Payload], ...] = (
    JournalRepaired,
)
