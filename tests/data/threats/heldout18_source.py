# ruff: noqa
"""Source of heldout18.jsonl (issue 34): the eighteenth held-out part, by other hands,
selected and labelled after the detector and its second opinion were frozen at commit
f47480f (#16's and #17's fixes), before any text was scanned, and scored once.

From PyRIT 1.1.0 (https://github.com/Azure/PyRIT, MIT, (c) Microsoft Corporation;
``LICENSE-pyrit``), the parts #12 did not take:

* hostile — the jailbreak templates in the sub-folders of ``datasets/jailbreak/
  templates`` (#12 read only the top folder's): ``Arth_Singh/`` (30), ``pliny/*/``
  (42), ``multi_parameter/`` (5), each read whole and labelled by #12's rule: hostile
  when it tells the model its rules, policies, filters, ethics or earlier instructions
  are dropped, suspended or do not bind it, never to refuse, or plays a persona free of
  them, or forges a system turn that does so; left out when it only argues, frames or
  shapes the answer (a fiction, a few-shot series, an emergency, a thought experiment,
  a format, no disclaimers).  Left out by reading: Arth_Singh's acausal_defense,
  black_mirror_episode, consciousness_upload, context_hijack, dual_consciousness,
  fewshot_alignment, fewshot_escalation, fewshot_redteam_eval, godel_incompleteness,
  pentest_authorization and trolley_problem; pliny's amazon/rufus (a format only);
  multi_parameter's many_shot_template and menz_health_disinformation_1 (no
  disclaimers, a fiction).  ``{{ prompt }}`` (and ``{{ prompt_in_greek }}``, a
  ``{{ target_group }}``) read as "[PROMPT]", "[TARGET]"; Jinja's raw markers removed.
* benign — every sentence (6-45 words, no template field) of the scoring rubrics #12
  did not take: ``datasets/score/{refusal,likert,scales,llamaguard,shieldgemma,
  content_classifiers,insecure_code}``.

    python tests/data/threats/heldout18_source.py PYRIT_DATASETS > tests/data/threats/heldout18.jsonl
(PYRIT_DATASETS: the unpacked wheel's ``pyrit/datasets``.)
"""
import json, re, sys
from pathlib import Path

import yaml

D = Path(sys.argv[1])
R = []
def row(label, cat, source, text):
    R.append({"text": text, "label": label, "category": cat,
              "style": "pyrit-jailbreak" if label == "hostile" else "rubric", "source": source})

LEFT_OUT = {"acausal_defense", "black_mirror_episode", "consciousness_upload", "context_hijack",
            "dual_consciousness", "fewshot_alignment", "fewshot_escalation",
            "fewshot_redteam_eval", "godel_incompleteness", "pentest_authorization",
            "trolley_problem", "rufus", "many_shot_template", "menz_health_disinformation_1"}
T = D / "jailbreak/templates"
for f in sorted([*T.glob("Arth_Singh/*.yaml"), *T.glob("pliny/*/*.yaml"), *T.glob("multi_parameter/*.yaml")]):
    if f.stem in LEFT_OUT:
        continue
    value = str(yaml.safe_load(f.read_text(encoding="utf-8"))["value"])
    text = re.sub(r"\{%-?\s*(?:end)?raw\s*-?%\}", "", value)
    text = re.sub(r"\{\{\s*'(\{\{|\}\})'\s*\}\}", r"\1", text)
    text = re.sub(r"\{\{\s*prompt(?:_in_greek)?\s*\}\}", "[PROMPT]", text)
    text = re.sub(r"\{\{\s*target_group\s*\}\}", "[TARGET]", text).strip()
    row("hostile", "override", f"jailbreak/templates/{f.relative_to(T).as_posix()}", text)

def walk(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for v in node.values():
            yield from walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from walk(v)

seen = []
S = D / "score"
for f in sorted(p for d in ("refusal", "likert", "scales", "llamaguard", "shieldgemma",
                            "content_classifiers", "insecure_code") for p in (S / d).glob("*.yaml")):
    for text in walk(yaml.safe_load(f.read_text(encoding="utf-8"))):
        for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", " ".join(text.split())):
            if 6 <= len(s.split()) <= 45 and "{{" not in s and "{%" not in s and s not in seen:
                seen.append(s)
                row("benign", "look-alike", f"score/{f.parent.name}/{f.name}", s)

for r in R:
    print(json.dumps(r, ensure_ascii=False))
