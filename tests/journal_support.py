"""Helpers for tests that build or damage journal files by hand."""

from __future__ import annotations

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
