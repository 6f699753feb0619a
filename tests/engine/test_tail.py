"""Tailing the journal (memoir.engine.tail): a handle that only listens folds what
another handle appends and writes the files it changes, without a request of its own;
stop() ends the thread; a failed pass is logged and the tail goes on; a Memoir opened
with ``follow=True`` tails from the start and its close stops the tail."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

import memoir
from memoir.engine.tail import Tail


def _add(handle: memoir.Memoir, text: str) -> None:
    with handle.start_session() as session:
        assert session.call_tool("memory", {"action": "add", "target": "memory",
                                            "content": text})["success"]


def test_a_listening_handle_writes_what_another_one_appended(tmp_path: Path) -> None:
    home = tmp_path / "home"
    memoir.Memoir(home, create=True).close()
    changed = threading.Event()
    seen: list[tuple[int, int]] = []

    def on_change(before: int, head: int) -> None:
        seen.append((before, head))
        changed.set()

    with memoir.open(home) as listener, memoir.open(home) as writer:
        listener.config.projections.mode = "background"
        with Tail(listener, poll=0.05, on_change=on_change) as tail:
            start = tail.seen
            _add(writer, "Written by the other handle.")
            assert changed.wait(timeout=30)
            assert seen[0][0] == start and seen[0][1] == writer.head
            assert listener.live.state.memory.target("memory").texts() == [
                "Written by the other handle."]
        assert not tail.running  # stop() waited for the thread


def test_a_failed_pass_is_logged_and_the_tail_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    memoir.Memoir(home, create=True).close()
    changed = threading.Event()
    with memoir.open(home) as listener, memoir.open(home) as writer:
        tail = Tail(listener, poll=0.05, on_change=lambda *_: changed.set())
        tail.start()
        calls: list[int] = []
        real = listener.live.catch_up

        def flaky() -> int:
            calls.append(1)
            if len(calls) == 1:
                raise OSError("disk gone for a moment")
            return real()

        monkeypatch.setattr(listener.live, "catch_up", flaky)
        try:
            _add(writer, "After a failed pass.")
            assert changed.wait(timeout=30)
            assert len(calls) >= 2
        finally:
            monkeypatch.undo()
            tail.stop()


def test_a_handle_opened_to_follow_tails_until_it_closes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    memoir.Memoir(home, create=True).close()
    with memoir.open(home, follow=True) as listener, memoir.open(home) as writer:
        tail = listener.follow()
        assert tail is listener.follow() and tail.running  # one tail per handle
        _add(writer, "Seen without a request.")
        deadline = time.monotonic() + 30
        while tail.seen < writer.head:  # the listener makes no call of its own
            assert time.monotonic() < deadline, "the tail never caught up"
            time.sleep(0.01)
        assert listener.live.state.memory.target("memory").texts() == [
            "Seen without a request."]
    assert not tail.running  # close stopped it
