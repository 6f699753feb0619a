"""Journals written with an older schema keep replaying: numbered upcasters lift them on read.

``tests/data/journal-v1.jsonl`` is a journal as memoir 0.0 wrote it (``memory.entry_added``
v1: ``content``, no ``entry_id``), made by ``tests/data/make_journal_v1.py``.
"""

from __future__ import annotations

import runpy
import shutil
from pathlib import Path
from typing import Any

import pytest

import memoir
from memoir.errors import JournalCorrupted
from memoir.events.upcasters import UPCASTERS, upcast
from memoir.journal import FileJournal
from tests.support.journal import rehash
from tests.support.paths import DATA

V1 = DATA / "journal-v1.jsonl"
MEMORY = ["Project uses uv, never pip", "Tests: pytest -q; property tests use Hypothesis",
          "Deploy with `make ship` (needs VPN: ünïcode ok)"]
USER = ["Name is Ada; prefers short answers"]


@pytest.fixture
def v1_home(home: Path) -> Path:
    shutil.copyfile(V1, home / "journal.jsonl")
    return home


def test_the_committed_v1_journal_is_what_its_generator_writes() -> None:
    build: Any = runpy.run_path(str(DATA / "make_journal_v1.py"))["build"]
    assert build() == V1.read_bytes()
    assert b'"v":1' in V1.read_bytes() and b'"content":' in V1.read_bytes()
    assert b"entry_id" not in V1.read_bytes()


def test_a_v1_journal_replays_to_the_right_state(v1_home: Path) -> None:
    with memoir.open(v1_home) as mem:
        memory = mem.state.memory
        assert memory.memory.texts() == MEMORY
        assert memory.user.texts() == USER
        # Entry ids are derived from the event id, so they are the same on every read.
        assert [e.id for e in memory.memory.entries] == [
            "e-000000000003", "e-000000000005", "e-000000000006"]
        added = [e for e in mem.journal.read() if e.type == "memory.entry_added"]
        assert {e.v for e in added} == {2}
        assert added == list(e for e in mem.journal.read() if e.type == "memory.entry_added")


def test_a_v1_journal_renders_the_right_memory_files(v1_home: Path) -> None:
    with memoir.open(v1_home) as mem:
        mem.rebuild()
        assert (v1_home / "memories" / "MEMORY.md").read_bytes() == "\n§\n".join(
            MEMORY).encode()
        assert (v1_home / "memories" / "USER.md").read_bytes() == USER[0].encode()
        block = mem.prompt_blocks()["user"]
        assert block is not None and block.endswith(USER[0])


def test_a_v1_journal_verifies(v1_home: Path) -> None:
    with memoir.open(v1_home) as mem:
        report = mem.verify()
        assert report.records == 6
        assert report.types == {"memory.limits_set": 1, "session.started": 1,
                                "memory.entry_added": 4}
        assert report.head_hash == "f1c648dc4205a51a4ad2b936fc56ad1f"


def test_new_writes_land_after_v1_records_and_address_upcast_entries(v1_home: Path) -> None:
    with memoir.open(v1_home) as mem:
        session = mem.start_session()
        result = session.call_tool("memory", {"action": "replace", "old_text": "never pip",
                                              "content": "Project uses uv (pip is banned)"})
        assert result["success"], result
    with memoir.open(v1_home) as mem:
        assert mem.verify().records == 8
        assert mem.state.memory.memory.entries[0].id == "e-000000000003"
        assert mem.state.memory.memory.texts()[0] == "Project uses uv (pip is banned)"
    raw = (v1_home / "journal.jsonl").read_bytes().splitlines()
    assert b'"v":1' in raw[2] and b'"type":"memory.entry_replaced"' in raw[-1]


def test_upcasters_chain_from_any_older_version() -> None:
    envelope = {"id": "0" * 20 + "abcdefabcdef", "seq": 1, "ts": "", "actor": "agent"}
    lifted = upcast("memory.entry_added", 1, 2, {"target": "user", "content": "hi"}, envelope)
    assert lifted == {"target": "user", "entry_id": "e-abcdefabcdef", "text": "hi"}
    assert upcast("memory.entry_added", 2, 2, {"x": 1}, envelope) == {"x": 1}
    assert ("memory.entry_added", 1) in UPCASTERS


def test_a_missing_upcaster_is_named() -> None:
    with pytest.raises(LookupError, match=r"no upcaster for memory\.entry_added v2 -> v3"):
        upcast("memory.entry_added", 2, 3, {}, {})


def test_a_v1_record_the_upcaster_cannot_lift_is_reported_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    text = V1.read_bytes().replace(b'"content":"Project', b'"contents":"Project')
    path.write_bytes(rehash(text))  # a sound chain: only the payload is wrong
    journal = FileJournal(path)
    with pytest.raises(JournalCorrupted, match=r"line 3, seq 3: .*cannot upcast "
                                               r"memory\.entry_added v1 to v2"):
        list(journal.read())
    journal.close()


