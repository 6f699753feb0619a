"""The catalog: every event type this version of memoir reads and writes.

One explicit table, built from each vocabulary module's ``PAYLOADS``; the codec
decodes through it, so a journal record is readable whatever else was imported.  A
new event type is added to its module's ``PAYLOADS`` (see docs/architecture.md).
"""

from __future__ import annotations

from memoir.events import (
    approvals,
    curator,
    forget,
    insights,
    keys,
    maintenance,
    memory,
    reviews,
    runs,
    sessions,
    skills,
)
from memoir.events.types import Payload, registry

__all__ = ["REGISTRY"]

#: type name → payload class, for every event type this version knows.
REGISTRY: dict[str, type[Payload]] = registry(
    (*memory.PAYLOADS, *skills.PAYLOADS, *sessions.PAYLOADS, *runs.PAYLOADS,
     *curator.PAYLOADS, *maintenance.PAYLOADS, *approvals.PAYLOADS, *reviews.PAYLOADS,
     *insights.PAYLOADS, *forget.PAYLOADS, *keys.PAYLOADS)
)
