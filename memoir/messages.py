"""Reading OpenAI chat-completions messages: their text, a tool result's error, and
clipping text for a summary or a label.  One place for what recording, reviewing,
summarising and indexing all need."""

from __future__ import annotations

import json
from typing import Any

from memoir import lazyre

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


# A failure said in plain text, as shells, interpreters, CLIs and HTTP clients say it.
# Looked for at the start of the output's first and last lines only, so a tool that
# returns a file or a page which merely mentions an error is not taken for a failure.
_FAILURE_LINE = lazyre.compile(
    r"^(?:"
    r"(?:ba|z|fi|da|k)?sh: .*(?:command not found|not found|No such file or directory|"
    r"Permission denied)"
    r"|Error from server(?: \(\w+\))?:?"
    r"|(?:fatal|error|ERROR|FATAL|Error|panic|E)(?:\[\w-]+\])?: "
    r"|npm ERR! |\w+Error: |\w+Exception: "
    r"|.*\b(?:exit(?:ed)? (?:code|status)|returned non-zero exit status|exited with "
    r"(?:code|status)) [1-9]\d*\b"
    r"|(?:HTTP/\d(?:\.\d)? |HTTP |status(?: code)?:? )[45]\d\d\b"
    r"|[45]\d\d (?:Bad Request|Unauthorized|Forbidden|Not Found|Method Not Allowed|"
    r"Conflict|Gone|Unprocessable Entity|Too Many Requests|Internal Server Error|Bad Gateway|"
    r"Service Unavailable|Gateway Timeout)\b"
    r")")
_TRACEBACK = "Traceback (most recent call last):"
_EDGE_LINES = 5


def _plain_failure(text: str) -> str | None:
    """The line of plain-text output that says it failed, or None."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return None
    if any(line.startswith(_TRACEBACK) for line in lines):
        return lines[-1]  # the exception the traceback ends with
    for line in [*lines[:_EDGE_LINES], *lines[-_EDGE_LINES:]]:
        if _FAILURE_LINE.match(line):
            return line
    return None


def tool_error(content: Any) -> str | None:
    """The error a tool result reports, clipped; None for a result that succeeded.

    A JSON result fails when it says ``success: false``, holds an ``error``, or a
    non-zero ``exit_code``/``returncode``; plain text fails when its first or last lines
    say so as shells, tracebacks, kubectl, git, npm and HTTP clients do
    (``bash: pytest: command not found``, ``Error from server (Forbidden)``, ``exit code
    1``, ``HTTP/1.1 503``)."""
    text = content_text(content)
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        found = _plain_failure(text)
        return clip(found, _ERROR_CLIP) if found else None
    if isinstance(value, dict):
        if value.get("success") is False or "error" in value:
            return clip(str(value.get("error") or "failed"), _ERROR_CLIP)
        code = value.get("exit_code", value.get("returncode"))
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            said = _plain_failure(str(value.get("stderr") or value.get("output") or ""))
            return clip(said or f"exit code {code}", _ERROR_CLIP)
    return None
