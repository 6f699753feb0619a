"""One background worker: a thread that runs a piece of work when asked.

memoir does four kinds of work off the caller's thread — writing the projected files
(:mod:`memoir.engine.projector`), following other writers (:mod:`memoir.engine.tail`),
embedding recorded turns (:mod:`memoir.recall.index`) and running reviews
(:mod:`memoir.reviewers.queue`).  Each is a :class:`Worker` around one function; what
differs is said with the worker's windows:

- ``coalesce``: a pass starts at the earliest this long after the *first* request
  since the last pass began (commits that land meanwhile join it);
- ``quiet``: a pass starts at the earliest this long after the *last* request (a burst
  is handled after it, not against it);
- ``every``: a pass also runs this long after the last one ended, requested or not (a
  poll); ``work`` may block for a slice of it itself;
- ``idle``: with nothing requested for this long the thread ends (the next request
  starts another), so a forgotten handle keeps no thread alive; ``None``: it stays;
- ``retry``: a pass that raised runs again after a back-off (0.05 s doubling to 5 s).

``work`` returns ``None`` when it is done, or a number of seconds after which it must
run again (a review waiting for its session to go quiet): such a pass is owed, and
:meth:`Worker.wait` runs it at once.

Done is a documented point, not a race: :meth:`Worker.wait` cuts every window short
and returns once nothing is requested, owed or running; :meth:`Worker.stop` ends the
thread after the pass it is running.  A pass that raises is handed to ``on_error``
(the worker never dies of it, and never writes anything itself).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable

__all__ = ["Worker"]

#: The back-off after a failed pass (``retry``): first, and at most.
BACKOFF = (0.05, 5.0)


class Worker:
    """Runs ``work`` on a thread of its own (see the module docstring)."""

    def __init__(self, name: str, work: Callable[[], float | None], *,
                 coalesce: float = 0.0, quiet: float = 0.0, every: float | None = None,
                 idle: float | None = 1.0, retry: bool = False,
                 on_error: Callable[[Exception, float | None], None] | None = None) -> None:
        self.name = name
        self._work = work
        self.coalesce = coalesce
        self.quiet = quiet
        self.every = every
        self.idle = idle
        self.retry = retry
        self._on_error = on_error
        self._cv = threading.Condition(threading.Lock())
        self._thread: threading.Thread | None = None
        self._first: float | None = None  # the first request not yet taken by a pass
        self._last = 0.0  # the last request
        self._owed: float | None = None  # when a pass ``work`` asked for is due
        self._retry_at: float | None = None
        self._tick: float | None = None  # when the next ``every`` pass is due
        self._hurry = 0  # callers of wait()/stop() in progress
        self._busy = False
        self._stopped = False
        self._backoff = BACKOFF[0]
        #: What the last pass raised (None once a pass succeeds).
        self.error: Exception | None = None

    # -- asking ----------------------------------------------------------------------------

    def request(self) -> None:
        """Ask for a pass (the windows say when); starts the thread if none runs."""
        if self._first is not None and not self.quiet:
            return  # a pass is asked for and not begun: it will see what came before
        now = time.monotonic()
        with self._cv:
            if self._stopped:
                return
            news = self._first is None
            if news:
                self._first = now
            self._last = now
            if self._start_thread() or (news and not self._busy):
                self._cv.notify_all()

    def withdraw(self) -> None:
        """Drop every pass asked for, owed or retried and not begun: the caller did the
        work itself (a pass already running goes on; :meth:`wait_pass` waits for it)."""
        with self._cv:
            self._first = self._owed = self._retry_at = None
            self._cv.notify_all()

    def start(self) -> None:
        """Start the thread without asking for a pass (a worker with ``every``)."""
        with self._cv:
            if not self._stopped:
                self._tick = time.monotonic() + (self.every or 0.0)
                self._start_thread()

    @property
    def hurried(self) -> bool:
        """True while someone waits for the work to be done (``work`` may skip its own
        waits, as the windows are skipped)."""
        return self._hurry > 0 or self._stopped

    @property
    def alive(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Run what is requested or owed now, and wait until nothing is requested, owed
        or running; False if ``timeout`` ran out first.  From the worker's own thread
        it returns at once."""
        if self._thread is threading.current_thread():
            return True
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cv:
            self._hurry += 1
            self._cv.notify_all()
            try:
                while self._first is not None or self._owed is not None or self._busy:
                    if not self.alive and not self._busy:
                        if self._stopped:
                            return False
                        self._start_thread()
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        return False
                    self._cv.wait(left)
            finally:
                self._hurry -= 1
        return True

    def wait_pass(self) -> None:
        """Wait for the pass being run, if any (nothing is hurried)."""
        if self._thread is threading.current_thread():
            return
        with self._cv:
            while self._busy:
                self._cv.wait()

    def stop(self, timeout: float | None = None) -> None:
        """Take no more requests and end the thread once the pass it runs is done (what
        is requested but not begun is not run: :meth:`wait` first for that)."""
        with self._cv:
            self._stopped = True
            thread = self._thread
            self._cv.notify_all()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    # -- the thread ------------------------------------------------------------------------

    def _start_thread(self) -> bool:
        """Under the lock: start the thread unless it runs; True if it was started."""
        if self._thread is not None and self._thread.is_alive():
            return False
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()
        return True

    def _due(self, now: float) -> float | None:
        """Under the lock: when the next pass may start (None: nothing is asked)."""
        times = []
        if self._first is not None:
            times.append(max(self._first + self.coalesce, self._last + self.quiet))
        if self._owed is not None:
            times.append(self._owed)
        if self._hurry and times:
            return now
        if self._retry_at is not None:
            times.append(self._retry_at)
        if self._tick is not None:
            times.append(self._tick)
        return min(times) if times else None

    def _next(self) -> bool:
        """Wait until a pass is due: True to run it, False to end the thread."""
        with self._cv:
            quiet_since = time.monotonic()
            while not self._stopped:
                now = time.monotonic()
                due = self._due(now)
                if due is not None and due <= now:
                    self._first = self._owed = self._retry_at = None
                    self._busy = True
                    return True
                if due is None and self.idle is not None:
                    left = quiet_since + self.idle - now
                    if left <= 0:
                        break
                    self._cv.wait(left)
                else:
                    self._cv.wait(None if due is None else due - now)
            if self._thread is threading.current_thread():
                self._thread = None
            self._cv.notify_all()
            return False

    def _run(self) -> None:
        while self._next():
            again: float | None = None
            failed: Exception | None = None
            try:
                again = self._work()
            except Exception as exc:  # a worker never dies of one failed pass
                failed = exc
            retry_in: float | None = None
            with self._cv:
                now = time.monotonic()
                self.error = failed
                if failed is None:
                    self._backoff = BACKOFF[0]
                elif self.retry:
                    retry_in = self._backoff
                    self._retry_at = now + retry_in
                    self._backoff = min(retry_in * 2, BACKOFF[1])
                if again is not None:
                    self._owed = now + again
                if self.every is not None:
                    self._tick = now + self.every
                self._busy = False
                self._cv.notify_all()
            if failed is not None and self._on_error is not None:
                with contextlib.suppress(Exception):  # reporting never ends the worker
                    self._on_error(failed, retry_in)
