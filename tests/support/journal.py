"""Helpers for tests that build or damage journal files by hand."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from memoir.events.codec import GENESIS, body_of, chain_hash

_HASH_TAIL = 34  # the 32 hex digits of the hash, its closing quote and the closing brace


def rehash(text: bytes) -> bytes:
    """``text`` (JSONL records) with its hash chain recomputed: a forger's tool, so a test
    can change a record's content and still present a sound chain."""
    prev = GENESIS
    out = []
    for line in text.splitlines():
        prev = chain_hash(prev, body_of(line))
        out.append(line[:-_HASH_TAIL] + prev + b'"}\n')
    return b"".join(out)


def forge(text: bytes, edit: Callable[[dict[str, Any]], dict[str, Any] | None]) -> bytes:
    """``text`` (JSONL records) with ``edit`` applied to each record (a dict; None drops
    it) and the chain recomputed: what anyone can do to a journal without a key."""
    lines = []
    for line in text.splitlines():
        record = edit(json.loads(line))
        if record is not None:
            lines.append(json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode())
    return rehash(b"".join(line + b"\n" for line in lines))
