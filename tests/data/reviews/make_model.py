"""Writes memoir/reviewers/semantic_model.json, the semantic reviewer's classifier, from
the labelled turns it is trained on: the rules' corpus (../review_corpus.jsonl), the
styles here (*.jsonl) and the held-out parts scored once and then trained on (retired/:
written after the second version was frozen; holdout4/: after c0bc36d); never a held-out
part still kept apart (holdout/, holdout3/).

    .venv/bin/python tests/data/reviews/make_model.py

tests/reviewers/test_semantic_reviewer.py fails when the shipped file was trained on
other turns than these."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def training_rows() -> list[dict[str, Any]]:
    paths = [HERE.parent / "review_corpus.jsonl", *sorted(HERE.glob("*.jsonl")),
             *sorted((HERE / "retired").glob("*.jsonl")),
             *sorted((HERE / "holdout4").glob("*.jsonl"))]
    return [json.loads(line) for path in paths
            for line in path.read_text(encoding="utf-8").splitlines()]


def main() -> None:
    from memoir.reviewers.semantic import MODEL_FILE, train
    from memoir.semantic import shared_encoder

    model = train(training_rows(), shared_encoder())
    MODEL_FILE.write_text(json.dumps(model) + "\n", encoding="utf-8")
    print(f"wrote {MODEL_FILE.name}: {model['clauses']} clauses, {model['trained_on']}")


if __name__ == "__main__":
    main()
