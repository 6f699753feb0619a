"""The review queue of one handle: due reviews run off the caller's thread.

``reviewers.mode``: ``background`` (default) queues a due review for one thread of the
handle, so recording a turn never waits for it; ``sync`` runs it before ``record_turn``
returns (scripts, tests); ``off`` runs nothing.

A queued review waits until its session has been quiet for ``reviewers.idle_ms`` (no
turn recorded): reviews run between turns, as Hermes's run after the reply is
delivered, not while the agent is appending.  Reviews of one session that pile up
meanwhile are merged into one that covers all their turns (and all their kinds): a
burst of turns costs one review, not one per nudge.

Done is a documented point, not a race: :meth:`ReviewQueue.flush` waits until every
queued review has run (``Memoir.flush()`` calls it), and :meth:`ReviewQueue.close`
waits up to ``reviewers.close_timeout_seconds``; a review still queued then, or one
refused because ``reviewers.queue_size`` sessions are already waiting, is journaled as
``review.skipped`` with the reason, never dropped in silence (``memoir review
--session ID`` runs it later).  A review already running finishes first.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from memoir.engine.commit import Caller, Decision
from memoir.engine.port import Home
from memoir.events.reviews import ReviewSkipped
from memoir.journal.transcripts import TranscriptStore
from memoir.logs import get_logger
from memoir.reviewers.review import Backend, ReviewRequest, run_review
from memoir.worker import Worker

__all__ = ["ReviewQueue", "merge"]

log = get_logger("memoir.reviewers")
_KINDS = ("memory", "skills")


def merge(a: ReviewRequest, b: ReviewRequest) -> ReviewRequest:
    """One review covering both (same session): the union of turns and kinds; an end
    review stays one."""
    kinds = tuple(k for k in _KINDS if k in a.kinds or k in b.kinds)
    trigger = "end" if "end" in (a.trigger, b.trigger) else a.trigger
    return ReviewRequest(a.session_id, min(a.from_turn, b.from_turn),
                         max(a.through_turn, b.through_turn), kinds, trigger)


class ReviewQueue:
    """Runs the reviews of one handle (see the module docstring)."""

    def __init__(self, engine: Home, store: TranscriptStore,
                 backend: Callable[[], Backend]) -> None:
        self.engine = engine
        self.store = store
        self._backend_factory = backend
        self._backend: Backend | None = None
        config = engine.config.reviewers
        self.mode = config.mode
        self.close_timeout = config.close_timeout_seconds
        self.limit = config.queue_size
        self.idle = config.idle_ms / 1000
        self._pending: dict[str, ReviewRequest] = {}  # by session, oldest first
        self._active: dict[str, float] = {}  # session → when it last recorded a turn
        self._lock = threading.Lock()
        self._closed = False
        self._worker = Worker("memoir-reviews", self._work, on_error=_worker_failed)

    def backend(self) -> Backend:
        if self._backend is None:
            self._backend = self._backend_factory()
        return self._backend

    def submit(self, request: ReviewRequest) -> None:
        """Run ``request`` as the mode says; never raises."""
        if self.mode == "off":
            return
        if self._closed:
            self._skip(request, "the handle was closing")
            return
        if self.mode == "sync":
            self._run(request)
            return
        with self._lock:
            queued = self._pending.get(request.session_id)
            full = queued is None and len(self._pending) >= self.limit
            if not full:
                self._pending[request.session_id] = (merge(queued, request) if queued
                                                     else request)
        if full:
            self._skip(request, f"the review queue was full ({self.limit} sessions waiting)")
        elif queued is None:
            # Only news wakes the worker: a merge changes nothing it waits on, and
            # waking a thread per turn costs the caller the GIL handoff.
            self._worker.request()

    def touch(self, session_id: str) -> None:
        """A turn of ``session_id`` was recorded: its queued review waits a little more."""
        if self.mode == "background":
            with self._lock:
                self._active[session_id] = time.monotonic()

    def _ready(self) -> tuple[str | None, float]:
        """Under the lock: a session whose review may run now, else how long to wait
        for the first to become quiet (a flush or close waits for none)."""
        now = time.monotonic()
        wait = self.idle
        urgent = self._closed or self._worker.hurried
        for session in self._pending:
            quiet = now - self._active.get(session, 0.0)
            if urgent or quiet >= self.idle:
                return session, 0.0
            wait = min(wait, self.idle - quiet)
        return None, wait

    def _work(self) -> float | None:
        """One pass of the worker: run every review that may run; how long until the
        next may (None: none is queued)."""
        while True:
            with self._lock:
                session, wait = self._ready()
                if session is None:
                    return wait if self._pending else None
                request = self._pending.pop(session)
            self._run(request)

    def _run(self, request: ReviewRequest) -> None:
        try:
            run_review(self.engine, self.store, request, self.backend(),
                       display=self.engine.config.display.memory_notifications)
        except Exception as exc:  # the journal itself failed: log, never raise
            log.error("review.not_recorded", session=request.session_id, error=repr(exc))

    def _skip(self, request: ReviewRequest, reason: str) -> None:
        skipped = ReviewSkipped(session_id=request.session_id, through_turn=request.through_turn,
                                kinds=request.kinds, reason=reason, trigger=request.trigger)
        try:
            self.engine.commit(lambda _s: Decision(events=[skipped]),
                               by=Caller(actor="system", session=request.session_id))
        except Exception as exc:
            log.error("review.skip_not_recorded", session=request.session_id, error=repr(exc))

    def make_room(self) -> None:
        """Wait while the queue is at least half full (a bulk import: every review runs,
        none is refused for lack of room)."""
        with self._lock:
            crowded = len(self._pending) >= max(1, self.limit // 2)
        if crowded:
            self.flush()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued review has run; False if ``timeout`` ran out first."""
        return self._worker.wait(timeout)

    def close(self) -> None:
        """Stop taking reviews, wait for the queued ones up to the timeout, journal the
        rest as skipped, and let a running one finish.  Never raises."""
        if self._closed:
            return
        self.flush(self.close_timeout)
        with self._lock:
            self._closed = True
            left = list(self._pending.values())
            self._pending.clear()
        for request in left:
            self._skip(request, f"the handle closed before the review ran (waited "
                                f"{self.close_timeout:g}s)")
        self._worker.stop()


def _worker_failed(exc: Exception, _retry_in: float | None) -> None:
    log.error("review.worker_failed", error=repr(exc))
