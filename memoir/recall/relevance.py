"""Which skills are relevant to a message: TF-IDF cosine over each skill's name,
description, tags and body (seed 004), at most ``procedural.max_skills_injected`` (3)
above ``procedural.relevance_threshold`` (0.15).  Deterministic: ties go to the name.

With the semantic extra, :class:`MeaningScorer` ranks the same skills by the cosine of
their embeddings with the message's (``procedural.relevance``), above
``procedural.semantic_threshold``."""

from __future__ import annotations

import hashlib
import math
import re
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memoir import lazyre
from memoir.semantic import Encoder

__all__ = ["MeaningScorer", "SkillScorer", "tokens"]

_TOKEN = lazyre.compile(r"[a-z0-9][a-z0-9_+#.-]*[a-z0-9+#]|[a-z0-9]")
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


_VECTORS: dict[tuple[str, bytes], Any] = {}
_VECTORS_LOCK = threading.Lock()
_VECTORS_MAX = 50_000


class MeaningScorer:
    """Skills by meaning: each skill's text embedded once per process (kept by its
    digest, so a session's scorer costs only the skills it has not seen), the message
    embedded per call, ranked by cosine.  Deterministic for one model: ties go to the
    name."""

    def __init__(self, texts: Mapping[str, str], encoder: Encoder) -> None:
        import numpy as np

        self.encoder = encoder
        self.names = sorted(texts)
        keys = [(encoder.version, hashlib.blake2b(texts[n].encode(), digest_size=16).digest())
                for n in self.names]
        with _VECTORS_LOCK:
            found = [_VECTORS.get(key) for key in keys]
        todo = [i for i, vector in enumerate(found) if vector is None]
        if todo:
            made = encoder.encode([texts[self.names[i]] for i in todo])
            with _VECTORS_LOCK:
                if len(_VECTORS) + len(todo) > _VECTORS_MAX:
                    _VECTORS.clear()
                for row, i in enumerate(todo):
                    found[i] = _VECTORS[keys[i]] = made[row]
        self.matrix = np.array(found, dtype=np.float32).reshape(len(self.names), encoder.dim)

    def top(self, message: str, *, limit: int = 3, threshold: float = 0.25,
            margin: float = 0.05) -> Sequence[tuple[str, float]]:
        """At most ``limit`` skills whose cosine with ``message`` is at least
        ``threshold`` and within ``margin`` of the best one's, best first (a skill far
        behind the best is rarely what the message needs)."""
        if not self.names or not message.strip() or limit <= 0:
            return []
        scores = self.matrix @ self.encoder.encode([message])[0]
        ranked = sorted(((self.names[i], round(float(v), 6)) for i, v in enumerate(scores)),
                        key=lambda kv: (-kv[1], kv[0]))
        floor = max(threshold, ranked[0][1] - margin)
        return [(n, v) for n, v in ranked if v >= floor][:limit]
