"""The vocabulary of forgetting: the record ``memoir forget`` journals before it removes
anything (see :mod:`memoir.oversight.forget`)."""

from __future__ import annotations

from memoir.events.types import Payload, event_type, require

__all__ = ["PAYLOADS", "ContentForgotten"]

SELECTORS = ("entry", "text", "skill", "session", "run")


@event_type("journal.forgotten")
class ContentForgotten(Payload, frozen=True, kw_only=True):
    """Content removed for good, never the content itself: the records whose payloads
    became tombstones (``seqs``, with each payload's ``digests`` in hex, in the same
    order, so an interrupted forget is finished from this record alone), the transcript
    bodies blanked (``bodies``: their references), what was asked (``selector``: entry,
    text, ...; the selected text is not kept), why (``reason``) and how many other files
    under the home were scrubbed (``files``).  It is written before anything is removed
    and cannot be reverted."""

    seqs: list[int]
    digests: list[str]
    bodies: list[str] = []
    selector: str
    reason: str = ""
    files: int = 0

    def __post_init__(self) -> None:
        require("digests", "must match seqs one for one"
                if len(self.digests) != len(self.seqs) else None)
        require("selector", f"must be one of {', '.join(SELECTORS)}"
                if self.selector not in SELECTORS else None)

    def entities(self) -> tuple[str, ...]:
        return ()


#: Every payload type of this module, for the catalog (:mod:`memoir.events.catalog`).
PAYLOADS: tuple[type[Payload], ...] = (ContentForgotten,)
