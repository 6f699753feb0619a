"""Numbered upcasters: upgrade records written with an older payload schema.

An upcaster for ``(type, v)`` takes the payload dict of version ``v`` and the record's
envelope (a dict with ``id``, ``seq``, ``ts``, …) and returns the payload dict of
version ``v + 1``.  Upcasters chain, so a record of any older version replays.  They
must be pure: the same old record always becomes the same new one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["UPCASTERS", "upcast", "upcaster"]

Upcaster = Callable[[dict[str, Any], Mapping[str, Any]], dict[str, Any]]

#: (type, from_version) → function producing version ``from_version + 1``.
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def upcaster(type_name: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register a function that lifts ``type_name`` payloads from ``from_version``."""

    def register(fn: Upcaster) -> Upcaster:
        UPCASTERS[(type_name, from_version)] = fn
        return fn

    return register


def upcast(
    type_name: str, version: int, target: int, data: dict[str, Any], envelope: Mapping[str, Any]
) -> dict[str, Any]:
    """Lift ``data`` from ``version`` to ``target`` through the registered upcasters."""
    while version < target:
        step = UPCASTERS.get((type_name, version))
        if step is None:
            raise LookupError(f"no upcaster for {type_name} v{version} -> v{version + 1}")
        data = step(data, envelope)
        version += 1
    return data


@upcaster("memory.entry_added", 1)
def _entry_added_v1(data: dict[str, Any], envelope: Mapping[str, Any]) -> dict[str, Any]:
    # v1 (memoir 0.0) stored the text as "content" and had no entry ids: entries were
    # addressed by text.  The entry id is derived from the event id, so it is stable.
    return {
        "target": data["target"],
        "entry_id": "e-" + str(envelope["id"])[-12:],
        "text": data["content"],
    }
