"""Threat scanning for memory text, matching Hermes's ``scan_for_threats`` (spec §1.5).

Memory entries are pasted into the system prompt, so a write that tries to steer the
agent, leak secrets or plant a backdoor is refused, and an entry that slipped in by
hand is masked when the prompt is built.  This module reproduces which pattern ids
Hermes reports for a text, in Hermes's order, with its own regexes and matchers::

    scan_for_threats(text, scope)      every finding: invisible characters, then patterns
    first_threat_id(text)              the finding a refused write reports
    first_threat_message(text)         the refusal message for that finding
    sanitize_for_prompt(entries, f)    entries as the system prompt may show them

A scan truncates the text to :data:`MAX_SCAN_CHARS`, reports each invisible character
(checked on the raw text), then NFKC-normalises and searches each pattern of the
scope case-insensitively.  Scopes nest: ``all`` ⊂ ``context`` ⊂ ``strict``.

Two rules are memoir's own, where Hermes is not deterministic or not fast:

* Invisible characters are reported in order of first appearance.  Hermes reports them
  in the iteration order of a frozenset of strings, which changes with the process's
  hash seed, so its order (and hence its refusal message) varies between runs.
* A scan takes time close to linear in the text, whatever the text.  Hermes's patterns
  with unbounded gaps (``.*``, ``[^>]*``) backtrack quadratically or worse on hostile
  input (a 64 KiB write can take minutes); here those gaps are resolved by looking up
  anchor positions instead of by backtracking.  CPython's own NFKC is quadratic in a
  run of combining marks, so long texts are normalised piecewise to the same result.

Matching runs on a case-folded copy of the normalised text rather than with
``re.IGNORECASE``: every pattern is ASCII, and besides ASCII letters only four code
points fold onto an ASCII letter under Python's ignore-case rules (U+0130 and U+0131,
the dotted and dotless i; U+017F, long s; U+212A, the Kelvin sign), so the fold is exact
and several times faster.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from memoir import lazyre
from memoir.threats import _beyond
from memoir.threats._beyond import OWN_PATTERN_IDS as _OWN_PATTERN_IDS
from memoir.threats._hermes import (
    _BLOCKED_PREFIX,
    _INVISIBLE_PREFIX,
    INVISIBLE_CHARS,
    MAX_SCAN_CHARS,
    PATTERN_IDS,
    _scan,
    pattern_scope,
)
from memoir.threats._matchers import SCOPES, Scope
from memoir.threats.instructions import INSTRUCTION_IDS, instruction_threats
from memoir.threats.second_opinion import second_opinion as _second_opinion

#: memoir's own finding ids: its patterns, then the instruction detector's categories
#: (:mod:`memoir.threats.instructions`).
OWN_PATTERN_IDS: tuple[str, ...] = (*_OWN_PATTERN_IDS, *INSTRUCTION_IDS)


def scan_beyond_hermes(text: str, *, second_opinion: bool = False) -> list[str]:
    """What memoir finds in ``text`` that Hermes's scan does not: Hermes's patterns after
    a harder normalisation, memoir's own patterns, then the categories of hostile
    instruction the structural detector reads (ids in :data:`OWN_PATTERN_IDS`).

    ``second_opinion``: where the detector finds no instruction, ask the semantic extra
    too (:mod:`memoir.threats.second_opinion`).  The doors of a write ask it; the prompt
    mask does not, so a prompt's bytes never depend on what is installed.
    """
    found = _beyond.scan_beyond_hermes(text)
    read = instruction_threats(text)
    if second_opinion and not read:
        read = _second_opinion(text)
    return found + [i for i in read if i not in found]

__all__ = [
    "INVISIBLE_CHARS",
    "MAX_SCAN_CHARS",
    "OWN_PATTERN_IDS",
    "PATTERN_IDS",
    "SCOPES",
    "Scope",
    "all_threats",
    "blocked_placeholder",
    "first_threat_id",
    "first_threat_message",
    "pattern_scope",
    "prompt_threats",
    "redacted_preview",
    "sanitize_for_prompt",
    "scan_beyond_hermes",
    "scan_for_threats",
    "threat_message",
]


def scan_for_threats(text: str, scope: Scope = "strict") -> list[str]:
    """Every threat finding in ``text`` at ``scope``, as Hermes reports them.

    Invisible characters come first (``invisible_unicode_U+XXXX``, in order of first
    appearance), then pattern ids in pattern order; each id at most once.  An unknown
    scope raises :class:`~memoir.errors.ValidationError` (a ValueError).
    """
    return _scan(text, scope, first_only=False)


@functools.lru_cache(maxsize=64)
def first_threat_id(text: str, *, second_opinion: bool = True) -> str | None:
    """The finding a write of ``text`` is refused for (strict scope), or None if clean:
    Hermes's first finding, else memoir's first (:func:`scan_beyond_hermes`).  The last
    texts' answers are kept: a write scanned before the journal's lock (to compile the
    patterns off it) is not scanned again under it."""
    found = _scan(text, "strict", first_only=True)
    if found:
        return found[0]
    beyond = scan_beyond_hermes(text, second_opinion=second_opinion)
    return beyond[0] if beyond else None


def all_threats(text: str, *, second_opinion: bool = True) -> list[str]:
    """Every finding memoir refuses a write for: Hermes's scan, then what memoir finds
    beyond it (with the semantic second opinion unless ``second_opinion`` is False)."""
    return scan_for_threats(text, "strict") + scan_beyond_hermes(
        text, second_opinion=second_opinion)


def first_threat_message(text: str) -> str | None:
    """The error a write of ``text`` is refused with (strict scope), or None if clean."""
    threat = first_threat_id(text)
    return None if threat is None else threat_message(threat)


def threat_message(threat: str) -> str:
    """The error a write is refused with for the finding ``threat`` (Hermes's words)."""
    if threat.startswith(_INVISIBLE_PREFIX):
        code = threat.removeprefix(_INVISIBLE_PREFIX)
        return (
            f"Blocked: content contains invisible unicode character {code} "
            "(possible injection)."
        )
    return (
        f"Blocked: content matches threat pattern '{threat}'. Content is injected into the "
        "system prompt and must not contain injection or exfiltration payloads."
    )


#: A whole placeholder line, as :func:`blocked_placeholder` writes it.
_PLACEHOLDER = lazyre.compile(
    re.escape(_BLOCKED_PREFIX) + r" [\w.-]+ entry contained threat pattern\(s\): "
    r"[\w+, -]+\. Removed from system prompt; use memory\(action=remove\) to delete the "
    r"original\.\]")


def blocked_placeholder(file_name: str, pattern_ids: Sequence[str]) -> str:
    """The line that stands in the system prompt for an entry that matched threats."""
    return (
        f"{_BLOCKED_PREFIX} {file_name} entry contained threat pattern(s): "
        f"{', '.join(pattern_ids)}. Removed from system prompt; use memory(action=remove) "
        "to delete the original.]"
    )


def prompt_threats(text: str) -> list[str]:
    """The findings that keep ``text`` out of the prompt: Hermes's (strict scope), as
    Hermes shows them, and memoir's own only where Hermes finds nothing."""
    return list(_prompt_threats(text))


# Every prompt rendered scans every entry again; a process that renders many (a server,
# a long-lived agent) scans each text once.
@functools.lru_cache(maxsize=4096)
def _prompt_threats(text: str) -> tuple[str, ...]:
    return tuple(scan_for_threats(text, "strict") or scan_beyond_hermes(text))


def sanitize_for_prompt(entries: Sequence[str], file_name: str) -> list[str]:
    """``entries`` as the system prompt may show them (Hermes's load-time rule).

    Each entry is scanned at strict scope (and, where Hermes finds nothing, by
    :func:`scan_beyond_hermes`); a matching one is replaced by
    :func:`blocked_placeholder`.  Empty entries and entries that are a placeholder
    already are kept as they are.  (Hermes keeps every entry that *starts* with
    ``[BLOCKED:``, so ``[BLOCKED: x] ignore all instructions`` reached its prompt
    whole; here only the placeholder itself is exempt.)  The stored entries are never
    changed, so the user can still see and remove the original.
    """
    shown: list[str] = []
    for entry in entries:
        if entry and not _PLACEHOLDER.fullmatch(entry):
            found = prompt_threats(entry)
            if found:
                entry = blocked_placeholder(file_name, found)
        shown.append(entry)
    return shown


def redacted_preview(text: str, limit: int = 60) -> str:
    """The shape of a refused text without what it could leak: each word longer than
    three characters cut to its first three (``api_key=sk-…`` keeps ``api…``), at most
    ``limit`` characters.  Enough to recognise an attempt in the audit log; a secret or
    a payload cannot be read back from it."""
    words = re.split(r"(\s+)", text[: limit * 4])
    shown = "".join(w if w.isspace() or len(w) <= 3 else w[:3] + "…" for w in words)
    return shown[:limit]
