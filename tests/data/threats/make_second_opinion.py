"""Build memoir/threats/second_opinion.json, the semantic second opinion's model, from
the labelled parts the detector has been worked on with (never a held-out part not yet
scored).

Every text that is not a disguise of another (the detector's readings undo those) is
embedded as a person reads it, by the packaged encoder.  A logistic regression (L2
:data:`L2`, :data:`STEPS` steps of full-batch gradient descent from zero, so the same
data gives the same weights) learns hostile against benign look-alike; the category of
a refusal is that of the nearest category centroid.  Run again when a part becomes
training data or the encoder's version changes (a test compares).

    .venv/bin/python tests/data/threats/make_second_opinion.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
OUT = HERE.parents[2] / "memoir" / "threats" / "second_opinion.json"
#: The parts the detector has been worked on with (docs/security.md).
PARTS = ("train.jsonl", "heldout.jsonl", "heldout2.jsonl", "heldout3.jsonl",
         "heldout4.jsonl", "heldout5.jsonl", "heldout6.jsonl",
         "heldout7.jsonl", "heldout8.jsonl", "heldout9.jsonl", "heldout10.jsonl",
         "heldout11.jsonl", "heldout12.jsonl", "heldout13.jsonl", "heldout14.jsonl",
         "heldout15.jsonl", "heldout16.jsonl", "heldout17.jsonl", "heldout18.jsonl",
         "heldout20.jsonl", "heldout21.jsonl",
         # how a person likes answers shaped: benign, and worded like "disclose"
         "benign_preferences.jsonl")
#: Disguises of a text already in the set.
DISGUISES = {"confusable", "invisible", "shouting", "fullwidth", "spaced", "leet",
             "obfuscated"}
L2, STEPS, RATE = 1e-4, 3000, 2.0
#: Conversation text that is no instruction to the agent: what a reviewer offers most.
#: (The repo's other conversation corpora, ``tests/data/reviews`` and
#: ``review_holdout.jsonl``, stay out: they are where false refusals are counted.)
CONVERSATIONS = ("review_corpus.jsonl", "recall_sessions.json")


def _conversation_texts() -> list[str]:
    data = HERE.parent
    texts = [json.loads(line)["text"] for line in
             (data / "review_corpus.jsonl").read_text(encoding="utf-8").splitlines()
             if line.strip()]
    for turns in json.loads((data / "recall_sessions.json").read_text(encoding="utf-8"))\
            .values():
        texts.extend(t for t in turns if isinstance(t, str))
    return texts


def examples() -> tuple[list[str], list[str]]:
    texts: list[str] = []
    categories: list[str] = []
    for part in PARTS:
        with (HERE / part).open(encoding="utf-8") as f:
            for line in f:
                row = json.loads(line)
                if row.get("style") in DISGUISES or row["text"] in texts:
                    continue
                texts.append(row["text"])
                categories.append(row["category"] if row["label"] == "hostile" else "benign")
    for text in _conversation_texts():
        if text not in texts:
            texts.append(text)
            categories.append("benign")
    return texts, categories


def vectors(texts: list[str]) -> Any:
    """The texts' embeddings as the second opinion reads them (float64 rows)."""
    import numpy as np

    from memoir.semantic import shared_encoder
    from memoir.threats.second_opinion import _as_read

    return shared_encoder().encode([_as_read(t) for t in texts]).astype(np.float64)


def model() -> dict[str, Any]:
    texts, categories = examples()
    return fit(vectors(texts), categories)


def fit(x: Any, categories: list[str]) -> dict[str, Any]:
    """The model trained on embeddings ``x`` of texts labelled ``categories``."""
    import numpy as np

    from memoir.semantic import shared_encoder

    encoder = shared_encoder()
    y = np.array([c != "benign" for c in categories], dtype=np.float64)
    w, b = np.zeros(x.shape[1]), 0.0
    for _ in range(STEPS):
        p = 1.0 / (1.0 + np.exp(-(x @ w + b)))
        w -= RATE * (x.T @ (p - y) / len(y) + L2 * w)
        b -= RATE * float((p - y).mean())
    centroids = {}
    for category in sorted(set(categories) - {"benign"}):
        mean = x[[c == category for c in categories]].mean(axis=0)
        centroids[category] = [round(float(v), 6) for v in mean / np.linalg.norm(mean)]
    return {"encoder": encoder.version, "parts": [*PARTS, *CONVERSATIONS],
            "examples": len(categories),
            "hostile": int(y.sum()), "l2": L2, "steps": STEPS,
            "weights": [round(float(v), 6) for v in w], "bias": round(b, 6),
            "centroids": centroids}


def main() -> None:
    built = model()
    OUT.write_text(json.dumps(built, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{built['examples']} examples ({built['hostile']} hostile) -> {OUT.name}")


if __name__ == "__main__":
    main()
