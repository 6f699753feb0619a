"""Reading OpenAI chat-completions messages: their text, a tool result's error, and
clipping text for a summary or a label.  One place for what recording, reviewing,
summarising and indexing all need."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["clip", "content_text", "message_text", "tool_error"]

_ERROR_CLIP = 300


def content_text(content: Any) -> str:
    """The text of a message's ``content``: a string, or the ``text`` parts of a list of
    parts (images and other parts count for nothing); anything else is empty."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content
                         if isinstance(p, dict) and p.get("type", "text") == "text")
    return ""


def message_text(message: dict[str, Any]) -> str:
    return content_text(message.get("content"))


def clip(text: str, size: int) -> str:
    """``text`` on one line, at most ``size`` characters (an ellipsis marks a cut)."""
    line = " ".join(text.split())
    return line if len(line) <= size else line[: size - 1] + "…"


def tool_error(content: Any) -> str | None:
    """The error a tool result reports (its JSON says ``success: false`` or holds an
    ``error``), clipped; None for a result that succeeded or is not JSON."""
    text = content_text(content)
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, dict) and (value.get("success") is False or "error" in value):
        return clip(str(value.get("error") or "failed"), _ERROR_CLIP)
    return None
