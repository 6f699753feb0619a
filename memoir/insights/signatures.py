"""Error signatures (seed 003): a tool error with everything that varies between two
occurrences of the same failure templated away, the tool's name kept.

``terminal: psql: could not connect to server at 10.0.3.7:5432 (after 30s)`` and the
same failure on another host and port are one signature:
``terminal: psql: could not connect to server at <ip>:<n> (after <n>s)``.
"""

from __future__ import annotations

import re

from memoir import lazyre

__all__ = ["signature"]

_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (lazyre.compile(
        r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"),
     "<ts>"),
    (lazyre.compile(
        r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),
     "<id>"),
    (lazyre.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b"), "<ip>"),
    (lazyre.compile(r"(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:/[\w.@+-]+){2,}/?"), "<path>"),
    (lazyre.compile(r"\b0x[0-9a-fA-F]+\b|\b[0-9a-f]{12,}\b"), "<hex>"),
    (lazyre.compile(r"'[^'\n]{1,200}'|\"[^\"\n]{1,200}\"|`[^`\n]{1,200}`"), "<q>"),
    (lazyre.compile(r"\b[a-z]+[-_](?=[a-z0-9]*\d)[a-z0-9]{6,}\b"), "<id>"),
    (lazyre.compile(r"(?<![\w<])\d+(?:\.\d+)?"), "<n>"),
)
_MAX = 300


def signature(tool: str, error: str) -> str:
    """The signature of ``error`` raised by ``tool`` (see the module docstring)."""
    text = " ".join(error.split())[:2000]
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    text = text[:_MAX]
    return f"{tool}: {text}"
