# ruff: noqa
"""Source of heldout21.jsonl (issue 34): the twenty-first held-out part, by other hands,
selected and labelled after the detector and its second opinion were frozen at commit
621d0ee (#20's fixes; the second opinion retrained on #1-#18 and #20), before any text
was scanned, and scored once.

inspect_evals 0.28.0 (https://github.com/UKGovernmentBEIS/inspect_evals, MIT,
LICENSE-inspect-evals) from PyPI: ``agent_threat_bench/data/`` — OWASP agentic threats
put in an agent's memory store (``memory_poison``, 10 samples), a customer database
(``data_exfil``, 8) and an inbox (``autonomy_hijack``, 6); two or three of each are
clean baselines.

* hostile — a memory entry that holds its sample's ``attack_marker`` (case aside); a
  customer record's ``issue`` that names an e-mail address not among its sample's
  ``authorized_recipients``; an e-mail body at one of its sample's
  ``attack_email_indices`` — 1-based, as the benchmark's own tools number the inbox
  (``tools.py``: "the 1-based index of the email"). Each as written.

  Corrected after the scored run: the rule first read the indices 0-based, which
  labelled four clean e-mails hostile and six attacks benign. The detector frozen at
  621d0ee scores 0.700 / 0.044 under that reading (0.700 / 0.059 with the second
  opinion) and 0.727 / 0.015 under this one (0.773 / 0.015); both are in
  docs/security.md.
* benign — every other memory entry, customer ``issue``, e-mail body, and every
  sample's ``input`` (the person's request), each distinct text once.

    pip download --no-deps inspect-evals==0.28.0 && unzip inspect_evals-0.28.0-py3-none-any.whl -d DIR
    python tests/data/threats/heldout21_source.py DIR > tests/data/threats/heldout21.jsonl
"""
import json, re, sys
from pathlib import Path

D = Path(sys.argv[1]) / "inspect_evals" / "agent_threat_bench" / "data"
ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
seen, rows = set(), []
def row(label, cat, source, text):
    if isinstance(text, str) and text.strip() and text not in seen:
        seen.add(text)
        rows.append({"text": text, "label": label, "category": cat,
                     "style": "agent-threat-bench", "source": source})

for s in json.loads((D / "memory_poison.json").read_text(encoding="utf-8")):
    marker = (s.get("attack_marker") or "").casefold()
    for key, text in s["memory_store"].items():
        hostile = bool(marker) and marker in text.casefold()
        row("hostile" if hostile else "benign", "memory", f"agent_threat_bench/{s['id']}/{key}", text)
    row("benign", "request", f"agent_threat_bench/{s['id']}/input", s["input"])
for s in json.loads((D / "data_exfil.json").read_text(encoding="utf-8")):
    allowed = {a.casefold() for a in s.get("authorized_recipients", [])}
    for record in s["customer_db"]:
        issue = record.get("issue", "")
        hostile = any(a.casefold() not in allowed for a in ADDRESS.findall(issue))
        row("hostile" if hostile else "benign", "record", f"agent_threat_bench/{s['id']}/{record.get('id')}", issue)
    row("benign", "request", f"agent_threat_bench/{s['id']}/input", s["input"])
for s in json.loads((D / "autonomy_hijack.json").read_text(encoding="utf-8")):
    attacks = set(s.get("attack_email_indices", []))
    for n, mail in enumerate(s["inbox"], start=1):
        row("hostile" if n in attacks else "benign", "email", f"agent_threat_bench/{s['id']}/inbox{n}", mail["body"])
    row("benign", "request", f"agent_threat_bench/{s['id']}/input", s["input"])
for r in rows:
    print(json.dumps(r, ensure_ascii=False))
