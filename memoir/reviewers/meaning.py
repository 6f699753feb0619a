"""The semantic reviewer (``reviewers.backend: semantic``, needs ``memoir[semantic]``):
the rule reviewer, plus a classifier over the embeddings of each clause of the user's
messages, which saves the clauses the rules have no pattern for.

The classifier is a softmax regression (``none``, ``user``, ``memory``) over the 384
numbers of all-MiniLM-L6-v2, trained on the labelled turns of ``tests/data/`` (the
rules' corpus and the nine styles of ``tests/data/reviews/``; never the held-out part)
and shipped as data (``meaning_model.json``, written by
``tests/data/reviews/make_model.py``).  A clause whose best class is ``user`` or
``memory`` with probability at least :data:`THRESHOLD` becomes an entry of that target,
as written; what the rules find is kept as they find it.  Clauses are cut as the rules
cut them: a sentence holding a threat or a credential is left out whole, fenced code
and questions too.

Measured on a held-out part written after it was frozen (docs/reviewers.md): precision
0.81, recall 0.64, against the rules' 0.82 and 0.19 - the same precision, three times
the recall, short of issue 24's target of 0.9 precision; hence opt-in.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from memoir.errors import ConfigError
from memoir.recall.semantic import MODEL_NAME, Encoder, shared_encoder
from memoir.reviewers.rules import Finding, RulesBackend, _entry, _same, _sentences, extract

__all__ = ["CLASSES", "MODEL_FILE", "THRESHOLD", "Classifier", "SemanticBackend", "clauses",
           "train"]

CLASSES = ("none", "user", "memory")
THRESHOLD = 0.5
MODEL_FILE = Path(__file__).with_name("meaning_model.json")
_FENCE = re.compile(r"```.*?(?:```|$)", re.S)


def clauses(text: str) -> list[str]:
    """The clauses of a user message the classifier looks at."""
    return [c for c in _sentences(_FENCE.sub(" ", text)) if not c.endswith("?")]


def _label(clause: str, row: Mapping[str, Any]) -> int:
    low = clause.casefold()
    if any(p.casefold() in low for p in row["user"]):
        return 1
    return 2 if any(p.casefold() in low for p in row["memory"]) else 0


def train(rows: Iterable[Mapping[str, Any]], encoder: Encoder, *, epochs: int = 400,
          rate: float = 0.5, l2: float = 1e-3) -> dict[str, Any]:
    """The model, as :data:`MODEL_FILE` holds it, from labelled turns (``text``, and the
    phrases an entry of each target must hold: ``user``, ``memory``).  Deterministic:
    class-balanced gradient descent from zero."""
    import numpy as np

    texts: list[str] = []
    labels: list[int] = []
    digest = hashlib.blake2b(digest_size=16)
    for row in rows:
        digest.update(json.dumps(row, sort_keys=True, ensure_ascii=False).encode())
        for clause in clauses(row["text"]):
            texts.append(clause)
            labels.append(_label(clause, row))
    x = encoder.encode(texts).astype(np.float64)
    y = np.array(labels)
    weight = (len(y) / (3 * np.maximum(np.bincount(y, minlength=3), 1)))[y][:, None]
    onehot = np.eye(3)[y]
    w, b = np.zeros((3, x.shape[1])), np.zeros(3)
    for _ in range(epochs):
        z = x @ w.T + b
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        g = (p - onehot) * weight / len(y)
        w -= rate * (g.T @ x + l2 * w)
        b -= rate * g.sum(axis=0)
    return {"model": MODEL_NAME, "classes": list(CLASSES), "threshold": THRESHOLD,
            "clauses": len(texts), "trained_on": digest.hexdigest(),
            "weights": [[round(float(v), 7) for v in row] for row in w],
            "bias": [round(float(v), 7) for v in b]}


class Classifier:
    """The shipped model, checked as it is read (it is a file: shapes, classes and the
    embedding model it was trained on are verified, not trusted)."""

    def __init__(self, data: Mapping[str, Any], encoder: Encoder) -> None:
        import numpy as np

        if data.get("model") != MODEL_NAME or tuple(data.get("classes", ())) != CLASSES:
            raise ConfigError(f"the semantic reviewer's model was trained on "
                              f"{data.get('model')!r} with classes {data.get('classes')!r}; "
                              f"this memoir embeds with {MODEL_NAME}")
        self.w = np.array(data["weights"], dtype=np.float32)
        self.b = np.array(data["bias"], dtype=np.float32)
        if self.w.shape != (3, encoder.dim) or self.b.shape != (3,) or \
                not np.isfinite(self.w).all() or not np.isfinite(self.b).all():
            raise ConfigError("the semantic reviewer's model has weights of the wrong shape "
                              "or non-finite values")
        self.threshold = float(data.get("threshold", THRESHOLD))
        self.encoder = encoder
        self._np = np

    @classmethod
    def shipped(cls) -> Classifier:
        return cls(json.loads(MODEL_FILE.read_text(encoding="utf-8")), shared_encoder())

    def find(self, text: str, threshold: float | None = None) -> list[Finding]:
        """What the rules find in ``text``, and the clauses the model gives a target."""
        np = self._np
        found = list(extract(text))
        parts = clauses(text)
        if not parts:
            return found
        z = self.encoder.encode(parts) @ self.w.T + self.b
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        cut = self.threshold if threshold is None else threshold
        for clause, probs in zip(parts, p, strict=True):
            k = int(probs.argmax())
            if k and probs[k] >= cut:
                entry = _entry(clause)
                if not any(_same(entry, f.text) for f in found):
                    found.append(Finding(CLASSES[k], entry))
        return found


class SemanticBackend(RulesBackend):
    """The rule reviewer's writing (no duplicates, keyed facts replaced, room made),
    with :meth:`Classifier.find` as what it finds."""

    name = "semantic"

    def __init__(self, classifier: Classifier | None = None) -> None:
        self.classifier = classifier or Classifier.shipped()

    def findings(self, text: str) -> list[Finding]:
        return self.classifier.find(text)
