"""Tailing the journal: a long-lived handle (the MCP server, the Hermes provider) folds
what other processes and machines append as soon as the journal says so, and writes
the projected files they change, without waiting for a request of its own.

A journal that can tell of a commit (PostgreSQL's LISTEN/NOTIFY: ``wait_for_append``)
wakes the tail within milliseconds of another machine's COMMIT; any other journal is
polled every ``poll`` seconds (a file journal's check is a look at its end).  Either
way the tail also looks every ``poll`` seconds, so a notice lost with a dropped
connection costs at most that.

A :class:`Tail` is a :class:`~memoir.worker.Worker` (one thread).  :meth:`Tail.stop` is
its documented end: it returns once the thread has stopped, after the files of what it
folded were written (it waits for at most one slice of a notice wait, a quarter of a
second).  A failure to fold or write is logged (``follow.failed``) and the tail carries
on.  :class:`~memoir.api.Memoir` starts one at open when asked (``follow=True``).

(Not to be confused with the engine's followers, :mod:`memoir.engine.followers`: the
work downstream of every fold, the tail's passes included.)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Protocol, Self

from memoir.journal import Journal, Notices
from memoir.logs import get_logger
from memoir.worker import Worker

__all__ = ["Tail"]

log = get_logger("memoir.engine")

#: How long one wait for a notice lasts at most (how soon stop() is heard).
_SLICE = 0.25
#: At least this long between two reads a notice brought (notices can be sent by
#: anyone who may connect; a flood of them must not become a flood of reads).
_GAP = 0.02


class _Flushes(Protocol):
    def flush(self) -> None: ...


class _Tailed(Protocol):
    journal: Journal

    @property
    def head(self) -> int: ...

    @property
    def followers(self) -> Iterable[_Flushes]: ...


class Tail:
    """Keep ``handle`` caught up with the journal (see the module docstring).
    ``on_change(before, head)`` is called after the files of records ``before+1..head``
    were written."""

    def __init__(self, handle: _Tailed, *, poll: float = 1.0,
                 on_change: Callable[[int, int], None] | None = None) -> None:
        self.handle = handle
        self.poll = poll
        self.on_change = on_change
        self.seen = 0
        self._deadline = 0.0
        self._last = 0.0  # when the last read began
        notices = handle.journal if isinstance(handle.journal, Notices) else None
        self._notices = notices
        # With notices, each pass waits a slice for one itself and the next follows at
        # once; without, the worker runs a pass every ``poll`` seconds.
        self._worker = Worker("memoir-tail", self._pass, idle=None,
                              every=0.0 if notices is not None else poll,
                              on_error=_failed)

    def start(self) -> Self:
        """Start tailing (the state as of now counts as seen)."""
        if not self._worker.alive:
            self.seen = self.handle.head
            self._deadline = time.monotonic() + self.poll
            self._worker.start()
        return self

    def stop(self) -> None:
        """Stop tailing and wait for the thread to end."""
        self._worker.stop()

    @property
    def running(self) -> bool:
        return self._worker.alive

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _pass(self) -> None:
        if self._notices is not None:
            left = self._deadline - time.monotonic()
            told = self._notices.wait_for_append(min(_SLICE, max(0.0, left)))
            if self._worker.hurried:
                return  # stopping
            if not told and time.monotonic() < self._deadline:
                return
            since = time.monotonic() - self._last
            if told and since < _GAP:
                time.sleep(_GAP - since)
            self._deadline = time.monotonic() + self.poll
        self._last = time.monotonic()
        self._catch_up()

    def _catch_up(self) -> None:
        before = self.seen
        head = self.handle.head  # folds what other writers appended
        if head == before:
            return
        for follower in self.handle.followers:  # the files those records change (not
            follower.flush()  # the reviews a Memoir's flush would wait for too)
        self.seen = head
        log.debug("follow.caught_up", before=before, head=head)
        if self.on_change is not None:
            self.on_change(before, head)


def _failed(exc: Exception, _retry_in: float | None) -> None:
    # A tail never dies of one failed pass: the next pass tries again.
    log.warning("follow.failed", error=" ".join(str(exc).split())[:300])
