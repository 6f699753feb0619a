"""Many OS processes on one journal: concurrent appends, concurrent agents, SIGKILL mid-append.

Workers are real Python processes (``subprocess``) running the small scripts below.  They
report what was acknowledged on stdout *after* the call returned, so the parent can
check that every acknowledged write is in the journal exactly once.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import memoir
from memoir.events.memory import EntryAdded
from memoir.events.types import Event
from memoir.journal import FileJournal

REPO = Path(memoir.__file__).resolve().parent.parent

# Waits at a barrier (files in the work folder) so that all workers start together.
# Workers import memoir before the barrier: starting Python is the slow part.
_BARRIER = """
import pathlib, sys, time
def barrier(folder, name, go="go"):
    pathlib.Path(folder, "ready-" + name).touch()
    while not pathlib.Path(folder, go).exists():
        time.sleep(0.002)
"""

APPENDER = _BARRIER + """
import hashlib, json, os
import memoir
from memoir.journal import FileJournal
from memoir.events.memory import EntryAdded
from memoir.events.types import Event
from memoir.events.memory import EntryAdded
from memoir.events.types import Draft

path, name, rounds, durability = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
filler, go = int(sys.argv[5]), sys.argv[6]
folder = pathlib.Path(path).parent
# Acknowledgements go to a file, one write per line: a pipe would block a fast writer.
acks = os.open(folder / f"ack-{name}.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
barrier(folder, name, go)
journal = FileJournal(path, durability=durability)
i = 0
while rounds < 0 or i < rounds:
    size = 1 + i % 4
    drafts = [Draft(data=EntryAdded(target="memory", entry_id=f"e-{name}-{i}-{k}",
                                    text=f"{name} append {i} record {k} " + "x" * filler),
                    actor="agent", session="s-" + name) for k in range(size)]
    events = journal.append(drafts)
    # Acknowledged: only now is the append reported.
    line = json.dumps([[e.seq, e.id, hashlib.blake2b(e.data.text.encode()).hexdigest()]
                       for e in events])
    os.write(acks, line.encode() + b"\\n")
    i += 1
journal.close()
"""

READER = _BARRIER + """
from memoir.journal import FileJournal
from memoir.events.memory import EntryAdded
from memoir.events.types import Event

path, name, expected = sys.argv[1], sys.argv[2], int(sys.argv[3])
barrier(pathlib.Path(path).parent, name)
journal = FileJournal(path)
deadline = time.monotonic() + 60
seen = 0
snapshots = 0
while seen < expected and time.monotonic() < deadline:
    events = list(journal.read(after=seen))
    if events:
        assert [e.seq for e in events] == list(range(seen + 1, seen + len(events) + 1)), "gap"
        assert events[-1].more == 0, f"half an append visible at seq {events[-1].seq}"
        snapshots += 1
    seen += len(events)
    time.sleep(0.001)
print(seen, snapshots, flush=True)
"""

AGENT = _BARRIER + """
import json
import memoir

home, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
mem = memoir.open(home)
session = mem.start_session()
barrier(pathlib.Path(home).parent, name)
for i in range(count):
    target = "memory" if i % 2 == 0 else "user"
    content = f"{name} remembers fact {i}"
    result = session.call_tool("memory", {"action": "add", "target": target, "content": content})
    print(json.dumps({"target": target, "content": content, "success": result["success"]}),
          flush=True)
mem.close()
"""

SELF_KILLING_WRITER = """
import os, signal, sys
import memoir
from memoir.journal import FileJournal
from memoir.events.memory import EntryAdded
from memoir.events.types import Event
from memoir.events.memory import EntryAdded
from memoir.events.types import Draft

path = sys.argv[1]
journal = FileJournal(path)
draft = lambda i: Draft(data=EntryAdded(target="memory", entry_id=f"e-{i}", text=f"fact {i}"),
                        actor="agent")
journal.append([draft(0)])
print("acked", flush=True)
real_write = os.write
def write_half_then_die(fd, data):
    real_write(fd, bytes(data[: len(data) // 2]))
    os.kill(os.getpid(), signal.SIGKILL)
os.write = write_half_then_die
journal.append([draft(1), draft(2), draft(3)])
print("never acknowledged", flush=True)
"""


def spawn(script: str, *args: object) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=env,
    )


def release(
    folder: Path, names: Sequence[str], procs: Sequence[subprocess.Popen[str]], go: str = "go"
) -> None:
    """Wait until every worker is at the barrier, then let them all go at once."""
    deadline = time.monotonic() + 60
    while not all((folder / f"ready-{n}").exists() for n in names):
        for p in procs:
            if p.poll() is not None:
                raise AssertionError(f"worker died before the start: {p.stderr.read()}")  # type: ignore[union-attr]
        assert time.monotonic() < deadline, "workers did not reach the barrier"
        time.sleep(0.005)
    (folder / go).touch()


def finish(proc: subprocess.Popen[str], timeout: float = 60) -> list[str]:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err
    return out.splitlines()


def acknowledged(folder: Path, name: str) -> list[list[Any]]:
    """The (seq, id, text digest) a worker reported, ignoring a line cut short by its death."""
    acked = []
    for line in (folder / f"ack-{name}.jsonl").read_text().splitlines():
        try:
            acked += json.loads(line)
        except json.JSONDecodeError:
            continue
    return acked


def digest(event: Event) -> str:
    assert isinstance(event.data, EntryAdded)
    return hashlib.blake2b(event.data.text.encode()).hexdigest()


def test_four_processes_appending_at_once_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    names = ["w0", "w1", "w2", "w3"]
    rounds = 30
    expected = len(names) * sum(1 + i % 4 for i in range(rounds))
    writers = [spawn(APPENDER, path, n, rounds, "always", 0, "go") for n in names]
    reader = spawn(READER, path, "reader", expected)
    release(tmp_path, [*names, "reader"], [*writers, reader])
    for w in writers:
        finish(w)
    acked = [rec for n in names for rec in acknowledged(tmp_path, n)]
    seen, snapshots = map(int, finish(reader)[0].split())

    with FileJournal(path) as journal:
        events = list(journal.read())
        report = journal.verify()
    assert [e.seq for e in events] == list(range(1, expected + 1))
    assert report.records == expected and report.pending_bytes == 0
    assert len({e.id for e in events}) == expected
    by_seq = {e.seq: e for e in events}
    assert len(acked) == expected
    for seq, event_id, text_digest in acked:
        assert (by_seq[seq].id, digest(by_seq[seq])) == (event_id, text_digest)
    # The reader checked every snapshot it took ended on a whole append.
    assert seen == expected and snapshots >= 1


def test_four_agents_adding_memories_at_once_lose_no_update(tmp_path: Path) -> None:
    home = tmp_path / "home"
    names = ["a0", "a1", "a2", "a3"]
    agents = [spawn(AGENT, home, n, 6) for n in names]
    release(tmp_path, names, agents)
    results = [json.loads(line) for a in agents for line in finish(a)]

    assert len(results) == 24 and all(r["success"] for r in results)
    with memoir.open(home) as mem:
        assert mem.verify().records == mem.head
        for target in ("memory", "user"):
            texts = mem.state.memory.target(target).texts()
            wanted = {r["content"] for r in results if r["target"] == target}
            assert set(texts) == wanted and len(texts) == len(wanted)
            on_disk = (home / "memories" / f"{target.upper()}.md").read_text(encoding="utf-8")
            assert on_disk == "\n§\n".join(texts)


def test_writers_killed_mid_append_lose_no_acknowledged_event(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    rng = random.Random(1234)
    rounds = 5
    acked: list[list[Any]] = []
    recovered = 0

    def start(round_no: int) -> tuple[list[str], list[subprocess.Popen[str]]]:
        names = [f"r{round_no}w{k}" for k in range(3)]
        # Two durable writers; the third skips fsync and writes big appends, so that
        # more kills land inside a write() and leave a torn tail to recover.
        modes = [("always", rng.choice([0, 1000, 8000]))] * 2 + [("never", 990_000)]
        return names, [spawn(APPENDER, path, n, -1, durability, filler, f"go-{round_no}")
                       for n, (durability, filler) in zip(names, modes, strict=True)]

    upcoming = start(0)
    for round_no in range(rounds):
        names, writers = upcoming
        release(tmp_path, names, writers, go=f"go-{round_no}")
        if round_no + 1 < rounds:
            upcoming = start(round_no + 1)  # they import memoir while this round runs
        for w in writers:
            time.sleep(rng.uniform(0.02, 0.2))
            w.send_signal(signal.SIGKILL)
        for name, w in zip(names, writers, strict=True):
            w.communicate(timeout=30)
            assert w.returncode == -signal.SIGKILL
            acked += acknowledged(tmp_path, name)
        with FileJournal(path) as journal:
            recovered += journal.recovery is not None
            events = {e.seq: e for e in journal.read()}
            assert journal.verify().records == len(events)
        for seq, event_id, text_digest in acked:
            assert (events[seq].id, digest(events[seq])) == (event_id, text_digest)
        assert len({e.id for e in events.values()}) == len(events)
    assert len(acked) > 0
    print(f"{len(acked)} acknowledged records kept; {recovered} torn tails cut")


def test_a_writer_killed_in_the_middle_of_its_write_leaves_a_tail_the_next_open_cuts(
    tmp_path: Path,
) -> None:
    path = tmp_path / "journal.jsonl"
    writer = spawn(SELF_KILLING_WRITER, path)
    out, _err = writer.communicate(timeout=30)
    assert writer.returncode == -signal.SIGKILL
    assert out.splitlines() == ["acked"]
    size = path.stat().st_size
    with FileJournal(path) as journal:
        assert journal.head() == 1
        assert journal.recovery is not None and journal.recovery.saved_to is not None
        assert journal.recovery.cut_bytes > 0
        assert path.stat().st_size + journal.recovery.cut_bytes == size
        journal.verify()


@pytest.mark.slow
def test_many_rounds_of_sigkill_lose_no_acknowledged_event(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("a soak: run with -m slow")
    for n in range(20):
        folder = tmp_path / f"soak-{n}"
        folder.mkdir()
        test_writers_killed_mid_append_lose_no_acknowledged_event(folder)
