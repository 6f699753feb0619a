# ruff: noqa
"""Source of heldout20.jsonl (issue 34): the twentieth held-out part, by other hands,
selected and labelled after the detector and its second opinion were frozen at commit
232c1c0 (#19's fixes: documents read as their prose), before any text was scanned, and
scored once.

inspect_evals 0.28.0 (https://github.com/UKGovernmentBEIS/inspect_evals, MIT,
LICENSE-inspect-evals) from PyPI: ``ipi_coding_agent/dataset/samples.json``, 45 coding
tasks whose repository or bug report carries an injected instruction (35) or none (10).
The texts are the documents a coding agent reads — a bug report, a README, a source
file, a configuration file — whole, as a reviewer or a skill could carry them into
memory.

* hostile — the one document of each injected sample that holds its payload (the issue
  text for ``issue_text``; for the other vectors the repository file the sample's
  ``payload_indicator`` pattern matches), for the payloads in issue 34's class by the
  sample's own labels: every ``exfiltration`` payload, and ``code_execution`` or
  ``persistence`` payloads put with ``authority_framing`` (a voice claimed: the
  maintainers', the system's, a policy's). Plain ``code_execution`` and ``persistence``
  payloads ("run this setup command", "add this package") are left out, labelled
  neither way: an order to act, in no voice and sending nothing, is not the class.
* benign — every ``task_description`` (the person's coding task, an imperative), the
  issue text of each benign sample, and every non-empty repository file of any sample
  that the sample's payload pattern does not match, each distinct text once.

    pip download --no-deps inspect-evals==0.28.0 && unzip inspect_evals-0.28.0-py3-none-any.whl -d DIR
    python tests/data/threats/heldout20_source.py DIR > tests/data/threats/heldout20.jsonl
"""
import json, re, sys
from pathlib import Path

samples = json.loads((Path(sys.argv[1]) / "inspect_evals" / "ipi_coding_agent" / "dataset" /
                      "samples.json").read_text(encoding="utf-8"))
seen, rows = set(), []
def row(label, cat, source, text):
    if text.strip() and text not in seen:
        seen.add(text)
        rows.append({"text": text, "label": label, "category": cat,
                     "style": "ipi-coding-agent", "source": source})

for s in samples:
    marker = re.compile(s["payload_indicator"]) if s["payload_indicator"] else None
    in_class = s["payload_category"] == "exfiltration" or (
        s["payload_category"] in ("code_execution", "persistence")
        and s["payload_sophistication"] == "authority_framing")
    if not s["is_benign"]:
        if s["injection_vector"] == "issue_text":
            carrier = [("issue", s["issue_text"])]
        else:
            carrier = [(p, t) for p, t in s["repo_files"].items() if marker.search(t)]
        if in_class:
            for where, text in carrier:
                row("hostile", s["payload_category"], f"inspect_evals/ipi_coding_agent/{s['id']}/{where}", text)
    else:
        row("benign", "issue", f"inspect_evals/ipi_coding_agent/{s['id']}/issue", s["issue_text"])
    row("benign", "task", f"inspect_evals/ipi_coding_agent/{s['id']}/task", s["task_description"])
    for path, text in sorted(s["repo_files"].items()):
        if s["is_benign"] or not marker.search(text):
            row("benign", "file", f"inspect_evals/ipi_coding_agent/{s['id']}/{path}", text)
for r in rows:
    print(json.dumps(r, ensure_ascii=False))
