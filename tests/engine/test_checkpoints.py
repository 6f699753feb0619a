"""Checkpoints: state saved with its journal position, validated on open, history lazy."""

from __future__ import annotations

from pathlib import Path

import pytest

import memoir
from memoir.config import Config
from memoir.projections.lazy import LazyDict
from memoir.projections.state import State


def _config(every: int = 100) -> Config:
    return Config.model_validate({"journal": {"durability": "never", "checkpoint_every": every}})


def _fill(home: Path, sessions: int) -> list[str]:
    ids = []
    with memoir.open(home, config=_config()) as mem:
        for i in range(sessions):
            s = mem.start_session()
            ids.append(s.id)
            if i % 10 == 0:
                s.call_tool("memory", {"action": "add", "target": "memory",
                                       "content": f"fact number {i}"})
    return ids


def test_open_uses_a_checkpoint_and_matches_a_full_replay(home: Path) -> None:
    _fill(home, 250)
    with memoir.open(home, config=_config()) as mem:
        assert mem.checkpoints.seqs(), "a checkpoint should have been written"
        live = mem.state
        full = State().apply_all(mem.journal.read())
        assert live.seq == full.seq
        assert live.memory == full.memory
        assert dict(live.sessions) == dict(full.sessions)


def test_sessions_and_runs_stay_undecoded_until_read(home: Path) -> None:
    ids = _fill(home, 150)
    with memoir.open(home, config=_config()) as mem:
        sessions = mem.live.state.sessions
        assert isinstance(sessions, LazyDict) and not sessions.is_loaded
        fresh = mem.start_session()
        blocks = fresh.prompt_blocks()
        assert blocks["memory"] is not None and "fact number 140" in blocks["memory"]
        assert not sessions.is_loaded, "starting a session must not decode the history"
        # Reading merges the stored part with what was added since, in order.
        assert list(mem.state.sessions) == [*ids, fresh.id]


def test_one_old_session_is_read_without_decoding_the_others(home: Path) -> None:
    ids = _fill(home, 150)
    with memoir.open(home, config=_config()) as mem:
        sessions = mem.live.state.sessions
        assert isinstance(sessions, LazyDict) and not sessions.is_loaded
        assert ids[3] in sessions and sessions[ids[3]].id == ids[3]
        assert "no-such-session" not in sessions
        assert sessions.get("no-such-session", "missing") == "missing"
        assert not sessions.is_loaded, "one lookup must not decode the whole history"
        # A session read on its own and changed afterwards keeps the change when the
        # whole history is decoded later.
        resumed = mem.session(ids[3])
        resumed.call_tool("memory", {"action": "add", "target": "user",
                                     "content": "written on resume"})
        resumed.end()
        assert mem.state.sessions[ids[3]].ended_at is not None
        full = State().apply_all(mem.journal.read())
        assert list(mem.state.sessions) == list(full.sessions)
        assert dict(mem.state.sessions) == dict(full.sessions)


def test_a_checkpoint_that_does_not_match_the_journal_is_ignored(home: Path) -> None:
    _fill(home, 150)
    with memoir.open(home, config=_config()) as mem:
        cp_seq = mem.checkpoints.seqs()[-1]
        expected = mem.view().memory
    # Forge the checkpoint: same seq, different state, as a stale or foreign file would be.
    with memoir.open(home, config=_config()) as mem:
        cp = mem.checkpoints.load(cp_seq)
        assert cp is not None
        cp.state.load_history()
        cp.state.memory.memory.entries.clear()
        cp.hash = "0" * 32
        cp.state.hash = cp.hash
        mem.checkpoints.save(cp.state, cp.offset)
    with memoir.open(home, config=_config()) as mem:
        assert mem.state.memory == expected


def test_view_at_an_old_seq_equals_a_replay_to_that_seq(home: Path) -> None:
    _fill(home, 250)
    with memoir.open(home, config=_config()) as mem:
        for seq in (1, 57, 150, 233, mem.head):
            replay = State().apply_all(mem.journal.read(until=seq))
            view = mem.view(seq)
            assert view.seq == seq
            assert view.memory == replay.memory
            assert dict(view.sessions) == dict(replay.sessions)


def _damage_line(path: Path, seq: int) -> None:
    lines = path.read_bytes().split(b"\n")
    # Same length, so byte offsets (and the checkpoints' anchors) stay where they were.
    lines[seq - 1] = lines[seq - 1].replace(b'"ts":"2', b'"ts":"3', 1)
    path.write_bytes(b"\n".join(lines))


def test_damage_after_the_checkpoint_refuses_to_open(home: Path) -> None:
    _fill(home, 150)
    with memoir.open(home, config=_config()) as mem:
        cp = mem.checkpoints.seqs()[-1]
        head = mem.head
    assert cp < head - 5
    _damage_line(home / "journal.jsonl", head - 3)
    with pytest.raises(memoir.JournalCorrupted, match=f"line {head - 3}"):
        memoir.open(home, config=_config())


def test_damage_before_the_checkpoint_is_found_by_verify(home: Path) -> None:
    _fill(home, 150)
    with memoir.open(home, config=_config()) as mem:
        cp = mem.checkpoints.seqs()[-1]
    _damage_line(home / "journal.jsonl", cp - 10)
    # The checkpoint vouches for the prefix, so the home opens; verify reads it all.
    with memoir.open(home, config=_config()) as mem, pytest.raises(
        memoir.JournalCorrupted, match=f"line {cp - 10}"
    ):
        mem.verify()


def test_a_missing_history_file_is_replayed_from_the_journal(home: Path) -> None:
    ids = _fill(home, 150)
    for history in (home / ".memoir" / "checkpoints").glob("*.history*"):
        history.unlink()
    with memoir.open(home, config=_config()) as mem:
        assert list(mem.state.sessions) == ids


def test_a_history_saved_in_one_file_before_sharding_still_reads(home: Path) -> None:
    ids = _fill(home, 150)
    folder = home / ".memoir" / "checkpoints"
    with memoir.open(home, config=_config()) as mem:
        store = mem.checkpoints
        for seq in store.seqs():
            cp = store.load(seq)
            assert cp is not None
            whole = store._load_history(cp, None)
            (folder / f"{seq}.history").write_bytes(store._sealed(store._encoder.encode(whole)))
            for shard in folder.glob(f"{seq}.history.*"):
                shard.unlink()
    assert not list(folder.glob("*.history.*"))
    with memoir.open(home, config=_config()) as mem:
        sessions = mem.live.state.sessions
        assert sessions[ids[3]].id == ids[3] and not sessions.is_loaded
        assert list(mem.state.sessions) == ids
