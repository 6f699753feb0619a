"""Insight events: seed 003's pipeline from tool errors to skill candidates, each step a
record.

A recorded turn's tool errors (``session.turn_recorded``'s ``errors``) are counted per
signature by the fold.  The steps that depend on thresholds in config.yaml are decided
when they happen and journaled here, so folding never reads config: an error signature
seen often enough is **promoted** to an insight, one a later turn showed the fix of is
**resolved**, an insight referenced often enough (a
hint shown, a ``memory_search`` hit) becomes a skill **candidate**, which a person
**accepts** (the skill is created, in the same run) or **rejects**; a scheduled pass
(``memoir maintain``) **expires** single occurrences and **demotes** insights nobody
referenced for long.
"""

from __future__ import annotations

from memoir.events.types import Payload, event_type

__all__ = [
    "PAYLOADS",
    "InsightAccepted",
    "InsightCandidate",
    "InsightDemoted",
    "InsightExpired",
    "InsightPromoted",
    "InsightReferenced",
    "InsightRejected",
    "InsightResolved",
]


class _InsightPayload(Payload, frozen=True, kw_only=True):
    signature: str

    def entities(self) -> tuple[str, ...]:
        return (f"insight:{self.signature}",)


@event_type("insight.promoted")
class InsightPromoted(_InsightPayload, frozen=True, kw_only=True):
    """An error signature seen ``count`` times became an insight, with the resolution
    observed after it when there was one."""

    count: int
    resolution: str | None = None


@event_type("insight.resolved")
class InsightResolved(_InsightPayload, frozen=True, kw_only=True):
    """A later turn of session ``session_id`` showed what fixed an error its earlier
    turn ``turn`` left unresolved: ``how`` is ``call`` (the same tool then succeeded)
    or ``confirmed`` (the person said it works now).  The signature's resolution
    becomes ``resolution``."""

    session_id: str
    turn: int
    resolution: str
    how: str


@event_type("insight.referenced")
class InsightReferenced(_InsightPayload, frozen=True, kw_only=True):
    """An insight was used: ``how`` is ``hint`` (shown for a matching tool error) or
    ``search`` (a ``memory_search`` hit)."""

    how: str


@event_type("insight.candidate")
class InsightCandidate(_InsightPayload, frozen=True, kw_only=True):
    """An insight referenced ``references`` times is proposed as a skill; a person
    decides (``memoir candidates``)."""

    references: int


@event_type("insight.accepted")
class InsightAccepted(_InsightPayload, frozen=True, kw_only=True):
    """A person accepted a candidate: skill ``skill`` was created from it (same run)."""

    skill: str


@event_type("insight.rejected")
class InsightRejected(_InsightPayload, frozen=True, kw_only=True):
    """A person rejected a candidate."""

    reason: str = ""


@event_type("insight.expired")
class InsightExpired(_InsightPayload, frozen=True, kw_only=True):
    """A signature seen once and not again within the window was dropped (its record
    stays in the journal)."""

    last_seen: str


@event_type("insight.demoted")
class InsightDemoted(_InsightPayload, frozen=True, kw_only=True):
    """An insight nobody referenced within the window went back to a plain signature."""

    last_used: str


#: Every payload type of this module, for the catalog (:mod:`memoir.events.catalog`).
PAYLOADS: tuple[type[Payload], ...] = (
    InsightPromoted,
    InsightResolved,
    InsightReferenced,
    InsightCandidate,
    InsightAccepted,
    InsightRejected,
    InsightExpired,
    InsightDemoted,
)
