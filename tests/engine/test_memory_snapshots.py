"""Memory snapshots: a past session's prompt renders from a nearby snapshot, the same as
from a full fold, whatever happens to the snapshot files."""

from __future__ import annotations

import itertools
import random
import shutil
from pathlib import Path

import pytest

import memoir
from memoir.engine import memory_snapshots
from memoir.projections.state import State
from memoir.prompt.blocks import render_blocks


@pytest.fixture
def small_every(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(memory_snapshots, "EVERY", 16)
    return 16


def _fill(home: Path, sessions: int) -> list[str]:
    ids = []
    config = memoir.Config.model_validate({"journal": {"checkpoint_every": 100_000}})
    with memoir.open(home, create=True, config=config) as mem:
        rng = random.Random(7)
        for n in range(sessions):
            with mem.start_session() as s:
                ids.append(s.id)
                s.call_tool("memory", {"action": "add", "target": rng.choice(["memory", "user"]),
                                       "content": f"fact {n}: {'x' * rng.randint(5, 60)}"})
                if n % 5 == 4:
                    s.call_tool("memory", {"action": "remove", "target": "memory",
                                           "old_text": f"fact {n - 4}:"})
    return ids


def _truth(home: Path, seq: int) -> dict[str, str | None]:
    with memoir.open(home, readonly=True) as mem:
        return render_blocks(State().apply_all(mem.journal.read(until=seq)))


def test_past_blocks_from_snapshots_equal_a_full_fold(home: Path, small_every: int) -> None:
    _fill(home, 60)
    with memoir.open(home) as mem:
        mem.rebuild()  # folds from the first record: snapshots every 16 records
    folder = home / ".memoir" / "memory"
    assert len(list(folder.iterdir())) >= 5
    with memoir.open(home, readonly=True) as mem:
        head = mem.state.seq
        for seq in random.Random(3).sample(range(1, head + 1), 25):
            assert render_blocks(mem.live.memory_view(seq)) == _truth(home, seq), seq


def test_damaged_or_foreign_snapshots_are_not_used(home: Path, small_every: int) -> None:
    _fill(home, 40)
    with memoir.open(home) as mem:
        mem.rebuild()
    folder = home / ".memoir" / "memory"
    files = sorted(folder.iterdir())
    data = bytearray(files[1].read_bytes())
    data[len(data) // 2] ^= 0xFF  # flipped bit: the digest no longer matches
    files[1].write_bytes(bytes(data))
    # A snapshot that says another journal's hash at its seq: anchor refuses it.
    other = home.parent / "other"
    _fill(other, 40)
    with memoir.open(other) as mem:
        mem.rebuild()
    for theirs in (other / ".memoir" / "memory").iterdir():
        shutil.copy(theirs, folder / theirs.name)
    with memoir.open(home, readonly=True) as mem:
        for seq in range(1, mem.state.seq + 1, 7):
            assert render_blocks(mem.live.memory_view(seq)) == _truth(home, seq), seq


def test_an_old_session_without_its_kept_prompt_renders_the_same(
        home: Path, small_every: int) -> None:
    ids = _fill(home, 50)
    with memoir.open(home) as mem:
        kept = {sid: mem.session(sid).prompt_blocks() for sid in ids[::7]}
        mem.rebuild()
    shutil.rmtree(home / ".memoir" / "prompts")
    with memoir.open(home) as mem:
        for sid, blocks in kept.items():
            assert mem.session(sid).prompt_blocks() == blocks


def test_commits_keep_snapshots_as_the_head_moves(home: Path, small_every: int) -> None:
    _fill(home, 30)  # ~75 records written through commits, no rebuild
    seqs = sorted(int(p.stem) for p in (home / ".memoir" / "memory").iterdir())
    assert seqs and all(b - a >= 16 for a, b in itertools.pairwise(seqs))


def test_forgotten_marks_are_kept_so_a_new_process_reads_only_what_came_since(
        home: Path, small_every: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from memoir.cli import cli
    from memoir.journal.file.reader import FileReader

    _fill(home, 30)
    with memoir.open(home) as mem:
        with mem.start_session() as s:
            s.call_tool("memory", {"action": "add", "target": "user",
                                   "content": "Lives at 12 Elm Street."})
        pinned = mem.head
    forget = CliRunner().invoke(cli, ["--home", str(home), "forget", "--text", "Elm Street",
                                      "-y"])
    assert forget.exit_code == 0, forget.output
    with memoir.open(home) as mem:  # more records after the forget
        for n in range(3):
            with mem.start_session() as s:
                s.call_tool("memory", {"action": "add", "target": "memory",
                                       "content": f"later {n}"})
        first = mem.prompt_blocks(pinned)["user"]
    assert first is not None and "[forgotten]" in first and "Elm" not in first
    kept = home / ".memoir" / "memory" / memory_snapshots.MARKS_FILE
    assert kept.is_file()
    # A new process starts from the kept marks: it reads none of the records before them.
    reads: list[int] = []
    original = FileReader.read_family

    def counting(self: FileReader, prefix: str, after: int = 0,
                 until: int | None = None) -> object:
        if prefix == "journal.forgotten":
            reads.append(after)
        return original(self, prefix, after, until)

    monkeypatch.setattr(FileReader, "read_family", counting)
    with memoir.open(home, readonly=True) as mem:
        assert mem.prompt_blocks(pinned)["user"] == first
        kept_at = mem.head
    assert reads == [] or reads == [kept_at]  # nothing appended since: nothing to read
    # A kept file that was tampered with is not used: the marks are read again, the same.
    kept.write_bytes(kept.read_bytes()[:-1] + bytes([kept.read_bytes()[-1] ^ 1]))
    reads.clear()
    with memoir.open(home, readonly=True) as mem:
        assert mem.prompt_blocks(pinned)["user"] == first
    assert reads == [0]
