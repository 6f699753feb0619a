"""The review queue of one handle: due reviews run off the caller's thread.

``reviewers.mode``: ``background`` (default) puts a due review on a bounded queue that
one thread of the handle works through, so recording a turn never waits for it;
``sync`` runs it before ``record_turn`` returns (scripts, tests); ``off`` runs nothing.

Done is a documented point, not a race: :meth:`ReviewQueue.flush` waits until every
queued review has run (``Memoir.flush()`` calls it), and :meth:`ReviewQueue.close`
waits up to ``reviewers.close_timeout_seconds``; a review still queued then, or one
refused because the queue was full, is journaled as ``review.skipped`` with the reason,
never dropped in silence (``memoir review --session ID`` runs it later).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable

from memoir.engine.commit import Decision
from memoir.engine.engine import Engine
from memoir.engine.transcripts import TranscriptStore
from memoir.events.reviews import ReviewSkipped
from memoir.logs import get_logger
from memoir.reviewers.review import Backend, ReviewRequest, run_review

__all__ = ["ReviewQueue"]

log = get_logger("memoir.reviewers")


class ReviewQueue:
    """Runs the reviews of one handle (see the module docstring)."""

    def __init__(self, engine: Engine, store: TranscriptStore,
                 backend: Callable[[], Backend]) -> None:
        self.engine = engine
        self.store = store
        self._backend_factory = backend
        self._backend: Backend | None = None
        config = engine.config.reviewers
        self.mode = config.mode
        self.close_timeout = config.close_timeout_seconds
        self._queue: queue.Queue[ReviewRequest | None] = queue.Queue(config.queue_size)
        self._thread: threading.Thread | None = None
        self._closed = False
        self._lock = threading.Lock()
        self._busy = 0  # queued or running

    def backend(self) -> Backend:
        if self._backend is None:
            self._backend = self._backend_factory()
        return self._backend

    def submit(self, request: ReviewRequest) -> None:
        """Run ``request`` as the mode says; never raises."""
        if self.mode == "off":
            return
        if self.mode == "sync" or self._closed:
            self._run(request) if not self._closed else self._skip(
                request, "the handle was closing")
            return
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name="memoir-reviews",
                                                daemon=True)
                self._thread.start()
            try:
                self._queue.put_nowait(request)
                self._busy += 1
            except queue.Full:
                full = True
            else:
                full = False
        if full:
            self._skip(request, f"the review queue was full ({self._queue.maxsize} waiting)")

    def _work(self) -> None:
        while True:
            request = self._queue.get()
            if request is None:
                return
            try:
                self._run(request)
            finally:
                with self._lock:
                    self._busy -= 1

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
            self.engine.commit(lambda _s: Decision(events=[skipped]), actor="system",
                               session=request.session_id)
        except Exception as exc:
            log.error("review.skip_not_recorded", session=request.session_id, error=repr(exc))

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued review has run; False if ``timeout`` ran out first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                if self._busy == 0:
                    return True
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(0.005)

    def close(self) -> None:
        """Stop taking reviews, wait for the queued ones up to the timeout, and journal
        the rest as skipped.  Never raises."""
        if self._closed:
            return
        self._closed = True
        done = self.flush(self.close_timeout)
        left: list[ReviewRequest] = []
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                left.append(item)
        for request in left:
            with self._lock:
                self._busy -= 1
            self._skip(request, f"the handle closed before the review ran (waited "
                                f"{self.close_timeout:g}s)")
        if self._thread is not None:
            self._queue.put(None)
            # A review already running cannot be stopped halfway: it finishes (its own
            # timeouts bound it) and closes its run before the engine closes.
            self._thread.join(timeout=None if not done else 1.0)
