"""What fixed a tool error: the successful call that followed it, or a fix the person
confirmed — never the assistant's question in between.

A failed call's resolution is the next call of the same tool that succeeded.  Often it
is not in the same turn: the assistant asks ("Are you on the VPN?"), the person answers,
and the call succeeds in the next turn.  So a session remembers its errors that no turn
resolved yet (:attr:`~memoir.projections.sessions.SessionInfo.unresolved`, with the fix
the assistant proposed, if it proposed one), and each later turn of the session is
read for:

- a successful call of the same tool → ``"<tool> succeeded with <arguments>"``, with
  what the person said first when the turn opened with it ("after the person said …");
- else the person saying it works now → the fix they describe, or the assistant's
  proposed fix they confirm.

An assistant reply that asks something is never a resolution, nor a proposed fix.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from memoir import lazyre
from memoir.events.sessions import ToolError
from memoir.insights.signatures import signature
from memoir.messages import clip, content_text, tool_error

__all__ = ["confirms_fix", "later_resolutions", "tool_errors"]

#: "it works now", "that fixed it", "solved", in the languages the threat scan reads.
_CONFIRMED = lazyre.compile(
    r"\b(?:(?:that|this|it|which)(?:'s| is| has)?\s+(?:worked|works|fixed it|did it|"
    r"did the trick|solved it|sorted it)|works now|working now|(?:all\s+)?good now|"
    r"(?:fixed|solved|resolved|sorted)(?:\s+it)?(?:\s+now)?\b|"
    r"funciona(?:\s+ya)?|ya funciona|ça marche|ca marche|ça fonctionne|"
    r"(?:es\s+)?funktioniert(?:\s+jetzt)?|geht jetzt|risolto|funziona)",
    re.IGNORECASE)
#: "still fails", "not fixed", "doesn't work": a report that it does not.
_NOT = lazyre.compile(
    r"\b(?:not|n't|never|still|no longer|nicht|pas|no)\b[^.!?\n]{0,30}"
    r"(?:work|fix|solv|resolv|funcion|marche|funktion|geht|good)|"
    r"\b(?:still|again)\b[^.!?\n]{0,30}(?:fail|error|broken|down)|"
    r"\b(?:work|funktionier|geht|marche|funciona|funziona)\w*\s+(?:\w+\s+){0,2}?"
    r"(?:nicht|pas|not|no)\b",
    re.IGNORECASE)
_CLIP = 300


def _asks(text: str) -> bool:
    """A reply that asks the person something (its last sentence is a question)."""
    return text.rstrip().rstrip(")*_`'\"").endswith("?")


def _calls(messages: Sequence[Mapping[str, Any]]) -> dict[str, tuple[str, Any]]:
    """tool-call id → (tool name, arguments) over the messages."""
    names: dict[str, tuple[str, Any]] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict):
                function = call.get("function") or {}
                names[str(call.get("id"))] = (str(function.get("name")),
                                              function.get("arguments"))
    return names


def _succeeded(tool: str, args: Any) -> str:
    shown = args if isinstance(args, str) else str(args)
    return f"{tool} succeeded with {clip(shown, 200)}"


def tool_errors(messages: Sequence[Mapping[str, Any]]) -> tuple[ToolError, ...]:
    """The failed tool calls of a turn, each with its signature; its resolution when the
    turn shows one (a later call of the same tool that succeeded); else the fix the
    assistant then proposed, if its reply proposes rather than asks (``suggested``)."""
    names = _calls(messages)
    out = []
    for i, message in enumerate(messages):
        if message.get("role") != "tool":
            continue
        error = tool_error(message.get("content"))
        if error is None:
            continue
        tool, _args = names.get(str(message.get("tool_call_id")), ("unknown", None))
        resolution = suggested = None
        for later in messages[i + 1:]:
            if later.get("role") == "tool":
                name, args = names.get(str(later.get("tool_call_id")), ("", None))
                if name == tool and tool_error(later.get("content")) is None:
                    resolution = _succeeded(tool, args)
                    break
            elif later.get("role") == "assistant" and not later.get("tool_calls") \
                    and suggested is None:
                text = content_text(later.get("content")).strip()
                if text and not _asks(text):
                    suggested = clip(text, _CLIP)
        out.append(ToolError(tool=tool, signature=signature(tool, error), error=error,
                             resolution=resolution,
                             suggested=None if resolution else suggested))
    return tuple(out)


def confirms_fix(text: str) -> bool:
    """The person says it works now (and not that it still does not)."""
    return bool(_CONFIRMED.search(text)) and not _NOT.search(text)


def later_resolutions(unresolved: Mapping[str, tuple[str, str, int]],
                      messages: Sequence[Mapping[str, Any]]) -> list[tuple[str, str, str]]:
    """What this turn says resolved the session's earlier errors: ``(signature,
    resolution, how)`` with ``how`` ``call`` or ``confirmed`` (see the module
    docstring).  ``unresolved``: signature → (tool, proposed fix or "", its turn), as
    :attr:`~memoir.projections.sessions.SessionInfo.unresolved` keeps them."""
    if not unresolved:
        return []
    names = _calls(messages)
    said = next((content_text(m.get("content")).strip() for m in messages
                 if m.get("role") == "user"), "")
    first_ok: dict[str, Any] = {}
    failed_first: set[str] = set()
    for message in messages:
        if message.get("role") != "tool":
            continue
        name, args = names.get(str(message.get("tool_call_id")), ("", None))
        error = tool_error(message.get("content"))
        if error is None:
            first_ok.setdefault(name, args)
        elif name not in first_ok:
            failed_first.add(signature(name, error))
    out = []
    for sig, (tool, proposed, _turn) in sorted(unresolved.items()):
        if sig in failed_first:
            continue  # it failed again first: this turn's own record resolves it
        if tool in first_ok:
            text = _succeeded(tool, first_ok[tool])
            if said:
                text += f', after the person said "{clip(" ".join(said.split()), 160)}"'
            out.append((sig, text, "call"))
        elif said and confirms_fix(said):
            words = clip(" ".join(said.split()), 200)
            out.append((sig, f'{proposed} (the person confirmed: "{words}")' if proposed
                        else f'the person said: "{words}"', "confirmed"))
    return out
