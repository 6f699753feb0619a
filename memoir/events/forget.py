"""The vocabulary of forgetting: the record ``memoir forget`` journals before it removes
anything (see :mod:`memoir.oversight.forget`)."""

from __future__ import annotations

from memoir import lazyre
from memoir.events.types import Payload, event_type, require

__all__ = ["PAYLOADS", "ContentForgotten"]

SELECTORS = ("entry", "text", "skill", "session", "run")
_MARK = lazyre.compile(r"[0-9]{1,12}:(memory|user):[A-Za-z0-9_.-]{1,64}:(added|replaced)")


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
    #: The forgotten memory records, ``<seq>:<target>:<entry id>:added|replaced``: a
    #: past prompt that held one shows ``[forgotten]`` in its place.
    marks: list[str] = []

    def __post_init__(self) -> None:
        for mark in self.marks:
            require("marks", None if _MARK.fullmatch(mark) else f"{mark[:80]!r} is not a mark")
        require("digests", "must match seqs one for one"
                if len(self.digests) != len(self.seqs) else None)
        require("selector", f"must be one of {', '.join(SELECTORS)}"
                if self.selector not in SELECTORS else None)

    def entities(self) -> tuple[str, ...]:
        return ()


#: Every payload type of this module, for the catalog (:mod:`memoir.events.catalog`).
PAYLOADS: tuple[type[Payload], ...] = (ContentForgotten,)
