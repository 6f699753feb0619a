"""Recognising a retried append: the ids of the latest records, and a bounded search
backwards for older ones.

A writer that retries an append passes the same event ids again and gets the original
records back instead of a second copy.  The file journal keeps the ids of its latest
records in memory; an id not among them is looked for backwards through the file, but
only as far back as its time prefix allows (ids are minted with Unix milliseconds in
front, see :mod:`memoir.ids`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Sequence

from memoir.clock import Clock, format_ts
from memoir.events.codec import RawRecord
from memoir.ids import id_time_ms

__all__ = ["RecentIds"]

# How many of the latest event ids are kept in memory.
_RECENT = 100_000
# A retried append is looked for among records written since its ids were minted,
# minus this much, to allow for clocks of different processes disagreeing a little.
_SKEW_MS = 5 * 60 * 1000


class RecentIds:
    """event id → seq for the latest records; every record from :attr:`since` to the
    tail is in it."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.since = 1

    def update(self, pairs: Iterable[tuple[str, int]]) -> None:
        self.ids.update(pairs)
        if len(self.ids) >= 2 * _RECENT:
            # Forget the older half at once: cheaper than one eviction per record.
            keep = list(self.ids.items())[-_RECENT:]
            self.ids = dict(keep)
            self.since = keep[0][1]

    def forget(self) -> None:
        self.ids.clear()
        self.since = 1

    def start_after(self, seq: int) -> None:
        """Nothing up to ``seq`` was read (the journal was anchored to a checkpoint)."""
        self.since = seq + 1

    def find(self, ids: Sequence[str], clock: Clock,
             backwards: Iterator[RawRecord]) -> dict[str, int]:
        """Seqs of records whose ids are in ``ids``; ``backwards`` reads the journal
        from its tail, last record first, and is read only as far as needed."""
        found = {i: self.ids[i] for i in ids if i in self.ids}
        missing = [i for i in ids if i not in found]
        if not missing or self.since <= 1:
            return found
        wanted = set(missing)
        floor = _floor(missing, clock)
        for rec in backwards:
            if rec.id in wanted:
                found[rec.id] = rec.seq
                wanted.discard(rec.id)
                if not wanted:
                    break
            if floor and rec.ts < floor:
                break
        return found


def _floor(ids: Sequence[str], clock: Clock) -> str:
    """The oldest ``ts`` a record carrying one of ``ids`` can have ("" = no bound)."""
    times = [id_time_ms(i) for i in ids]
    known = [t for t in times if t is not None]
    if len(known) != len(times):
        return ""  # foreign ids carry no time: look through the whole journal
    now_ms = int(clock.now().timestamp() * 1000)
    if max(known) > now_ms + _SKEW_MS:
        # The ids come from a clock ahead of ours (say, ours is a fake one in the
        # past); records' timestamps say nothing about them then.
        return ""
    oldest = min(known) - _SKEW_MS
    return format_ts(dt.datetime.fromtimestamp(max(oldest, 0) / 1000, dt.UTC))
