"""Pinned sessions: the prompt a session is given is frozen at its start and replayable later."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import memoir
from memoir.config import Config, JournalConfig, MemoryConfig
from memoir.events.sessions import SessionStarted
from tests.support.paths import REPO

RULE = "═" * 46


def fast(home: Path, memory_limit: int = 2200, user_limit: int = 1375) -> memoir.Memoir:
    return memoir.open(home, config=Config(
        memory=MemoryConfig(memory_char_limit=memory_limit, user_char_limit=user_limit),
        journal=JournalConfig(durability="never", checkpoint_every=100)))


def write_from_another_process(home: Path, content: str, target: str = "memory") -> None:
    code = (
        "import sys, memoir\n"
        "with memoir.open(sys.argv[1]) as m:\n"
        "    r = m.start_session().call_tool('memory', {'action': 'add', 'target': sys.argv[3],"
        " 'content': sys.argv[2]})\n"
        "    assert r['success'], r\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO), MEMOIR_DURABILITY="never")
    subprocess.run([sys.executable, "-c", code, str(home), content, target], check=True,
                   env=env, timeout=60)


def test_start_session_journals_its_start_and_pins_that_seq(home: Path) -> None:
    with fast(home) as mem:
        session = mem.start_session(platform="telegram")
        (event,) = mem.events(types=["session.started"])
        assert isinstance(event.data, SessionStarted)
        assert event.data.session_id == session.id and event.data.platform == "telegram"
        assert session.pinned_seq == event.seq == mem.head
        assert event.session == session.id


def test_prompt_blocks_are_none_when_both_stores_are_empty(home: Path) -> None:
    with fast(home) as mem:
        assert mem.start_session().prompt_blocks() == {"memory": None, "user": None}


def test_prompt_blocks_use_hermes_exact_format(home: Path) -> None:
    with fast(home) as mem:
        writer = mem.start_session()
        writer.call_tool("memory", {"action": "add", "content": "Uses pytest"})
        writer.call_tool("memory", {"action": "add", "content": "Deploys\nby hand"})
        writer.call_tool("memory", {"action": "add", "target": "user", "content": "Ada"})
        blocks = mem.start_session().prompt_blocks()
    assert blocks["memory"] == (
        f"{RULE}\nMEMORY (your personal notes) [1% — 29/2,200 chars]\n{RULE}\n"
        "Uses pytest\n§\nDeploys\nby hand"
    )
    assert blocks["user"] == (
        f"{RULE}\nUSER PROFILE (who the user is) [0% — 3/1,375 chars]\n{RULE}\nAda"
    )


def test_pinned_prompt_stays_frozen_while_this_and_another_process_write(home: Path) -> None:
    with fast(home) as mem:
        mem.start_session().call_tool("memory", {"action": "add", "content": "first"})
        session = mem.start_session()
        frozen = session.prompt_blocks()
        session.call_tool("memory", {"action": "add", "content": "written by this session"})
        session.call_tool("memory", {"action": "replace", "old_text": "first",
                                     "content": "first, edited"})
        write_from_another_process(home, "written by another process", "user")
        assert mem.head > session.pinned_seq + 2
        assert session.prompt_blocks() == frozen
        assert mem.session(session.id).prompt_blocks() == frozen
        # The live state moved on: a new session sees every write.
        now = mem.start_session().prompt_blocks()
        assert now["user"] is not None and "written by another process" in now["user"]
        assert now["memory"] is not None and "first, edited" in now["memory"]


def test_prompt_is_rendered_again_identically_from_a_new_handle(home: Path) -> None:
    with fast(home, 300, 200) as mem:
        session = mem.start_session()
        session.call_tool("memory", {"action": "add", "content": "pinned fact"})
        pinned = mem.start_session()
        frozen = pinned.prompt_blocks()
        for i in range(120):  # enough to write a checkpoint past the pin
            pinned.call_tool("memory", {"action": "add", "target": "user", "content": f"n{i}"})
            pinned.call_tool("memory", {"action": "remove", "target": "user",
                                        "old_text": f"n{i}"})
        assert any((home / ".memoir" / "checkpoints").iterdir())
    with memoir.open(home) as again:
        assert again.session(pinned.id).prompt_blocks() == frozen
        assert again.prompt_blocks(pinned.pinned_seq) == frozen
    shutil.rmtree(home / ".memoir" / "checkpoints")
    shutil.rmtree(home / "memories")
    with memoir.open(home) as cold:
        assert cold.session(pinned.id).prompt_blocks() == frozen
        assert cold.prompt_blocks(pinned.pinned_seq) == frozen


def test_pinned_prompt_keeps_the_limits_in_force_when_it_started(home: Path) -> None:
    with fast(home, 100, 100) as mem:
        mem.start_session().call_tool("memory", {"action": "add", "content": "x" * 10})
        pinned = mem.start_session()
    with fast(home, 1000, 100) as mem:
        later = mem.start_session().prompt_blocks()["memory"]
        assert later is not None and "[1% — 10/1,000 chars]" in later
        old = mem.session(pinned.id).prompt_blocks()["memory"]
        assert old is not None and "[10% — 10/100 chars]" in old


def test_prompt_shows_the_file_as_hermes_would_read_it(home: Path) -> None:
    with fast(home) as mem:
        mem.start_session().call_tool("memory", {"action": "add", "content": "a\n§\n b"})
        block = mem.start_session().prompt_blocks()["memory"]
    # Hermes snapshots the re-read file: two entries, blanks stripped.
    assert block == f"{RULE}\nMEMORY (your personal notes) [0% — 5/2,200 chars]\n{RULE}\na\n§\nb"


def test_session_reopened_by_id_keeps_its_actor(home: Path) -> None:
    with fast(home) as mem:
        session = mem.start_session(actor="reviewer.memory")
        again = mem.session(session.id)
        again.call_tool("memory", {"action": "add", "content": "from the reviewer"})
        (added,) = mem.events(types=["memory.entry_added"])
        assert added.actor == "reviewer.memory" and added.session == session.id


def test_string_arguments_are_parsed_as_json(home: Path) -> None:
    with fast(home) as mem:
        session = mem.start_session()
        result = session.call_tool("memory", '{"action": "add", "content": "from JSON"}')
        assert result["message"] == "Entry added."
        bad = session.call_tool("memory", "{not json")
        assert bad["success"] is False and "not valid JSON" in bad["error"]


def test_the_first_write_is_checked_against_the_configured_limit(home: Path) -> None:
    config = memoir.Config.model_validate({"memory": {"memory_char_limit": 50}})
    with memoir.open(home, config=config) as mem:
        result = mem.start_session().call_tool(
            "memory", {"action": "add", "target": "memory", "content": "x" * 120})
        assert result["success"] is False and "/50 chars" in result["error"]
        assert mem.state.memory.limits["memory"] == 50


def test_a_file_ahead_of_a_journal_that_lost_its_tail_is_rewritten_on_open(home: Path) -> None:
    config = memoir.Config.model_validate({"journal": {"durability": "never"}})
    with memoir.open(home, config=config) as mem:
        s = mem.start_session()
        s.call_tool("memory", {"action": "add", "target": "memory", "content": "kept"})
        size = (home / "journal.jsonl").stat().st_size
        s.call_tool("memory", {"action": "add", "target": "memory", "content": "lost"})
    assert (home / "memories" / "MEMORY.md").read_text(encoding="utf-8") == "kept\n§\nlost"
    # A power cut takes the unsynced tail of the journal but not the file's rename.
    with open(home / "journal.jsonl", "r+b") as fh:
        fh.truncate(size)
    with memoir.open(home, config=config) as mem:
        assert mem.drift() == []
    assert (home / "memories" / "MEMORY.md").read_text(encoding="utf-8") == "kept"
