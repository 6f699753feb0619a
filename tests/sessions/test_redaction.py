"""Secrets never reach the store (issue 23, item 4): a credential said in a recorded
conversation is replaced by ``[redacted:KIND]`` before the body is written, the turn's
event counts them, ``transcripts.redact_secrets: false`` keeps the text as said, and a
refused memory write's journaled preview never holds the secret."""

from __future__ import annotations

from pathlib import Path

import memoir
from memoir.events.sessions import TurnRecorded

KEY = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"


def _stored(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in home.rglob("*") if p.is_file())


def _turn(session: memoir.Session) -> None:
    session.record_turn([
        {"role": "user", "content": f"Deploy with {KEY}, the AWS key is {AWS}."},
        {"role": "assistant", "content": "Done."}])


def test_credentials_are_redacted_and_counted_before_anything_is_stored(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    with memoir.open(home, create=True) as mem, mem.start_session() as session:
        _turn(session)
        (turn,) = [e.data for e in mem.journal.read() if isinstance(e.data, TurnRecorded)]
        assert turn.redacted == 2
        found = session.call_tool("session_search", {"query": "deploy"})
        assert found["success"]
    stored = _stored(home)
    assert KEY.encode() not in stored and AWS.encode() not in stored
    assert b"[redacted:github_token]" in stored and b"[redacted:aws_access_key]" in stored


def test_redaction_can_be_switched_off(tmp_path: Path) -> None:
    home = tmp_path / "home"
    memoir.Memoir(home, create=True).close()
    (home / "config.yaml").write_text("transcripts:\n  redact_secrets: false\n",
                                      encoding="utf-8")
    with memoir.open(home) as mem, mem.start_session() as session:
        _turn(session)
        (turn,) = [e.data for e in mem.journal.read() if isinstance(e.data, TurnRecorded)]
        assert turn.redacted == 0
    assert KEY.encode() in _stored(home)


def test_a_refused_write_journals_a_preview_without_the_secret(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with memoir.open(home, create=True) as mem, mem.start_session() as session:
        refused = session.call_tool("memory", {"action": "add", "target": "memory",
                                               "content": f"The deploy token is {KEY}"})
        assert refused["success"] is False
        lines = [line for _seq, line in mem.journal.read_lines()]
    assert any(b"refused" in line or b"rejected" in line for line in lines)
    assert KEY.encode() not in b"".join(lines) and KEY[:8].encode() not in b"".join(lines)
