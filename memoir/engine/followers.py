"""Followers: work that follows the journal downstream of the commit path.

A follower tracks how far it has got, catches up once the home has opened, and is
told about every event the handle folds into its live state — its own commits and
what other processes appended.  The projector (:mod:`memoir.engine.projector`) is one;
reviewers, a search index, the curator's tick and a file watcher are meant to be
others.  A follower does its work off the commit path (a thread of its own, or a later
call) and never fails a commit: what it could not do stays owed until :meth:`flush`.

The engine wires followers at open (``Engine(followers=…)``); :class:`Followers` fans
each notification out to all of them, in order.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from memoir.events.types import Event

__all__ = ["Follower", "Followers"]


class Follower(Protocol):
    """What the engine tells a follower, and when."""

    @property
    def seq(self) -> int:
        """The journal seq this follower's work is complete up to (-1: unknown)."""
        ...

    def opened(self) -> None:
        """Once, after the home opened and its state caught up: catch up with whatever
        was appended while nobody followed (under no lock)."""

    def folded(self, events: Sequence[Event]) -> None:
        """Under the state mutex, right after ``events`` were folded: note them (cheap;
        no I/O).  A commit's events come once they are written to the journal."""

    def advanced(self, *, committed: bool) -> None:
        """The live state moved past durable events: a commit of this handle returned
        (``committed``, called by the committing thread under no lock), or catch-up
        read other processes' appends (under the state mutex).  Start the work; only a
        synchronous follower may do it here, and only when ``committed``."""

    def reset(self) -> None:
        """The live state was folded again from scratch (a failed batch, a repair):
        assume nothing about what was done before."""

    def flush(self) -> None:
        """Do now whatever is owed; raise what doing it raised."""

    def close(self, *, flush: bool = True) -> None:
        """Stop; first do what is owed unless ``flush`` is False (then it stays owed, as
        after a crash, for the next open).  Never raise."""


class Followers:
    """The followers of one engine, notified in order."""

    def __init__(self, followers: Iterable[Follower] = ()) -> None:
        self._all = list(followers)
        # Off until the engine has opened: folding the history is not news.
        self.active = False

    def __iter__(self) -> Iterator[Follower]:
        return iter(self._all)

    def folded(self, events: Sequence[Event]) -> None:
        if self.active and events:
            for follower in self._all:
                follower.folded(events)

    def advanced(self, *, committed: bool) -> None:
        if self.active:
            for follower in self._all:
                follower.advanced(committed=committed)

    def reset(self) -> None:
        for follower in self._all:
            follower.reset()
