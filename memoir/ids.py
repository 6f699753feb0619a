"""Identifiers minted by writers: events, entries, sessions, runs.

An event id is 32 hex digits: 12 of Unix milliseconds, then 20 random.  The time
prefix lets a journal find a retried append by scanning only the records written
since the id was minted, instead of indexing every id ever written.
"""

from __future__ import annotations

import os
import random
import time

__all__ = ["id_time_ms", "new_id", "random_hex", "short_id"]

# Ids need to be unique, not secret: a generator seeded from the OS once per process
# (and again in a forked child, so parent and child never share a sequence) costs a
# fraction of an os.urandom system call per id.  Private, so code that seeds the
# global `random` (Hypothesis does, per example) cannot make ids repeat.
_random = random.Random(os.urandom(32))
os.register_at_fork(after_in_child=lambda: _random.seed(os.urandom(32)))


def random_hex(nbytes: int) -> str:
    """``nbytes`` random bytes as ``2 * nbytes`` lowercase hex digits."""
    return f"{_random.getrandbits(8 * nbytes):0{2 * nbytes}x}"


def new_id(now_ms: int | None = None) -> str:
    """A new time-ordered id (32 lowercase hex digits)."""
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    return f"{ms & 0xFFFFFFFFFFFF:012x}{random_hex(10)}"


def short_id(prefix: str = "") -> str:
    """A short random id for entries, sessions and runs: ``prefix`` + 12 hex digits."""
    return f"{prefix}{random_hex(6)}"


def id_time_ms(event_id: str) -> int | None:
    """The milliseconds encoded in an id minted by :func:`new_id`, or None if it is not one."""
    if len(event_id) != 32:
        return None
    try:
        return int(event_id[:12], 16)
    except ValueError:
        return None
