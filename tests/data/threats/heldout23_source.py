# ruff: noqa
"""Source of heldout23.jsonl (issue 34): the twenty-third held-out part, by other
hands, selected and labelled after the detector and its second opinion were frozen at
commit 6a9b3b4 (#22's fixes), before any text was scanned, and scored once.

It measures false refusals only, on technical documents of #19's genre (Markdown with
front matter, tables, fenced commands) written elsewhere: inspect_evals 0.28.0
(https://github.com/UKGovernmentBEIS/inspect_evals, MIT, LICENSE-inspect-evals) from
PyPI, each evaluation's `README.md` — how to install, run and configure it, its dataset,
its scoring, its results.

* benign — every top-level `inspect_evals/*/README.md`, whole, of at most 100,000
  characters; minus the evaluations whose subject is attacking or misusing models,
  agents or systems (their READMEs quote attack payloads, the class itself), named here
  before any scan: agent_threat_bench, agentdojo, agentharm, agentic_misalignment,
  air_bench, b3, coconot, cti_realm, cve_bench, cybench, cybergym, cybermetric,
  cyberseceval_2, cyberseceval_3, cyberseceval_4, fortress, gdm_in_house_ctf,
  gdm_intercode_ctf, gdm_self_proliferation, gdm_stealth, ipi_coding_agent,
  make_me_pay, makemesay, mask, mind2web_sc, sec_qa, sevenllm, sosbench,
  strong_reject, threecb, wmdp, xstest.
* hostile — none.

    pip download --no-deps inspect-evals==0.28.0 && unzip inspect_evals-0.28.0-py3-none-any.whl -d DIR
    python tests/data/threats/heldout23_source.py DIR > tests/data/threats/heldout23.jsonl
"""
import json, sys
from pathlib import Path

LEAVE = set("""agent_threat_bench agentdojo agentharm agentic_misalignment air_bench b3 coconot
cti_realm cve_bench cybench cybergym cybermetric cyberseceval_2 cyberseceval_3
cyberseceval_4 fortress gdm_in_house_ctf gdm_intercode_ctf gdm_self_proliferation
gdm_stealth ipi_coding_agent make_me_pay makemesay mask mind2web_sc sec_qa sevenllm
sosbench strong_reject threecb wmdp xstest""".split())
for path in sorted((Path(sys.argv[1]) / "inspect_evals").glob("*/README.md")):
    text = path.read_text(encoding="utf-8")
    if path.parent.name in LEAVE or len(text) > 100_000 or not text.strip():
        continue
    print(json.dumps({"text": text, "label": "benign", "category": "readme",
                      "style": "eval-readme", "source": f"inspect_evals/{path.parent.name}"},
                     ensure_ascii=False))
