"""A property over drawn hostile rows on a shared PostgreSQL journal (issue 36, Tests): a
role that may only SELECT and INSERT memoir's records puts rows of every kind it can
make — well-formed records unsigned or signed by a stranger, a self-made owner, a
forget naming an honest record with body references that leave the home, a copied
signature, a skill named out of the home or over its size limit, oversized entries,
undecodable payloads, unknown types, rows that announce more records — between the
honest writes of two machines.  Every honest acknowledged write is in every home's
MEMORY.md exactly once (a home attached afterwards included), no file outside the homes
changes, and each home's verify names every hostile row."""

from __future__ import annotations

import hashlib
import json
import secrets
from pathlib import Path

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memoir
from memoir.clock import SystemClock
from memoir.commands.attaching import shared_config
from memoir.engine.signing import change_registry, home_signer, join_signed
from memoir.events.codec import chain_hash
from memoir.events.forget import ContentForgotten
from memoir.events.keys import AppendSigned, KeyTrusted
from memoir.events.memory import EntryAdded
from memoir.events.types import Draft, Payload
from memoir.journal.interface import mint_records
from memoir.signatures import Signer, new_private_key
from tests.support.postgres import in_schema

_KINDS = ["plain", "stranger", "owner", "trust", "forget", "copy", "huge", "garbage",
          "unknown", "announce", "skill"]
_OUTSIDE = "outside.jsonl"


class Journal:
    """The homes of one drawn run: the owner's, an admitted agent's, and the INSERT-only
    role's connection."""

    def __init__(self, root: Path, url: str) -> None:
        self.root = root
        self.url = url
        self.owner, self.agent = root / "owner", root / "agent"
        for home in (self.owner, self.agent):
            shared_config(home, url, None)
            with memoir.open(home, create=True) as handle:
                join_signed(handle)
        agent_key = home_signer(self.agent)
        assert agent_key is not None
        with memoir.open(self.owner) as handle:
            change_registry(handle, KeyTrusted(key=agent_key.key, label="agent"))
        tag = secrets.token_hex(4)
        self.role = f"memoir_i_{tag}"
        with psycopg.connect(url, autocommit=True) as conn:
            schema = conn.execute("SELECT current_schema()").fetchone()[0]  # type: ignore[index]
            for sql in (f"CREATE ROLE {self.role} LOGIN",
                        f"GRANT USAGE ON SCHEMA {schema} TO {self.role}",
                        f"GRANT SELECT, INSERT ON memoir_records, memoir_seals, "
                        f"memoir_transcripts TO {self.role}"):
                conn.execute(sql)  # type: ignore[arg-type]
        self.hostile = psycopg.connect(url.replace("postgres@", f"{self.role}@", 1),
                                       autocommit=True)

    def close(self) -> None:
        self.hostile.close()
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"DROP OWNED BY {self.role}")  # type: ignore[arg-type]
            conn.execute(f"DROP ROLE {self.role}")  # type: ignore[arg-type]

    def _tail(self) -> tuple[int, bytes]:
        row = self.hostile.execute("SELECT seq, hash FROM memoir_records ORDER BY seq DESC "
                                   "LIMIT 1").fetchone()
        assert row is not None
        return int(row[0]), str(row[1]).encode()

    def insert(self, lines: list[bytes]) -> list[int]:
        """INSERT ``lines`` (records memoir encoded) as rows, as the role may; their seqs."""
        seqs = []
        for line in lines:
            record = json.loads(line)
            self._row(record["seq"], record["id"], record["type"], record["more"],
                      record["hash"], line)
            seqs.append(int(record["seq"]))
        return seqs

    def _row(self, seq: int, rid: str, type_: str, more: int, digest: str,
             line: bytes) -> None:
        self.hostile.execute("INSERT INTO memoir_records (seq, id, type, more, hash, line) "
                             "VALUES (%s, %s, %s, %s, %s, %s)",
                             (seq, rid, type_, more, digest, line))

    def forge(self, *payloads: Payload, signer: Signer | None = None) -> list[int]:
        """One append of well-formed ``payloads``, chained, signed by ``signer``."""
        lines, _ = mint_records([[Draft(data=p, actor="user") for p in payloads]],
                                self._tail(), SystemClock(), signer)
        return self.insert(lines)

    def raw(self, type_: str, payload: bytes, more: int = 0) -> list[int]:
        """One row of any type and payload bytes, with a valid chain hash."""
        seq, prev = self._tail()
        rid = secrets.token_hex(16)
        envelope = (f'{{"seq":{seq + 1},"id":"{rid}","ts":'
                    f'"2026-11-27T00:00:00.000000+00:00","type":{json.dumps(type_)},"v":1,'
                    f'"actor":"user","session":null,"run":null,"causation":null,'
                    f'"more":{more},"data":').encode()
        digest = chain_hash(prev, envelope, hashlib.blake2b(payload, digest_size=16).digest(),
                            b"}")
        self._row(seq + 1, rid, type_, more, digest.decode(),
                  envelope + payload + b',"hash":"' + digest + b'"}')
        return [seq + 1]

    def honest_seq(self) -> int:
        """The seq of an honest memory record, for a forged forget to name."""
        row = self.hostile.execute("SELECT seq FROM memoir_records WHERE type = "
                                   "'memory.entry_added' ORDER BY seq LIMIT 1").fetchone()
        return int(row[0]) if row else 1

    def signature(self) -> dict[str, object]:
        """The data of an honest ``journal.signed`` record (to copy)."""
        row = self.hostile.execute("SELECT line FROM memoir_records WHERE type = "
                                   "'journal.signed' ORDER BY seq DESC LIMIT 1").fetchone()
        assert row is not None
        data = dict(json.loads(bytes(row[0]))["data"])
        data.pop("_s", None)
        return data


def _hostile(journal: Journal, kind: str, text: str, size: int, stranger: Signer) -> list[int]:
    entry = EntryAdded(target="memory", entry_id=f"e-{secrets.token_hex(6)}", text=text)
    if kind == "plain":
        return journal.forge(entry)
    if kind == "stranger":
        return journal.forge(entry, signer=stranger)
    if kind == "owner":
        return journal.forge(KeyTrusted(key=stranger.key, owner=True), entry, signer=stranger)
    if kind == "trust":
        return journal.forge(KeyTrusted(key=stranger.key, may=["forget"]), signer=stranger)
    if kind == "forget":
        seq = journal.honest_seq()
        body = f"../../{_OUTSIDE}:0:{size % 64 + 1}:{'0' * 32}"
        data = {"seqs": [seq], "digests": ["0" * 32], "selector": "text", "bodies": [body]}
        raw = journal.raw("journal.forgotten", json.dumps(data).encode())
        return raw + journal.forge(ContentForgotten(seqs=[seq], digests=["0" * 32],
                                                    selector="text"), signer=stranger)
    if kind == "copy":
        return journal.forge(entry, AppendSigned(**journal.signature()))  # type: ignore[arg-type]
    if kind == "huge":
        big = {"target": "memory", "entry_id": entry.entry_id, "text": text * (size // 8 + 400)}
        return journal.raw("memory.entry_added", json.dumps(big).encode())
    if kind == "garbage":
        return journal.raw("memory.entry_added", text.encode()[: size % 40 + 1])
    if kind == "unknown":
        return journal.raw("memory.exfiltrated", json.dumps({"text": text}).encode())
    if kind == "announce":
        return journal.raw("memory.entry_added", json.dumps(
            {"target": "memory", "entry_id": entry.entry_id, "text": text}).encode(),
            more=size % 5 + 1)
    # A skill named out of the home, or well named and over the 100,000-character limit.
    name, body = ("../../pwn", text) if size % 2 else (f"big-{size}", text * 12_000)
    data = {"name": name, "description": text, "content": f"---\nname: x\n---\n{body}"}
    return journal.raw("skill.created", json.dumps(data).encode())


def _memory_file(home: Path) -> str:
    path = home / "memories" / "MEMORY.md"
    return path.read_text(encoding="utf-8") if path.exists() else ""


_TEXT = st.text(alphabet="abcdefghij ", min_size=4, max_size=24).map(str.strip).filter(bool)


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(steps=st.lists(st.tuples(st.sampled_from(["owner-writes", "agent-writes", *_KINDS]),
                                _TEXT, st.integers(0, 20_000)),
                      min_size=2, max_size=10))
def test_hostile_rows_among_honest_writes_change_nothing_honest(
        pg_database: str, tmp_path_factory: pytest.TempPathFactory,
        steps: list[tuple[str, str, int]]) -> None:
    root = tmp_path_factory.mktemp("hostile")
    outside = root / _OUTSIDE
    outside.write_bytes(b'{"kept": "as it was"}\n' * 4)
    before = outside.read_bytes()
    journal = Journal(root, in_schema(pg_database, f"j_{secrets.token_hex(5)}"))
    stranger = Signer(new_private_key())
    honest: list[str] = []
    hostile: list[int] = []
    try:
        for i, (kind, text, size) in enumerate(steps):
            if kind.endswith("-writes"):
                written = f"Honest fact {i}: {text}."
                home = journal.owner if kind == "owner-writes" else journal.agent
                with memoir.open(home) as handle:
                    answer = handle.start_session().call_tool(
                        "memory", {"action": "add", "target": "memory", "content": written})
                assert answer["success"], answer
                honest.append(written)
            else:
                hostile += _hostile(journal, kind, f"Hostile {i} {text}", size, stranger)
        late = root / "late"
        shared_config(late, journal.url, None)
        for home in (journal.owner, journal.agent, late):
            with memoir.open(home, create=home == late) as handle:
                handle.flush()
                assert handle.state.memory.target("memory").texts() == honest
                shown = _memory_file(home)
                for text in honest:
                    assert shown.count(text) == 1, (home.name, text, shown)
                assert "Hostile" not in shown
                check = handle.verify_home()
                assert set(hostile) <= set(check.quarantined), (
                    home.name, sorted(set(hostile) - set(check.quarantined)))
                assert stranger.key not in handle.state.keys.keys
                assert not handle.state.skills.skills
                assert not (root / "pwn").exists() and not (home.parent / "pwn").exists()
        assert outside.read_bytes() == before
        assert sorted(p.name for p in root.iterdir()) == sorted(
            ["owner", "agent", "late", _OUTSIDE])
    finally:
        journal.close()
