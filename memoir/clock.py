"""Clocks: the one place memoir reads the time.

Time is data (design §1.6): a command reads the clock once and stores the result in
its events, so replay never consults a clock.  Tests inject :class:`FakeClock`.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Protocol

from memoir import lazyre

__all__ = ["Clock", "FakeClock", "SystemClock", "format_ts", "parse_moment", "parse_ts"]


class Clock(Protocol):
    """Anything that can say what time it is, in UTC."""

    def now(self) -> dt.datetime: ...


class SystemClock:
    """The machine's wall clock, in UTC."""

    def __init__(self) -> None:
        # (second, "YYYY-MM-DDTHH:MM:SS" of it): one tuple, so threads never mix halves.
        self._second: tuple[int, str] = (-1, "")

    def now(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC)

    def stamp(self) -> tuple[int, str]:
        """Unix milliseconds and :func:`format_ts` of the same instant, read once.

        What every append needs; formatting the date part once per second makes it
        several times cheaper than ``format_ts(now())``.
        """
        ns = time.time_ns()
        second, rest = divmod(ns, 1_000_000_000)
        cached = self._second
        if cached[0] != second:
            cached = (second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))
            self._second = cached
        return ns // 1_000_000, f"{cached[1]}.{rest // 1000:06d}+00:00"


class FakeClock:
    """A clock that only moves when told to; for tests and simulations."""

    def __init__(self, start: dt.datetime | str = "2026-01-01T00:00:00+00:00") -> None:
        self._now = parse_ts(start) if isinstance(start, str) else start.astimezone(dt.UTC)

    def now(self) -> dt.datetime:
        return self._now

    def advance(self, **delta: float) -> dt.datetime:
        """Move forward by ``datetime.timedelta(**delta)`` and return the new time."""
        self._now += dt.timedelta(**delta)
        return self._now

    def set(self, when: dt.datetime | str) -> None:
        self._now = parse_ts(when) if isinstance(when, str) else when.astimezone(dt.UTC)


def format_ts(when: dt.datetime) -> str:
    """ISO-8601 in UTC with microseconds and ``+00:00``, the form Hermes writes."""
    return when.astimezone(dt.UTC).isoformat(timespec="microseconds")


def parse_ts(text: str) -> dt.datetime:
    """Parse an ISO-8601 timestamp; a naive one is taken as UTC."""
    value = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC)


_UNITS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600,
          "hour": 3600, "d": 86400, "day": 86400, "w": 604800, "week": 604800}
_AGO = lazyre.compile(r"^(\d+(?:\.\d+)?)\s*([a-z]+?)s?(?:\s+ago)?$")


def parse_moment(text: str, now: dt.datetime) -> dt.datetime:
    """A moment as a person writes it: ISO-8601 (``2026-11-01``, ``2026-11-01T12:00``,
    naive is UTC), ``now``, ``today``, ``yesterday``, or a time ago (``2 days ago``,
    ``3h``, ``90 min ago``).  Raises ValueError naming the forms it accepts."""
    word = " ".join(text.strip().lower().split())
    midnight = now.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    if word == "now":
        return now
    if word == "today":
        return midnight
    if word == "yesterday":
        return midnight - dt.timedelta(days=1)
    match = _AGO.match(word)
    if match and match.group(2) in _UNITS:
        return now - dt.timedelta(seconds=float(match.group(1)) * _UNITS[match.group(2)])
    try:
        return parse_ts(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is not a date: give an ISO date or time (2026-11-01, "
                         "2026-11-01T12:00Z), today, yesterday, or a time ago (2 days ago, "
                         "3h, 30 min ago)") from None
