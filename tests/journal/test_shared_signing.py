"""Signed appends on a shared journal (issue 36, items 1 and 2): the first home owns the
journal; a new machine writes once the owner trusts its key; the writer role's INSERTs
are never folded or carried out, a forged journal.forgotten included (round 5's
reproduction 03); destructive records need the owner's say-so."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

import memoir
from tests.journal.test_shared_trust import Roles, _memoir, forge
from tests.support.signing import admit


@pytest.fixture
def journal(tmp_path: Path, pg_url: str) -> Iterator[tuple[Path, Path, Roles]]:
    """The owner's home (first init: signing on), an agent's home through the writer
    role (admitted: it may append, nothing more), and the roles."""
    owner, agent = tmp_path / "owner", tmp_path / "agent"
    done = _memoir("--home", str(owner), "init", "--journal", pg_url)
    assert done.returncode == 0, done.stderr
    roles = Roles(pg_url)
    roles.grant_writer()
    try:
        joined = _memoir("--home", str(agent), "init", "--journal", roles.as_role(roles.writer))
        assert joined.returncode == 0, joined.stderr
        line = re.search(r"memoir journal trust [0-9a-f]{64}", joined.stdout)
        assert line, joined.stdout  # the line the owner runs
        refused = _memoir("--home", str(agent), "memory", "add", "Before admission.")
        assert refused.returncode != 0 and line.group(0) in refused.stderr
        trusted = _memoir("--home", str(owner), *line.group(0).split()[1:])
        assert trusted.returncode == 0, trusted.stderr
        yield owner, agent, roles
    finally:
        roles.drop()


def test_a_forged_forget_is_quarantined_and_never_carried_out(
        journal: tuple[Path, Path, Roles]) -> None:
    owner, agent, roles = journal
    added = _memoir("--home", str(agent), "memory", "add",
                    "EVIDENCE-7731: the agent mailed the customer list out")
    assert added.returncode == 0, added.stderr
    with memoir.open(owner) as home:
        target = next(e for e in home.events() if e.type == "memory.entry_added")
    with psycopg.connect(roles.as_role(roles.writer)) as conn:
        line = bytes(conn.execute("SELECT line FROM memoir_records WHERE seq = %s",
                                  (target.seq,)).fetchone()[0])  # type: ignore[index]
    payload = line[re.search(rb',"more":\d+,"data":', line).end():  # type: ignore[union-attr]
                   len(line) - (len(b',"hash":"') + 32 + 2)]
    import hashlib

    digest = hashlib.blake2b(payload, digest_size=16).hexdigest()
    forged = forge(roles.as_role(roles.writer), "journal.forgotten",
                   {"seqs": [target.seq], "digests": [digest], "selector": "text",
                    "reason": "erasure request"}, run="forget-0000deadbeef")
    follower = memoir.open(owner, follow=True)  # an idle server that follows the journal
    try:
        verify = _memoir("--home", str(owner), "--json", "verify")
        report = json.loads(verify.stdout)
        assert {q["seq"]: q["reason"] for q in report["quarantined"]}[forged].startswith(
            "unsigned")
        assert "--finish" not in verify.stdout + verify.stderr
        assert _memoir("--home", str(owner), "forget", "--finish").returncode == 0
        follower.flush()
    finally:
        follower.close()
    with psycopg.connect(roles.as_role(roles.writer)) as conn:
        now = bytes(conn.execute("SELECT line FROM memoir_records WHERE seq = %s",
                                 (target.seq,)).fetchone()[0])  # type: ignore[index]
    assert b"EVIDENCE-7731" in now
    for home in (owner, agent):
        shown = (home / "memories" / "MEMORY.md")
        _memoir("--home", str(home), "status")
        assert "EVIDENCE-7731" in shown.read_text(encoding="utf-8")


def test_destructive_records_need_the_owners_say_so(
        journal: tuple[Path, Path, Roles], pg_url: str) -> None:
    owner, _writer, _roles = journal
    # A machine whose database role may do anything; its key may only append.
    agent = owner.parent / "helper"
    assert _memoir("--home", str(agent), "init", "--journal", pg_url).returncode == 0
    admit(_memoir, owner, agent)
    assert _memoir("--home", str(owner), "memory", "add", "Owner's fact.").returncode == 0
    # The agent may append, not forget, not revert the owner's run, not trust.
    refused = _memoir("--home", str(agent), "forget", "--text", "Owner's fact", "-y")
    assert refused.returncode != 0 and "may not forget" in refused.stderr
    assert "--may forget" in refused.stderr
    refused = _memoir("--home", str(agent), "revert", "--last")
    assert refused.returncode != 0 and "may not revert" in refused.stderr
    refused = _memoir("--home", str(agent), "journal", "trust", "ab" * 32)
    assert refused.returncode != 0 and "only the journal's owner" in refused.stderr
    # Its own runs it may revert.
    assert _memoir("--home", str(agent), "memory", "add", "Agent's fact.").returncode == 0
    assert _memoir("--home", str(agent), "revert", "--last").returncode == 0
    # Given the right, it may forget; revoked, it may not write at all.
    key = admit(_memoir, owner, agent, may=["forget"])[0]
    forgot = _memoir("--home", str(agent), "forget", "--text", "Owner's fact", "-y")
    assert forgot.returncode == 0, forgot.stderr
    revoked = _memoir("--home", str(owner), "journal", "revoke", key, "--reason", "left")
    assert revoked.returncode == 0, revoked.stderr
    after = _memoir("--home", str(agent), "memory", "add", "After revocation.")
    assert after.returncode != 0 and "was revoked at seq" in after.stderr
    with memoir.open(owner) as home:
        assert "Owner's fact." not in home.state.memory.target("memory").texts()
        assert not home.state.quarantined
    status = json.loads(_memoir("--home", str(agent), "--json", "status").stdout)
    assert status["journal"]["signing"]["on"] and not status["journal"]["signing"]["trusted"]


def test_a_row_announcing_more_records_cannot_draw_an_honest_append_into_it(
        journal: tuple[Path, Path, Roles]) -> None:
    """The writer role inserts a well-formed row whose ``more`` says two records follow:
    the next honest append (a record and its signature) would complete that "append".
    The honest records are folded; only the forged row is quarantined."""
    owner, _agent, roles = journal
    forged = forge(roles.as_role(roles.writer), "memory.entry_added",
                   {"target": "memory", "entry_id": "e-forged000001",
                    "text": "Forged, drawing the next append in."}, v=2, more=2)
    added = _memoir("--home", str(owner), "memory", "add", "Honest after the forgery.")
    assert added.returncode == 0, added.stderr
    with memoir.open(owner) as home:
        assert home.state.memory.target("memory").texts() == ["Honest after the forgery."]
        assert set(home.state.quarantined) == {forged}
        assert home.state.quarantined[forged].startswith("unsigned")
    replayed = json.loads(_memoir("--home", str(owner), "--json", "verify").stdout)
    assert [q["seq"] for q in replayed["quarantined"]] == [forged]
