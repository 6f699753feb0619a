"""One memory entry's history for the web view, read in bounded windows.

The records that touched an entry can be anywhere in the journal, so finding them is a
scan.  A request reads the journal backwards from ``before`` (default: the head) in
windows of :data:`WINDOW` records, taking the caller's lock for one window at a time so
other requests go between two windows, and stops when it holds ``limit`` records or has
read :data:`SCAN_BUDGET` records.  ``next`` says where the following page starts (None:
the journal's start was reached), so a page can ask for more, and no request costs more
than its budget whatever the journal's length.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from memoir.engine.port import Home
from memoir.errors import ValidationError
from memoir.events.present import event_row
from memoir.projections.memory import TARGETS

__all__ = ["SCAN_BUDGET", "WINDOW", "entry_history"]

T = TypeVar("T")

#: Records one request reads at most before it answers with what it found.
SCAN_BUDGET = 50_000
#: Records read under the lock at a time.
WINDOW = 2_000


class Locked(Protocol):
    """Runs ``use`` under the caller's lock and returns what it returns."""

    def __call__(self, use: Callable[[], T], /) -> T: ...


def _unlocked(use: Callable[[], T], /) -> T:
    return use()


def entry_history(home: Home, target: str, entry_id: str, *, before: int | None = None,
                  limit: int = 50,
                  locked: Locked = _unlocked) -> dict[str, Any]:
    """The records that touched entry ``entry_id`` of ``target``, newest first, from the
    records below ``before``: ``{"items", "next", "scanned", "head"}``."""
    if target not in TARGETS:
        raise ValidationError(f"target must be one of {', '.join(TARGETS)}, not {target!r}")
    head = locked(lambda: home.head)
    until = head if before is None else min(before - 1, head)
    items: list[dict[str, Any]] = []
    scanned = 0

    def matches(event: Any) -> bool:
        data = event.data
        return getattr(data, "entry_id", None) == entry_id and \
            getattr(data, "target", None) == target

    while until > 0 and len(items) < limit and scanned < SCAN_BUDGET:
        after = max(0, until - min(WINDOW, SCAN_BUDGET - scanned))
        window = locked(functools.partial(_window, home, after, until, matches))
        scanned += until - after
        for row in window:
            if len(items) < limit:
                items.append(row)
            else:
                after = items[-1]["seq"] - 1  # the next page starts below the last shown
                break
        until = after
    return {"head": head, "items": items, "scanned": scanned,
            "next": until + 1 if until > 0 else None}


def _window(home: Home, after: int, until: int,
            matches: Callable[[Any], bool]) -> list[dict[str, Any]]:
    return [event_row(e) for e in home.events(types=["memory.*"], after=after, until=until,
                                              reverse=True, where=matches)]
