"""Session events: a session starts pinned to the journal position of its start event,
records its conversation turn by turn, and ends.

A turn's message bodies are not in the journal: they live in the transcript store
beside it (content-addressed), and :class:`MessageRef` points at each, so folding the
state never reads a conversation.  What the fold needs (roles, which tools were called,
whether a call was a valid memory or skill_manage call, tool errors) is in the event.
"""

from __future__ import annotations

import datetime as dt

import msgspec

from memoir.events.types import Payload, event_type, require
from memoir.names import TRANSCRIPT_REF, check_session_id

__all__ = ["PAYLOADS", "ContextRecalled", "MessageRef", "RecalledHit", "RecalledSkill",
           "SessionEnded", "SessionStarted", "SessionSummarized", "ToolError", "TurnRecorded"]


class MessageRef(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One message of a turn: its role, where its body is (``ref``: a transcript-store
    reference with the body's hash), and what the fold and the reviewers need of it."""

    role: str
    ref: str
    #: assistant: the names of the tools it called, in order.
    calls: tuple[str, ...] = ()
    #: assistant: per call, whether it was a structurally valid call (its arguments a
    #: JSON object), in the order of ``calls``.
    valid: tuple[bool, ...] = ()
    #: tool: the id of the call it answers, and the tool's error (clipped) if it failed.
    call_id: str | None = None
    error: str | None = None
    #: The message's own time, when it carried one (ISO-8601).
    at: str | None = None

    def __post_init__(self) -> None:
        # The reference names a pack file under .memoir/transcripts/.
        if not TRANSCRIPT_REF.fullmatch(self.ref):
            require("ref", f"{self.ref[:80]!r} is not a transcript reference")


class ToolError(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A tool call of the turn that failed: the tool, the error's signature (seed 003:
    what varies templated away), the error itself (clipped), and what resolved it when
    the turn shows it (the next successful call of the same tool); else ``suggested``,
    the fix the assistant's reply proposed (a reply that asks is none), which the
    person may confirm in a later turn (:mod:`memoir.insights.resolution`).  Records
    written before held the assistant's reply as ``resolution``."""

    tool: str
    signature: str
    error: str
    resolution: str | None = None
    suggested: str | None = None


@event_type("session.turn_recorded")
class TurnRecorded(Payload, frozen=True, kw_only=True):
    """One turn of a session's conversation: the user's message, the assistant's
    messages and tool results, the final reply.  ``turn`` counts from 1 per session.
    ``memory_interval`` and ``skill_interval`` are the nudge intervals in force when it
    was recorded, so the counters fold the same on any day (spec §2.1)."""

    session_id: str
    turn: int
    messages: tuple[MessageRef, ...]
    memory_interval: int = 10
    skill_interval: int = 10
    #: The turn's failed tool calls, in order.
    errors: tuple[ToolError, ...] = ()
    #: When the turn happened, when that is not when it was journaled (an imported or
    #: back-filled conversation): its messages' latest timestamp, else the
    #: conversation's start.  The error insights date what they saw by it.
    at: str | None = None
    #: How many credentials were replaced by ``[redacted:<kind>]`` in the stored
    #: messages (``transcripts.redact_secrets``).
    redacted: int = 0

    def __post_init__(self) -> None:
        require("at", _moment_problem(self.at))
        require("redacted", "must be 0 or more" if self.redacted < 0 else None)

    def entities(self) -> tuple[str, ...]:
        return (f"session:{self.session_id}",)


def _moment_problem(value: str | None) -> str | None:
    """Why ``value`` is not a moment a record may carry (None: it is, or is absent)."""
    if value is None:
        return None
    if len(value) > 40:
        return "longer than a timestamp"
    try:
        dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return f"{value!r} is not an ISO-8601 time"
    return None


@event_type("session.started")
class SessionStarted(Payload, frozen=True, kw_only=True):
    """A session began.  Its prompt is rendered from the state at this event's seq."""

    session_id: str
    platform: str = "cli"
    parent: str | None = None
    #: When the conversation really began, if not now (an imported history).
    started_at: str | None = None

    def __post_init__(self) -> None:
        # The id names the session's kept prompt (.memoir/prompts/<id>.json).
        require("session_id", check_session_id(self.session_id))

    def entities(self) -> tuple[str, ...]:
        return (f"session:{self.session_id}",)


@event_type("session.ended")
class SessionEnded(Payload, frozen=True, kw_only=True):
    """A session ended."""

    session_id: str
    reason: str = "closed"
    #: When the conversation really ended, if not now (an imported history's last
    #: message).
    ended_at: str | None = None

    def __post_init__(self) -> None:
        require("ended_at", _moment_problem(self.ended_at))

    def entities(self) -> tuple[str, ...]:
        return (f"session:{self.session_id}",)


@event_type("session.summarized")
class SessionSummarized(Payload, frozen=True, kw_only=True):
    """What a session was about, for episodic recall: a summary of its turns up to
    ``through_turn`` (``source``: ``rules`` offline, or ``llm``) and topic ``tags``."""

    session_id: str
    through_turn: int
    summary: str
    tags: tuple[str, ...] = ()
    source: str = "rules"

    def entities(self) -> tuple[str, ...]:
        return (f"session:{self.session_id}",)


class RecalledHit(msgspec.Struct, frozen=True, kw_only=True):
    """One past session recalled into a prompt."""

    session: str
    score: float
    snippet: str
    summary: str = ""


class RecalledSkill(msgspec.Struct, frozen=True, kw_only=True):
    """A skill put into a prompt because it was relevant to the message."""

    name: str
    score: float


@event_type("session.context_recalled")
class ContextRecalled(Payload, frozen=True, kw_only=True):
    """What episodic recall put into a prompt of this session for a message (its
    BLAKE2b-128 ``message_hash``): the hits came from the index at this record's seq,
    later than the session's pin, so they are kept to render that prompt again."""

    session_id: str
    message_hash: str
    hits: tuple[RecalledHit, ...] = ()
    #: The skills chosen by meaning (their scores depend on the model, so they are
    #: kept); ``None`` when chosen by TF-IDF, which the pin alone reproduces.
    skills: tuple[RecalledSkill, ...] | None = None

    def entities(self) -> tuple[str, ...]:
        return (f"session:{self.session_id}",)


#: Every payload type of this module, for the catalog (:mod:`memoir.events.catalog`).
PAYLOADS: tuple[type[Payload], ...] = (
    SessionStarted,
    SessionEnded,
    TurnRecorded,
    SessionSummarized,
    ContextRecalled,
)
