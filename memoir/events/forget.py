"""The vocabulary of forgetting: the record ``memoir forget`` journals before it removes
anything (see :mod:`memoir.oversight.forget`)."""

from __future__ import annotations

from memoir import lazyre
from memoir.events.types import Payload, event_type, require
from memoir.names import TRANSCRIPT_REF

__all__ = ["PAYLOADS", "ContentForgotten"]

SELECTORS = ("entry", "text", "skill", "session", "run")
_MARK = lazyre.compile(r"[0-9]{1,12}:(memory|user):[A-Za-z0-9_.-]{1,64}:(added|replaced)")
_DIGEST = lazyre.compile(r"[0-9a-f]{32}")


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
        for digest in self.digests:
            require("digests", None if _DIGEST.fullmatch(digest) else
                    f"{digest[:80]!r} is not a payload digest")
        for seq in self.seqs:
            require("seqs", None if seq > 0 else f"{seq} is not a seq")
        for ref in self.bodies:
            # A body is named by a pack of this journal's transcript store and nothing
            # else: a path, a link or a name of anything outside it is refused here.
            require("bodies", None if TRANSCRIPT_REF.fullmatch(ref) else
                    f"{ref[:80]!r} is not a transcript reference (pack-N:offset:length:hash)")
        require("selector", f"must be one of {', '.join(SELECTORS)}"
                if self.selector not in SELECTORS else None)

    def entities(self) -> tuple[str, ...]:
        return ()


#: Every payload type of this module, for the catalog (:mod:`memoir.events.catalog`).
PAYLOADS: tuple[type[Payload], ...] = (ContentForgotten,)
