"""Which skills are relevant to a message: TF-IDF cosine over each skill's name,
description, tags and body (seed 004), at most ``procedural.max_skills_injected`` (3)
above ``procedural.relevance_threshold`` (0.15).  Deterministic: ties go to the name."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["SkillScorer", "tokens"]

_TOKEN = re.compile(r"[a-z0-9][a-z0-9_+#.-]*[a-z0-9+#]|[a-z0-9]")
_STOP = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "from", "how", "i",
    "in", "is", "it", "its", "me", "my", "of", "on", "or", "our", "so", "that", "the", "this",
    "to", "we", "what", "when", "where", "which", "who", "why", "with", "you", "your", "can",
    "could", "should", "would", "will", "use", "using", "please", "help", "want", "need",
))


def tokens(text: str) -> list[str]:
    """Lower-case words (``chat-send``, ``c++`` and ``p2.2`` stay whole), stop words out;
    a hyphenated word also counts its parts."""
    out = []
    for token in _TOKEN.findall(text.lower()):
        if token in _STOP:
            continue
        out.append(token)
        if "-" in token or "_" in token:
            out += [p for p in re.split(r"[-_]", token) if p and p not in _STOP]
    return out


@dataclass(frozen=True)
class _Doc:
    name: str
    weights: dict[str, float]
    norm: float


class SkillScorer:
    """TF-IDF vectors of a set of skills, built once, scored against any message."""

    def __init__(self, texts: Mapping[str, str]) -> None:
        counted = {name: Counter(tokens(text)) for name, text in texts.items()}
        df: Counter[str] = Counter()
        for counts in counted.values():
            df.update(counts.keys())
        n = len(counted)
        self.idf = {t: math.log((n + 1) / (d + 1)) + 1.0 for t, d in df.items()}
        self.docs: list[_Doc] = []
        for name in sorted(counted):
            counts = counted[name]
            total = sum(counts.values()) or 1
            weights = {t: c / total * self.idf[t] for t, c in counts.items()}
            norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
            self.docs.append(_Doc(name, weights, norm))
        # term → the docs holding it, so a message touches only those
        self.postings: dict[str, list[int]] = {}
        for i, doc in enumerate(self.docs):
            for term in doc.weights:
                self.postings.setdefault(term, []).append(i)

    def score(self, message: str) -> list[tuple[str, float]]:
        """(skill, cosine) for every skill sharing a term with ``message``, best first."""
        counts = Counter(t for t in tokens(message) if t in self.idf)
        if not counts:
            return []
        total = sum(counts.values())
        query = {t: c / total * self.idf[t] for t, c in counts.items()}
        qnorm = math.sqrt(sum(w * w for w in query.values())) or 1.0
        dots: dict[int, float] = {}
        for term, weight in query.items():
            for i in self.postings.get(term, ()):
                dots[i] = dots.get(i, 0.0) + weight * self.docs[i].weights[term]
        scored = [(self.docs[i].name, dot / (self.docs[i].norm * qnorm))
                  for i, dot in dots.items()]
        return sorted(scored, key=lambda kv: (-kv[1], kv[0]))

    def top(self, message: str, *, limit: int = 3, threshold: float = 0.15
            ) -> Sequence[tuple[str, float]]:
        """At most ``limit`` skills scoring at least ``threshold``."""
        return [(n, s) for n, s in self.score(message) if s >= threshold][:limit]
