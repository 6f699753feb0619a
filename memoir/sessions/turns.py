"""Recording conversations: OpenAI chat-completions messages, checked, stored and
journaled one turn at a time.

A conversation is a list of messages as every agent framework holds them: ``system``,
``user``, ``assistant`` (with ``tool_calls``), ``tool`` (with ``tool_call_id``).  A turn
starts at a user message and runs to the next one.  :func:`check_messages` refuses what
is not such a list, naming the message and what is wrong, before anything is stored;
:func:`record_turn` puts the bodies in the transcript store and journals one
``session.turn_recorded`` per turn, with the nudge counters' intervals, and returns the
reviews the turn made due (spec §2.1).

A message may carry ``timestamp`` (ISO-8601 or epoch seconds): it is kept as the
message's time (``at``), so an imported history keeps its dates.  Credentials in it are
redacted before it is stored: nothing secret is kept (:mod:`memoir.credentials`).
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from memoir import lazyre
from memoir.clock import format_ts, parse_ts
from memoir.credentials import redact_counted
from memoir.engine.commit import Caller, Decision
from memoir.engine.port import Home
from memoir.errors import NotFoundError, ValidationError
from memoir.events.insights import (
    InsightCandidate,
    InsightPromoted,
    InsightReferenced,
    InsightResolved,
)
from memoir.events.sessions import MessageRef, ToolError, TurnRecorded
from memoir.events.types import Payload
from memoir.insights.resolution import later_resolutions, tool_errors
from memoir.journal.transcripts import TranscriptStore
from memoir.messages import tool_error
from memoir.projections.sessions import IDLE, count_turn, note_errors
from memoir.projections.state import State

__all__ = [
    "MAX_CONVERSATION_CHARS",
    "MAX_DEPTH",
    "MAX_MESSAGE_CHARS",
    "ROLES",
    "RecordedTurns",
    "check_messages",
    "record_turns",
    "split_turns",
]

ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
#: A message longer than this is refused (a pasted log belongs in a file, not memory):
#: every string it holds counts, its keys and tool-call arguments included.
MAX_MESSAGE_CHARS = 1_000_000
#: A conversation (all its messages) longer than this is refused.
MAX_CONVERSATION_CHARS = 16_000_000
#: How deep a message's objects and lists may nest.
MAX_DEPTH = 32
_SURROGATE = lazyre.compile("[\ud800-\udfff]")


def _size(message: dict[str, Any], where: str) -> int:
    """The characters of every string in ``message`` (keys included), checking on the
    way that it is JSON a file can hold: objects with string keys, lists, strings
    without lone surrogates, finite numbers, booleans, null, at most :data:`MAX_DEPTH`
    deep.  Stops as soon as it passes :data:`MAX_MESSAGE_CHARS`."""
    total = 0
    stack: list[tuple[Any, int, str]] = [(message, 0, "")]
    while stack:
        value, depth, path = stack.pop()
        if depth > MAX_DEPTH:
            raise ValidationError(f"{where}: nested more than {MAX_DEPTH} levels deep "
                                  f"(at {path or 'the message'})")
        if isinstance(value, str):
            if _SURROGATE.search(value):
                raise ValidationError(f"{where}: {path or 'a string'} holds a lone surrogate "
                                      "(not valid Unicode text)")
            total += len(value)
        elif isinstance(value, dict):
            for key, inner in value.items():
                if not isinstance(key, str):
                    raise ValidationError(f"{where}: {path or 'an object'} has a key that "
                                          f"is not a string ({key!r})")
                total += len(key)
                stack.append((key, depth + 1, f"{path}.{key}" if path else key))
                stack.append((inner, depth + 1, f"{path}.{key}" if path else key))
        elif isinstance(value, list | tuple):
            stack.extend((inner, depth + 1, f"{path}[{i}]") for i, inner in enumerate(value))
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise ValidationError(f"{where}: {path} is {value}, which JSON cannot hold")
            total += 24
        elif isinstance(value, bool | int) or value is None:
            total += 24
        else:
            raise ValidationError(f"{where}: {path or 'the message'} is a "
                                  f"{type(value).__name__}, which JSON cannot hold")
        if total > MAX_MESSAGE_CHARS:
            raise ValidationError(f"{where}: more than {MAX_MESSAGE_CHARS:,} characters "
                                  "(every key and value counts, tool-call arguments "
                                  "included); a message may hold at most that")
    return total


def _text(content: Any, where: str) -> str:
    """The text of a message's ``content``: a string, null, or a list of parts (the
    text of ``text`` parts; other parts, images and such, count for nothing)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if not isinstance(part, dict):
                raise ValidationError(f"{where}: a content part must be an object")
            if part.get("type") == "text":
                text = part.get("text")
                if not isinstance(text, str):
                    raise ValidationError(f"{where}: a text part needs a string 'text'")
                parts.append(text)
        return "\n".join(parts)
    raise ValidationError(f"{where}: 'content' must be a string, null or a list of parts, "
                          f"not {type(content).__name__}")


def _moment(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValidationError(f"{where}: 'timestamp' must be ISO-8601 text or epoch seconds")
    try:
        when = (dt.datetime.fromtimestamp(float(value), dt.UTC)
                if not isinstance(value, str) else parse_ts(value))
    except (ValueError, OverflowError, OSError):
        raise ValidationError(f"{where}: 'timestamp' {value!r} is not a time (ISO-8601 or "
                              "epoch seconds)") from None
    return format_ts(when)


def check_messages(messages: Any, *, known_calls: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Check a list of chat-completions messages; returns copies with ``timestamp``
    normalised to ``at`` (ISO-8601).  Raises :class:`ValidationError` naming the first
    problem: not a list, a message that is not an object, an unknown role, a tool result
    whose call no assistant message made, malformed tool calls, too much text.
    ``known_calls``: tool-call ids made in earlier turns of the same session."""
    if not isinstance(messages, list):
        raise ValidationError(f"a conversation is a list of messages, not "
                              f"{type(messages).__name__}")
    calls = set(known_calls)
    total = 0
    out: list[dict[str, Any]] = []
    for i, message in enumerate(messages):
        where = f"message {i + 1}"
        if not isinstance(message, dict):
            raise ValidationError(f"{where}: a message is an object with a 'role', not "
                                  f"{type(message).__name__}")
        role = message.get("role")
        if role not in ROLES:
            raise ValidationError(f"{where}: unknown role {role!r} (roles: "
                                  f"{', '.join(sorted(ROLES))})")
        total += _size(message, where)
        text = _text(message.get("content"), where)
        if "\x00" in text:
            raise ValidationError(f"{where}: the text holds a NUL character")
        copy = dict(message)
        copy.pop("timestamp", None)
        if "timestamp" in message and message["timestamp"] is not None:
            copy["at"] = _moment(message["timestamp"], where)
        if role == "assistant":
            tool_calls = message.get("tool_calls") or []
            if not isinstance(tool_calls, list):
                raise ValidationError(f"{where}: 'tool_calls' must be a list")
            for j, call in enumerate(tool_calls):
                cw = f"{where}, tool call {j + 1}"
                function = call.get("function") if isinstance(call, dict) else None
                if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                    raise ValidationError(f"{cw}: needs 'function': {{'name', 'arguments'}}")
                arguments = function.get("arguments", "")
                if not isinstance(arguments, str | dict | type(None)):
                    raise ValidationError(f"{cw}: 'arguments' must be JSON text")
                call_id = call.get("id")
                if not isinstance(call_id, str) or not call_id:
                    raise ValidationError(f"{cw}: needs an 'id'")
                calls.add(call_id)
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str) or call_id not in calls:
                raise ValidationError(f"{where}: a tool result for call {call_id!r}, which no "
                                      "earlier assistant message made")
        if total > MAX_CONVERSATION_CHARS:
            raise ValidationError(f"the conversation holds more than "
                                  f"{MAX_CONVERSATION_CHARS:,} characters; record it in parts")
        out.append(copy)
    return out


def _redacted(value: Any, found: list[int]) -> Any:
    """``value`` (a checked message, or a part of one) with every string redacted; how
    many credentials were replaced is added to ``found[0]``."""
    if isinstance(value, str):
        text, count = redact_counted(value)
        found[0] += count
        return text
    if isinstance(value, dict):
        return {key: _redacted(inner, found) for key, inner in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(inner, found) for inner in value]
    return value



@dataclass(frozen=True)
class RecordedTurns:
    """What recording did: the turn numbers, and the reviews they made due (per turn,
    the kinds of review: ``"memory"``, ``"skills"``)."""

    turns: tuple[int, ...]
    due: tuple[tuple[int, tuple[str, ...]], ...]

def split_turns(messages: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The turns of a conversation: each starts at a user message (what comes before
    the first one, a system prompt, belongs to the first turn)."""
    turns: list[list[dict[str, Any]]] = []
    for message in messages:
        if message.get("role") == "user" and turns and any(
                m.get("role") == "user" for m in turns[-1]):
            turns.append([])
        if not turns:
            turns.append([])
        turns[-1].append(message)
    return turns


def _valid(arguments: Any) -> bool:
    if isinstance(arguments, dict):
        return True
    try:
        return isinstance(json.loads(arguments), dict) if isinstance(arguments, str) else False
    except (ValueError, RecursionError):
        return False




def message_ref(message: dict[str, Any], ref: str) -> MessageRef:
    """What the journal keeps of a message: its role, its reference, its tool calls
    (names and validity) or the call it answers and its error, its time."""
    role = str(message["role"])
    calls = [c for c in message.get("tool_calls") or [] if isinstance(c, dict)]
    return MessageRef(
        role=role, ref=ref,
        calls=tuple(str(c["function"]["name"]) for c in calls),
        valid=tuple(_valid(c["function"].get("arguments")) for c in calls),
        call_id=message.get("tool_call_id") if role == "tool" else None,
        error=tool_error(message.get("content")) if role == "tool" else None,
        at=message.get("at"),
    )


def _pipeline(state: State, errors: Sequence[ToolError], counts: dict[str, int],
              references: dict[str, int], thresholds: Any) -> list[Payload]:
    """Seed 003's steps a turn's errors take (promotion, a hint shown, a candidate),
    decided now with the configured thresholds and journaled with the turn."""
    out: list[Payload] = []
    for error in errors:
        known = state.insights.signatures.get(error.signature)
        live = known is not None and known.state != "expired"
        before = counts.get(error.signature, known.count if live and known else 0)
        counts[error.signature] = before + 1
        status = known.state if live and known else "seen"
        if status == "seen" and before + 1 == thresholds.promote_after:
            out.append(InsightPromoted(signature=error.signature, count=before + 1,
                                       resolution=error.resolution or (
                                           known.resolution if known else None)))
        elif status == "insight" and known is not None:
            # The error is one memoir knows: a hint is shown for it (and counts).
            used = references.get(error.signature, known.references) + 1
            references[error.signature] = used
            out.append(InsightReferenced(signature=error.signature, how="hint"))
            if used == thresholds.candidate_after:
                out.append(InsightCandidate(signature=error.signature, references=used))
    return out


def record_turns(
    engine: Home,
    store: TranscriptStore,
    session_id: str,
    turns: Sequence[Sequence[dict[str, Any]]],
    *,
    actor: str,
    memory_interval: int,
    skill_interval: int,
    at: str | None = None,
) -> list[tuple[int, tuple[str, ...]]]:
    """Store and journal ``turns`` (checked messages) of a session, in one append;
    returns, per turn, its number and the reviews it made due.  Credentials said in the
    conversation are redacted before anything is stored (``[redacted:<kind>]``; the
    turn's event counts them), unless ``transcripts.redact_secrets`` is off.
    ``at``: when a turn whose messages carry no timestamp happened (an imported
    conversation's start); a live turn leaves it None: it happens as it is journaled."""
    redacted = [0] * len(turns)
    if engine.config.transcripts.redact_secrets:
        counts = [[0] for _ in turns]
        turns = [[_redacted(m, counts[i]) for m in turn] for i, turn in enumerate(turns)]
        redacted = [c[0] for c in counts]
    flat = [m for turn in turns for m in turn]
    refs = iter(store.put(flat))  # durable before the events that point at them
    shaped = [[message_ref(m, next(refs)) for m in turn] for turn in turns]
    errors = [tool_errors(turn) for turn in turns]
    thresholds = engine.config.insights

    def decide(state: State) -> Decision[list[tuple[int, tuple[str, ...]]]]:
        info = state.sessions.get(session_id)
        if info is None:
            raise NotFoundError(f"no session {session_id!r}")
        if info.ended_at is not None and info.end_reason != IDLE:
            raise ValidationError(f"session {session_id} has ended; start a new one")
        # Counted on a copy (the fold counts for real), its own dict of unresolved errors.
        probe = msgspec.structs.replace(info, unresolved=dict(info.unresolved))
        payloads: list[Payload] = []
        due: list[tuple[int, tuple[str, ...]]] = []
        counts: dict[str, int] = {}
        references: dict[str, int] = {}
        for i, messages in enumerate(shaped):
            stamps = [m["at"] for m in turns[i] if isinstance(m.get("at"), str)]
            payload = TurnRecorded(session_id=session_id, turn=info.turns + 1 + i,
                                   messages=tuple(messages), memory_interval=memory_interval,
                                   skill_interval=skill_interval, errors=errors[i],
                                   at=max(stamps) if stamps else at,
                                   redacted=redacted[i])
            payloads.append(payload)
            payloads += _pipeline(state, errors[i], counts, references, thresholds)
            # What this turn shows fixed the session's earlier errors.
            fixed = later_resolutions(probe.unresolved, turns[i])
            payloads += [InsightResolved(signature=sig, session_id=session_id,
                                         turn=probe.unresolved[sig][2], resolution=text,
                                         how=how) for sig, text, how in fixed]
            due.append((payload.turn, count_turn(probe, payload)))
            note_errors(probe, payload)  # as the fold will, the resolved popped after
            for sig, _text, _how in fixed:
                probe.unresolved.pop(sig, None)
        return Decision(events=payloads, result=due)

    _events, due = engine.commit(decide, by=Caller(actor=actor, session=session_id))
    return due
