"""The one staging step every backend shares (see :meth:`JournalWriter.stage`).

A writer holding the append lock stages appends one after another and writes them
together (group commit).  Staging an append checks its ids (none twice, none staged
already), answers a retry of an append that went through with the original records,
checks the expectation against the journal plus what is staged, and mints the records
after the last one staged.  Only where the chain starts (the tail the backend knows
under its lock) and how earlier ids are looked up differ between backends: they are
given to :meth:`Stager.stage`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memoir.errors import ValidationError
from memoir.events.types import Draft, Event
from memoir.journal.interface import (
    Expectation,
    Journal,
    check_expectation,
    mint_records,
    retried_span,
)

__all__ = ["Stager"]


class Stager:
    """The appends a writer has minted but not written yet: their ``events`` and the
    ``lines`` that store them, in order."""

    __slots__ = ("events", "lines", "owner")

    def __init__(self, journal: Journal) -> None:
        self.owner = journal
        self.events: list[Event] = []
        self.lines: list[bytes] = []

    def stage(self, drafts: Sequence[Draft], expect: Expectation | None, *,
              tail: Callable[[], tuple[int, bytes]],
              known: Callable[[list[str]], dict[str, int]]) -> list[Event]:
        """Mint ``drafts`` as one append after what is staged.  ``tail``: the journal's
        last (seq, hash) under the lock, asked only when nothing is staged; ``known``:
        the seqs of those of the given ids already in the journal."""
        if not drafts:
            return []
        given = [d.id for d in drafts if d.id]
        if given:
            if len(set(given)) != len(given):
                raise ValidationError("an append lists the same event id twice")
            if not set(given).isdisjoint(e.id for e in self.events):
                raise ValidationError("an append repeats event ids staged in the same write")
            existing = known(given)
            if existing:
                first = retried_span(drafts, existing)
                return list(self.owner.read(after=first - 1, until=first - 1 + len(drafts)))
        seq, prev = self.tail() or tail()
        check_expectation(self.owner, seq, expect, pending=self.events)
        lines, out = mint_records([drafts], (seq, prev), self.owner.clock,
                                  self.owner.signer)
        self.events.extend(out)
        self.lines.extend(lines)
        return out

    def tail(self) -> tuple[int, bytes] | None:
        """The last staged record's (seq, hash); None when nothing is staged."""
        if not self.events:
            return None
        last = self.events[-1]
        return last.seq, last.hash.encode()

    def take(self) -> tuple[list[bytes], list[Event]]:
        """What is staged, handed over to be written (nothing is staged after)."""
        lines, events = self.lines, self.events
        self.lines, self.events = [], []
        return lines, events

    def drop(self) -> None:
        """Forget what is staged (the lock is released without a write)."""
        self.lines, self.events = [], []
