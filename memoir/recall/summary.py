"""Session summaries for episodic recall, written offline by rules.

From a session's transcript: what it was about (the first request), the facts and
preferences the user gave (the rule reviewer's :func:`~memoir.reviewers.rules.extract`
is not used here: this module sits below the reviewers; a simpler scan serves), the
files and commands that came up, the tool errors and what fixed them (the next call of
the same tool that succeeded, or the assistant's reply after the error), and the
decisions the assistant announced.  Deterministic: the same turns, the same summary.
Capped at about 400 words.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from memoir import lazyre
from memoir.messages import message_text, tool_error

__all__ = ["summarize_turns"]

_PATH = lazyre.compile(r"(?:~?/[\w.@-]+(?:/[\w.@-]+)+|\b[\w.-]+/[\w.-]+\.\w{1,5}\b|\b[\w-]+\.(?:py|"
                   r"js|ts|go|rs|md|toml|yaml|yml|json|sql|sh|cfg|ini|txt)\b)")
_COMMAND = lazyre.compile(r"`([^`\n]{2,80})`")
_DECISION = lazyre.compile(r"(?i)\b(?:we(?:'ll| will) (?:use|go with|keep|switch)|i(?:'ll| will) "
                       r"(?:use|go with|switch)|decided to|let's (?:use|go with|keep)|the fix "
                       r"(?:is|was)|fixed by|resolved by|the cause (?:is|was))\b[^.!?\n]{3,160}")
_WORD = lazyre.compile(r"[a-zA-Z][a-zA-Z0-9_-]{2,}")
_STOP = frozenset((
    "the", "and", "for", "you", "are", "but", "not", "can", "our", "was", "has", "had",
    "its", "did", "get", "got", "let", "use", "one", "all", "any", "how", "why", "who",
    "now", "yes", "try", "see", "out", "off", "way", "too", "own", "new",
    "about", "above", "after", "again", "also", "because", "been", "before", "being", "below",
    "between", "both", "could", "does", "doing", "down", "during", "each", "from", "further",
    "have", "having", "here", "into", "itself", "just", "more", "most", "once", "only",
    "other", "over", "same", "should", "some", "such", "than", "that", "their", "them", "then",
    "there", "these", "they", "this", "those", "through", "under", "until", "very", "what",
    "when", "where", "which", "while", "with", "would", "your", "yours", "please", "thanks",
    "thank", "want", "need", "like", "make", "sure", "okay", "yeah", "right", "know", "think",
    "going", "really", "still", "maybe", "something", "anything", "everything", "using",
    "used", "file", "files", "code",
))
_MAX_WORDS = 400




def _clip(text: str, words: int) -> str:
    parts = " ".join(text.split()).split(" ")
    return " ".join(parts[:words]) + ("…" if len(parts) > words else "")




def summarize_turns(turns: Sequence[Sequence[dict[str, Any]]]) -> tuple[str, tuple[str, ...]]:
    """(summary, tags) of a session's turns (each a list of chat-completions messages)."""
    flat = [m for turn in turns for m in turn]
    users = [message_text(m) for m in flat if m.get("role") == "user" and message_text(m).strip()]
    if not users:
        return "", ()
    lines = [f"Asked: {_clip(users[0], 40)}"]
    later = [u for u in users[1:] if len(u.split()) >= 3][:4]
    if later:
        lines.append("Then: " + " / ".join(_clip(u, 20) for u in later))
    everything = "\n".join(message_text(m) for m in flat)
    paths = list(dict.fromkeys(_PATH.findall(everything)))[:8]
    if paths:
        lines.append("Files: " + ", ".join(paths))
    commands = list(dict.fromkeys(_COMMAND.findall(everything)))[:6]
    if commands:
        lines.append("Commands: " + ", ".join(f"`{c}`" for c in commands))
    names: dict[str, str] = {}  # tool call id → tool name
    errors: list[str] = []
    for i, message in enumerate(flat):
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict):
                names[str(call.get("id"))] = str((call.get("function") or {}).get("name"))
        if message.get("role") != "tool":
            continue
        error = tool_error(message.get("content"))
        if error is None:
            continue
        tool = names.get(str(message.get("tool_call_id")), "a tool")
        fix = next((_clip(message_text(m), 25) for m in flat[i + 1:]
                    if m.get("role") == "assistant" and message_text(m).strip()), None)
        errors.append(f"{tool} failed ({_clip(error, 15)})" + (f"; then: {fix}" if fix else ""))
    if errors:
        lines.append("Errors: " + " | ".join(list(dict.fromkeys(errors))[:4]))
    decisions = list(dict.fromkeys(m.group(0).strip() for m in _DECISION.finditer(everything)))
    if decisions:
        lines.append("Decided: " + " / ".join(_clip(d, 25) for d in decisions[:4]))
    counts = Counter(w.lower() for w in _WORD.findall(" ".join(users))
                     if w.lower() not in _STOP)
    tags = tuple(w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:8])
    kept: list[str] = []
    budget = _MAX_WORDS
    for line in lines:
        words = line.split(" ")
        if budget <= 0:
            break
        kept.append(" ".join(words[:budget]) + ("…" if len(words) > budget else ""))
        budget -= len(words)
    return "\n".join(kept), tags
