"""The payload-digest chain under a whole journal (the ground ``memoir forget`` will
stand on): a record whose payload is replaced by its tombstone still chains, the file
and PostgreSQL journals read and verify it, and a fold passes over it."""

from __future__ import annotations

import shutil
from pathlib import Path

import memoir
from memoir.events.codec import Forgotten, payload_digest, payload_span, tombstone
from memoir.journal import FileJournal
from memoir.journal.postgres import PostgresJournal
from tests.journal.test_journal_conformance import added


def _forget(line: bytes) -> bytes:
    start, end = payload_span(line)  # type: ignore[misc]
    return line[:start] + tombstone(payload_digest(line[start:end])) + line[end:]


def test_a_home_whose_record_was_tombstoned_verifies_and_folds_without_it(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    with memoir.open(home, create=True) as mem, mem.start_session() as session:
        for text in ("Keep this fact.", "Forget this fact.", "Keep that one too."):
            assert session.call_tool("memory", {"action": "add", "target": "memory",
                                                "content": text})["success"]
    path = home / "journal.jsonl"
    lines = path.read_bytes().splitlines()
    lines = [_forget(line) if b"Forget this fact." in line else line for line in lines]
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    shutil.rmtree(home / ".memoir")  # the caches held the text (forget will clear them)
    assert b"Forget this fact." not in path.read_bytes()
    with FileJournal(path, readonly=True) as journal:
        report = journal.verify()
        forgotten = [e for e in journal.read() if isinstance(e.data, Forgotten)]
    assert [e.type for e in forgotten] == ["memory.entry_added"]
    with memoir.open(home) as mem:
        assert mem.state.memory.target("memory").texts() == ["Keep this fact.",
                                                             "Keep that one too."]
        assert mem.verify().head_hash == report.head_hash
        mem.rebuild(force=True)
    assert (home / "memories" / "MEMORY.md").read_text(encoding="utf-8") == \
        "Keep this fact.\n§\nKeep that one too."


def test_the_postgres_journal_reads_a_tombstoned_row(pg_url: str) -> None:
    import psycopg

    journal = PostgresJournal(pg_url, create=True)
    try:
        journal.append([added("kept")])
        journal.append([added("forgotten", entry="e-000000000002")])
        journal.append([added("after", entry="e-000000000003")])
        with psycopg.connect(pg_url, autocommit=True) as conn:
            line = bytes(conn.execute("SELECT line FROM memoir_records WHERE seq = 2")
                         .fetchone()[0])  # type: ignore[index]
            conn.execute("ALTER TABLE memoir_records DISABLE TRIGGER USER")
            conn.execute("UPDATE memoir_records SET line = %s WHERE seq = 2",
                         (_forget(line),))
        assert [type(e.data).__name__ for e in journal.read()] == [
            "EntryAdded", "Forgotten", "EntryAdded"]
        assert journal.verify().records == 3
    finally:
        journal.close()
