"""The one background worker (memoir.worker): its windows (coalesce, quiet, every,
idle), owed passes, retries, wait and stop.  Nothing here waits a fixed time for the
thread: each test waits on an event or on wait()'s own answer."""

from __future__ import annotations

import threading
import time

import pytest

from memoir.worker import Worker


def _until(check: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.001)


def test_requests_within_the_coalesce_window_make_one_pass() -> None:
    passes: list[int] = []
    worker = Worker("t", lambda: passes.append(1), coalesce=60.0)
    for _ in range(5):
        worker.request()
    assert passes == []  # the window is a minute long
    assert worker.wait(timeout=30)  # wait() cuts it short
    assert passes == [1]
    worker.stop()


def _burst() -> tuple[list[float], list[float]]:
    """Four requests 0.05 s apart to a worker with a 0.3 s quiet window: when its passes
    ran, and when each request was made (just before it)."""
    passes: list[float] = []
    worker = Worker("t", lambda: passes.append(time.monotonic()), quiet=0.3, idle=None)
    asked: list[float] = []
    for _ in range(4):
        asked.append(time.monotonic())  # request() notes its own time after this
        worker.request()
        time.sleep(0.05)
    _until(lambda: passes)
    assert worker.wait(timeout=30)
    worker.stop()
    return passes, asked


def test_the_quiet_window_starts_again_at_every_request() -> None:
    """A burst of requests 0.05 s apart makes one pass, 0.3 s after the last.  A run in
    which the machine's load stretched a 0.05 s sleep past the window (two passes) says
    nothing and is tried again; only the lower bounds are asserted."""
    for _attempt in range(5):
        passes, asked = _burst()
        if len(passes) == 1:  # the one pass began after the last request was noted
            assert passes[0] - asked[-1] >= 0.3 - 1e-3
            assert passes[0] - asked[0] >= 0.45 - 1e-3
            return
    pytest.fail("every attempt was cut in two by the machine's load")


def test_a_request_during_a_pass_makes_one_more_pass() -> None:
    inside, release = threading.Event(), threading.Event()
    passes: list[int] = []

    def work() -> None:
        passes.append(1)
        if len(passes) == 1:
            inside.set()
            assert release.wait(30)

    worker = Worker("t", work)
    worker.request()
    assert inside.wait(30)
    worker.request()
    worker.request()  # the second joins the first
    release.set()
    assert worker.wait(timeout=30)
    assert passes == [1, 1]
    worker.stop()


def test_an_owed_pass_is_run_at_once_by_wait() -> None:
    passes: list[bool] = []

    def work() -> float | None:
        passes.append(worker.hurried)
        return 3600.0 if len(passes) == 1 else None  # "again in an hour"

    worker = Worker("t", work)
    worker.request()
    _until(lambda: passes)
    assert worker.wait(timeout=30)
    assert passes == [False, True]  # the owed pass ran now, told it was hurried
    worker.stop()


def test_wait_gives_up_at_its_timeout() -> None:
    release = threading.Event()
    worker = Worker("t", lambda: release.wait(30) and None)
    worker.request()
    assert worker.wait(timeout=0.05) is False
    release.set()
    assert worker.wait(timeout=30) is True
    worker.stop()


def test_a_failed_pass_is_reported_and_retried_with_a_backoff() -> None:
    calls: list[int] = []
    reported: list[tuple[str, float | None]] = []
    done = threading.Event()

    def work() -> None:
        calls.append(1)
        if len(calls) < 3:
            raise OSError(f"disk full {len(calls)}")
        done.set()

    worker = Worker("t", work, retry=True,
                    on_error=lambda exc, retry_in: reported.append((str(exc), retry_in)))
    worker.request()
    assert done.wait(30)
    assert reported == [("disk full 1", 0.05), ("disk full 2", 0.1)]
    _until(lambda: worker.error is None)
    worker.stop()


def test_without_retry_a_failure_waits_for_the_next_request() -> None:
    calls: list[int] = []
    errors: list[Exception] = []

    def work() -> None:
        calls.append(1)
        if len(calls) == 1:
            raise ValueError("bad")

    worker = Worker("t", work, on_error=lambda exc, _r: errors.append(exc))
    worker.request()
    assert worker.wait(timeout=30)
    _until(lambda: errors)
    assert calls == [1] and isinstance(worker.error, ValueError)
    worker.request()
    assert worker.wait(timeout=30)
    assert calls == [1, 1] and worker.error is None


def test_an_error_in_the_reporter_does_not_end_the_worker() -> None:
    calls: list[int] = []

    def work() -> None:
        calls.append(1)
        raise RuntimeError("always")

    def report(_exc: Exception, _retry: float | None) -> None:
        raise RuntimeError("the reporter too")

    worker = Worker("t", work, on_error=report)
    worker.request()
    assert worker.wait(timeout=30)
    worker.request()
    assert worker.wait(timeout=30)
    assert calls == [1, 1]
    worker.stop()


def test_the_thread_ends_when_idle_and_a_request_starts_another() -> None:
    passes: list[str] = []
    worker = Worker("t", lambda: passes.append(threading.current_thread().name), idle=0.0)
    worker.request()
    assert worker.wait(timeout=30)
    _until(lambda: not worker.alive)
    worker.request()
    assert worker.wait(timeout=30)
    assert passes == ["t", "t"]
    worker.stop()


def test_every_runs_passes_unasked_and_stop_ends_them() -> None:
    passes: list[int] = []
    worker = Worker("t", lambda: passes.append(1), every=0.01, idle=None)
    worker.start()
    _until(lambda: len(passes) >= 3)
    assert worker.wait(timeout=30)  # a poll is not owed: wait does not run forever
    worker.stop(timeout=30)
    assert not worker.alive
    seen = len(passes)
    worker.request()  # a stopped worker takes no requests
    assert not worker.alive and len(passes) == seen


@pytest.mark.parametrize("hurry", [False, True])
def test_stop_lets_the_running_pass_finish(hurry: bool) -> None:
    inside, release = threading.Event(), threading.Event()
    finished: list[int] = []

    def work() -> None:
        inside.set()
        assert release.wait(30)
        finished.append(1)

    worker = Worker("t", work)
    worker.request()
    assert inside.wait(30)
    stopper = threading.Thread(target=worker.stop)
    stopper.start()
    if hurry:
        _until(lambda: worker.hurried)  # a pass can see that it is being stopped
    release.set()
    stopper.join(30)
    assert finished == [1] and not worker.alive


def test_wait_from_the_workers_own_thread_returns_at_once() -> None:
    answers: list[bool] = []
    worker = Worker("t", lambda: answers.append(worker.wait()))
    worker.request()
    assert worker.wait(timeout=30)
    assert answers == [True]
    worker.stop()


def test_a_withdrawn_request_is_never_run() -> None:
    """The caller did the work itself (the projector's flush): what was asked for and
    not begun is dropped, so no pass comes later to touch what the caller moved on to."""
    passes: list[int] = []
    worker = Worker("t", lambda: passes.append(1), coalesce=60.0, idle=None)
    worker.request()
    worker.withdraw()
    assert worker.wait(timeout=30)  # nothing is requested any more: returns at once
    assert passes == []
    worker.request()  # a later request is run as usual
    assert worker.wait(timeout=30)
    assert passes == [1]
    worker.stop()
