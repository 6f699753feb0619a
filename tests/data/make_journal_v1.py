"""Write ``journal-v1.jsonl``: a small journal as memoir 0.0 wrote it (schema v1).

In v1, ``memory.entry_added`` stored its text as ``content`` and had no ``entry_id``;
``memoir.events.upcasters`` lifts such records to v2 on read.  The file is committed;
run this script to write it again (ids and times are fixed, so the bytes are too)::

    python tests/data/make_journal_v1.py            # writes tests/data/journal-v1.jsonl
    python tests/data/make_journal_v1.py OUT.jsonl  # writes elsewhere

The hash chain is the one memoir has always used (``memoir.events.codec.chain_hash``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import msgspec

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # run from a checkout without installing

from memoir.events.codec import GENESIS, chain_hash  # noqa: E402

#: (type, v, actor, session, more, data) — the records, in order.
RECORDS: list[tuple[str, int, str, str | None, int, dict[str, Any]]] = [
    ("memory.limits_set", 1, "system", None, 1, {"memory": 2200, "user": 1375}),
    ("session.started", 1, "agent", "s-0000000000a1", 0, {"session_id": "s-0000000000a1"}),
    ("memory.entry_added", 1, "agent", "s-0000000000a1", 0,
     {"target": "memory", "content": "Project uses uv, never pip"}),
    ("memory.entry_added", 1, "agent", "s-0000000000a1", 0,
     {"target": "user", "content": "Name is Ada; prefers short answers"}),
    ("memory.entry_added", 1, "agent", "s-0000000000a1", 1,
     {"target": "memory", "content": "Tests: pytest -q; property tests use Hypothesis"}),
    ("memory.entry_added", 1, "agent", "s-0000000000a1", 0,
     {"target": "memory", "content": "Deploy with `make ship` (needs VPN: ünïcode ok)"}),
]


class _Body(msgspec.Struct):
    """The v1 envelope, fields in the order memoir writes them; the hash is added after."""

    seq: int
    id: str
    ts: str
    type: str
    v: int
    actor: str
    session: str | None
    run: str | None
    causation: str | None
    more: int
    data: dict[str, Any]


def build() -> bytes:
    """The bytes of the v1 journal."""
    encoder = msgspec.json.Encoder(order="deterministic")
    prev = GENESIS
    out = []
    start_ms = 1_735_689_600_000  # 2025-01-01T00:00:00Z
    for seq, (type_name, v, actor, session, more, data) in enumerate(RECORDS, start=1):
        ms = start_ms + seq * 1000
        body = encoder.encode(_Body(
            seq=seq, id=f"{ms:012x}{seq:020x}", ts=f"2025-01-01T00:00:{seq:02d}.000000+00:00",
            type=type_name, v=v, actor=actor, session=session, run=None, causation=None,
            more=more, data=data,
        ))
        prev = chain_hash(prev, body)
        out.append(body[:-1] + b',"hash":"' + prev + b'"}\n')
    return b"".join(out)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "journal-v1.jsonl"
    target.write_bytes(build())
    print(f"wrote {len(RECORDS)} records to {target}")
