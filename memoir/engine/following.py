"""Following other writers: a long-lived handle (the MCP server, the Hermes provider)
folds what other processes and machines append as soon as the journal says so, and
writes the projected files they change, without waiting for a request of its own.

A journal that can tell of a commit (PostgreSQL's LISTEN/NOTIFY: ``wait_for_append``)
wakes the follower within milliseconds of another machine's COMMIT; any other journal
is polled every ``poll`` seconds (a file journal's check is a look at its end).  Either
way the follower also looks every ``poll`` seconds, so a notice lost with a dropped
connection costs at most that.

The follower is a daemon thread.  :meth:`Following.stop` is its documented end: it
returns once the thread has stopped, after the files of what it folded were written
(it waits for at most one slice of its wait, a quarter of a second).  A failure to
fold or write is logged (``follow.failed``) and the follower carries on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Protocol, Self

from memoir.journal import Journal, Notices
from memoir.logs import get_logger

__all__ = ["Following"]

log = get_logger("memoir.engine")

#: How long one wait lasts at most (how soon stop() is heard).
_SLICE = 0.25


class _Flushes(Protocol):
    def flush(self) -> None: ...


class _Followed(Protocol):
    journal: Journal

    @property
    def head(self) -> int: ...

    @property
    def followers(self) -> Iterable[_Flushes]: ...


class Following:
    """Keep ``handle`` caught up with the journal (see the module docstring).
    ``on_change(before, head)`` is called after the files of records ``before+1..head``
    were written."""

    def __init__(self, handle: _Followed, *, poll: float = 1.0,
                 on_change: Callable[[int, int], None] | None = None) -> None:
        self.handle = handle
        self.poll = poll
        self.on_change = on_change
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.seen = 0

    def start(self) -> Self:
        """Start following (the state as of now counts as seen)."""
        if self._thread is None:
            self.seen = self.handle.head
            self._thread = threading.Thread(target=self._run, name="memoir-follow",
                                            daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop following and wait for the thread to end."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _wait(self, seconds: float) -> bool:
        """Wait at most ``seconds`` for word of a commit; True when told of one."""
        journal = self.handle.journal
        if not isinstance(journal, Notices):
            self._stop.wait(seconds)
            return False
        return journal.wait_for_append(seconds)

    def _run(self) -> None:
        deadline = time.monotonic() + self.poll
        while not self._stop.is_set():
            told = self._wait(min(_SLICE, max(0.0, deadline - time.monotonic())))
            if self._stop.is_set():
                break
            if not told and time.monotonic() < deadline:
                continue
            deadline = time.monotonic() + self.poll
            try:
                self._catch_up()
            except Exception as exc:  # a follower never dies of one failed pass
                log.warning("follow.failed", error=" ".join(str(exc).split())[:300])

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
