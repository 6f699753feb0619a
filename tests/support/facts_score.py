"""Scoring what a reviewer saves against labelled (turn, expected entry) pairs (issue 37
item 1): an entry matches when its target is the labelled one and its words are the
labelled entry's, exactly or equivalently; characters saved per fact against the
labelled entry's."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_WORD = re.compile(r"[\w'/.-]+")
_LIGHT = frozenset(["the", "a", "an"])
_STOP = frozenset(["the", "a", "an", "and", "to", "of", "in", "on", "at", "for", "is", "are",
                   "their", "them", "they", "team", "with", "it", "its", "be", "that",
                   "this"])


def _words(text: str) -> list[str]:
    return [w.strip(".'-").lower() for w in _WORD.findall(text) if w.strip(".'-")]


def exact(found: str, wanted: str) -> bool:
    """The same words (articles and punctuation aside)."""
    return [w for w in _words(found) if w not in _LIGHT] == \
        [w for w in _words(wanted) if w not in _LIGHT]


def equivalent(found: str, wanted: str) -> bool:
    """The same content words, 80 % of the union at least."""
    a = {w for w in _words(found) if w not in _STOP}
    b = {w for w in _words(wanted) if w not in _STOP}
    return bool(a | b) and len(a & b) / len(a | b) >= 0.8


@dataclass
class Score:
    pairs: int = 0
    exact: int = 0
    equivalent: int = 0
    missed: int = 0
    chars_saved: int = 0
    chars_labelled: int = 0

    @property
    def match_rate(self) -> float:
        return (self.exact + self.equivalent) / self.pairs if self.pairs else 0.0

    @property
    def chars_ratio(self) -> float:
        return self.chars_saved / self.chars_labelled if self.chars_labelled else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"pairs": self.pairs, "exact": self.exact, "equivalent": self.equivalent,
                "missed": self.missed, "match_rate": round(self.match_rate, 3),
                "chars_ratio": round(self.chars_ratio, 3)}


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def score(find: Callable[[str], Iterable[tuple[str, str]]], data: list[dict[str, Any]],
          misses: list[str] | None = None) -> Score:
    """``find(text)`` → (target, entry) pairs a reviewer saves from the turn."""
    out = Score()
    for row in data:
        out.pairs += 1
        found = list(find(row["text"]))
        same = [e for t, e in found if t == row["target"]]
        if any(exact(e, row["entry"]) for e in same):
            out.exact += 1
        elif any(equivalent(e, row["entry"]) for e in same):
            out.equivalent += 1
        else:
            out.missed += 1
            if misses is not None:
                misses.append(f"{row['text']!r}: wanted {row['target']} "
                              f"{row['entry']!r}, got {found}")
        if found:
            out.chars_saved += sum(len(e) for _t, e in found)
            out.chars_labelled += len(row["entry"])
    return out
