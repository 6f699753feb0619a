"""Group commit: concurrent commits on one handle share fsyncs and stay correct.

Every commit must still be atomic, decide against a state that includes every commit
before it (in its own batch too), fail alone when its own decide or expectation fails,
and be acknowledged only once it is durable.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import memoir
from memoir.api import Memoir
from memoir.config import Config
from memoir.engine import CommitQueue, Decision, LiveState, Pending
from memoir.engine import commit as commit_module
from memoir.errors import ConflictError, JournalError
from memoir.events.memory import EntryAdded
from memoir.events.sessions import SessionEnded
from memoir.journal import ExpectHead, FileJournal
from memoir.projections.state import State
from tests.support.paths import REPO


def _slow_fsync(monkeypatch: pytest.MonkeyPatch, seconds: float = 0.003) -> list[int]:
    """Make every fsync take ``seconds`` (so batches form) and count them."""
    calls: list[int] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        calls.append(fd)
        time.sleep(seconds)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return calls


def _journal_fsyncs(calls: list[int], mem: Memoir) -> int:
    """How many of the counted fsyncs were of the journal (not of projected files)."""
    journal = mem.journal
    assert isinstance(journal, FileJournal)
    return sum(1 for fd in calls if fd == journal.fileno())


def _end(session_id: str, result: str = "ok") -> Callable[[State], Decision[str]]:
    """A decide function that journals one session.ended (any payload would do)."""

    def decide(_state: State) -> Decision[str]:
        return Decision(events=[SessionEnded(session_id=session_id, reason="x")], result=result)

    return decide


def _ended(mem: Memoir) -> list[str]:
    return [e.data.session_id for e in mem.events(types=["session.ended"])  # type: ignore[attr-defined]
            ]


def _in_threads(count: int, work: Any) -> list[BaseException]:
    errors: list[BaseException] = []

    def run(k: int) -> None:
        try:
            work(k)
        except BaseException as exc:  # collected and asserted on by the test
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_concurrent_commits_share_fsyncs_and_every_one_lands_once(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = Memoir(home)
    mem.head  # noqa: B018  (open fully before counting)
    fsyncs = _slow_fsync(monkeypatch)
    results: dict[int, list[int]] = {}

    def work(k: int) -> None:
        seqs = []
        for i in range(25):
            events, _ = mem.commit(_end(f"t{k}-{i}"), by="agent")
            seqs.append(events[0].seq)
        results[k] = seqs

    assert _in_threads(8, work) == []
    journal_fsyncs = _journal_fsyncs(fsyncs, mem)
    all_seqs = sorted(s for seqs in results.values() for s in seqs)
    assert len(all_seqs) == 200 and len(set(all_seqs)) == 200
    # Each thread's own commits are in its order.
    for seqs in results.values():
        assert seqs == sorted(seqs)
    # Batches formed: far fewer journal fsyncs than commits.
    assert journal_fsyncs <= 0.6 * 200, journal_fsyncs
    ended = _ended(mem)
    assert sorted(ended) == sorted(f"t{k}-{i}" for k in range(8) for i in range(25))
    report = mem.verify()
    assert report.records == mem.head
    mem.close()


def test_each_commit_decides_against_the_ones_before_it_in_the_same_batch(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 20 threads race to add entries of 100 chars under a 1,000-char limit: exactly as
    # many as fit may land (9: 9*100 + 8*3 = 924), whatever the batching.
    config = Config.model_validate({"memory": {"memory_char_limit": 1000}})
    mem = Memoir(home, config=config)
    _slow_fsync(monkeypatch)
    sessions = [mem.start_session() for _ in range(20)]
    outcomes: list[dict[str, Any]] = []

    def work(k: int) -> None:
        text = f"entry {k:02d} ".ljust(100, "x")
        outcomes.append(sessions[k].call_tool(
            "memory", {"action": "add", "target": "memory", "content": text}))

    assert _in_threads(20, work) == []
    added = [o for o in outcomes if o.get("message") == "Entry added."]
    refused = [o for o in outcomes if not o.get("success")]
    assert len(added) == 9 and len(refused) == 11
    assert all("would exceed the limit" in o["error"] for o in refused)
    texts = mem.state.memory.target("memory").texts()
    assert len(texts) == 9 and len(set(texts)) == 9
    mem.close()


def test_a_failing_decide_or_expectation_fails_only_its_own_commit(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = Memoir(home)
    _slow_fsync(monkeypatch)
    stale_head = mem.head

    def boom(_s: State) -> Decision[str]:
        raise ValueError("decide failed")

    outcomes: dict[int, object] = {}

    def work(k: int) -> None:
        try:
            if k % 3 == 0:
                mem.commit(boom, by="agent")
            elif k % 3 == 1:
                mem.commit(_end(f"ok-{k}"), expect=ExpectHead(stale_head), by="agent")
            else:
                outcomes[k] = mem.commit(_end(f"ok-{k}"), by="agent")[1]
                return
        except (ValueError, ConflictError) as exc:
            outcomes[k] = type(exc).__name__
            return
        outcomes[k] = "landed"

    # One of the ExpectHead commits may run first, while the head is still stale.
    assert _in_threads(12, work) == []
    for k, outcome in outcomes.items():
        if k % 3 == 0:
            assert outcome == "ValueError"
        elif k % 3 == 2:
            assert outcome == "ok"
    landed_with_expect = [k for k in outcomes if k % 3 == 1 and outcomes[k] == "landed"]
    assert len(landed_with_expect) <= 1
    ended = set(_ended(mem))
    assert ended == {f"ok-{k}" for k in range(12) if k % 3 == 2} | {
        f"ok-{k}" for k in landed_with_expect}
    mem.close()


def test_commit_inside_a_decide_is_refused(home: Path) -> None:
    mem = Memoir(home)

    def nested(_s: State) -> Decision[None]:
        mem.commit(lambda _s: Decision(events=[]), by="agent")
        return Decision(events=[])

    with pytest.raises(RuntimeError, match="inside a decide"):
        mem.commit(nested, by="agent")
    # The handle is still usable.
    mem.commit(_end("s"), by="agent")
    mem.close()


def _add_entry(text: str) -> Callable[[State], Decision[None]]:
    def decide(_state: State) -> Decision[None]:
        return Decision(events=[EntryAdded(target="memory", entry_id=f"e-{text}", text=text)])

    return decide


def test_sessions_started_during_a_burst_of_adds_pin_their_own_prompt(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = Memoir(home)
    _slow_fsync(monkeypatch, 0.002)
    writer = mem.start_session()
    started: list[memoir.Session] = []

    def work(k: int) -> None:
        if k < 4:
            for i in range(8):
                writer_text = f"fact {k}-{i}"
                mem.commit(_add_entry(writer_text), by="agent")
        else:
            for _ in range(4):
                started.append(mem.start_session())

    assert _in_threads(8, work) == []
    assert writer.pinned_seq > 0
    for session in started:
        # The blocks handed out at start are exactly the state at the pinned seq.
        assert session.prompt_blocks() == mem.prompt_blocks(session.pinned_seq)
    mem.close()


def test_a_failed_fsync_fails_the_commit_and_every_later_one(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = Memoir(home)
    mem.start_session()
    real = os.fsync

    def broken(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(JournalError, match="fsync failed"):
        mem.commit(_end("a"), by="agent")
    monkeypatch.setattr(os, "fsync", real)
    with pytest.raises(JournalError, match="open the home again"):
        mem.commit(_end("b"), by="agent")
    mem.close()
    # Opening again recovers: the journal verifies and accepts appends.  The record
    # whose fsync failed may or may not be there (like an append cut by a crash).
    again = Memoir(home)
    again.commit(_end("c"), by="agent")
    assert again.verify().records == again.head
    ended = _ended(again)
    assert "b" not in ended and ended[-1] == "c"
    again.close()


_WRITER = """
import sys, threading
import memoir
from memoir.events.sessions import SessionEnded
from memoir.engine import CommitQueue, Decision, LiveState, Pending
from memoir.engine import commit as commit_module
home, tag = sys.argv[1], sys.argv[2]
mem = memoir.open(home)
def work(k):
    for i in range(40):
        mem.commit(lambda _s, k=k, i=i: Decision(events=[SessionEnded(
            session_id=f"{tag}-{k}-{i}", reason="x")]), by="agent")
threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
for t in threads: t.start()
for t in threads: t.join()
mem.close()
print("ok")
"""


def test_two_processes_with_four_threads_each_interleave_without_loss(home: Path) -> None:
    memoir.open(home).close()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(home), tag], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for tag in ("p", "q")
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert out.strip() == "ok"
    mem = Memoir(home)
    ended = _ended(mem)
    expected = {f"{tag}-{k}-{i}" for tag in "pq" for k in range(4) for i in range(40)}
    assert len(ended) == len(expected) and set(ended) == expected
    assert mem.verify().records == mem.head
    mem.close()


def test_the_system_clock_stamp_is_format_ts_of_the_same_instant() -> None:
    import datetime as dt

    from memoir.clock import SystemClock, format_ts

    clock = SystemClock()
    for _ in range(200):
        ms, ts = clock.stamp()
        parsed = dt.datetime.fromisoformat(ts)
        assert format_ts(parsed) == ts
        # Integer arithmetic: float timestamps round 491000 us to 490.999... ms.
        whole = parsed.replace(microsecond=0)
        assert int(whole.timestamp()) * 1000 + parsed.microsecond // 1000 == ms


def _queue(tmp: Path) -> tuple[CommitQueue, FileJournal]:
    """The commit path alone: a file journal, its live state, a queue (no projections)."""
    journal = FileJournal(tmp / "journal.jsonl", durability="never")
    return CommitQueue(LiveState(journal, None)), journal


def _commit(queue: CommitQueue, session_id: str) -> Pending[str]:
    pending: Pending[str] = Pending(_end(session_id), "agent")
    queue.run(pending)
    return pending


def test_a_lone_writer_never_waits_for_siblings(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # A leader waits for as many commits as its last batch had; alone, that is itself.
    monkeypatch.setattr(commit_module, "GATHER_SECONDS", 5.0)
    queue, journal = _queue(tmp_path)
    started = time.monotonic()
    for i in range(20):
        _commit(queue, f"solo-{i}")
    assert time.monotonic() - started < 2.0
    assert journal.head() == 20
    journal.close()


def test_a_leader_waits_for_the_last_batch_s_committers_then_gives_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(commit_module, "GATHER_SECONDS", 0.2)
    queue, journal = _queue(tmp_path)
    queue.last_batch = 3  # as if three sessions had just committed together
    started = time.monotonic()
    _commit(queue, "alone")  # nobody else comes: waits 0.2 s, once
    waited = time.monotonic() - started
    assert 0.15 <= waited < 5.0
    assert queue.last_batch == 1
    monkeypatch.setattr(commit_module, "GATHER_SECONDS", 5.0)
    started = time.monotonic()
    _commit(queue, "alone again")  # the last batch was 1: no wait
    assert time.monotonic() - started < 2.5
    journal.close()


def test_a_failure_after_staging_fails_the_whole_batch_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    queue, journal = _queue(tmp_path)
    live = queue.live
    _commit(queue, "before")
    head, state_before = journal.head(), live.view()
    real_apply = State.apply

    def apply(self: State, event: Any) -> None:
        if getattr(event.data, "session_id", "") == "poison":
            raise RuntimeError("fold failed")
        real_apply(self, event)

    monkeypatch.setattr(State, "apply", apply)
    # Two commits in one batch: hold the state mutex so the first to come leads and
    # waits for it, while the second queues behind; then both run as one batch, the
    # first staging fine and the second's fold failing.
    results: dict[str, BaseException | None] = {}

    def commit(name: str) -> None:
        try:
            _commit(queue, name)
            results[name] = None
        except BaseException as exc:
            results[name] = exc

    with live.mutex:
        first = threading.Thread(target=commit, args=("fine",))
        first.start()
        deadline = time.monotonic() + 10
        while not queue.leading and time.monotonic() < deadline:
            time.sleep(0.001)
        second = threading.Thread(target=commit, args=("poison",))
        second.start()
        while queue.queued() < 2 and time.monotonic() < deadline:
            time.sleep(0.001)
        assert queue.queued() == 2
    first.join(10)
    second.join(10)
    assert isinstance(results["fine"], RuntimeError)
    assert isinstance(results["poison"], RuntimeError)
    monkeypatch.setattr(State, "apply", real_apply)
    assert journal.head() == head  # nothing of the batch reached the journal
    assert live.state == state_before  # the live state was folded again
    _commit(queue, "after")
    ended = [e.data.session_id for e in journal.read()  # type: ignore[attr-defined]
             if isinstance(e.data, SessionEnded)]
    assert ended == ["before", "after"]
    assert journal.verify().records == journal.head()
    journal.close()
