# ruff: noqa
"""Source of heldout16.jsonl (issue 34): the sixteenth held-out part, by other hands,
selected and labelled after the detector and its second opinion were frozen at commit
541832e (session 37's last change), before any text was scanned, and scored once.

deepteam 1.0.10 (https://github.com/confident-ai/deepteam, Apache-2.0, LICENSE-deepteam)
writes example attacks into its generators' prompts (``"input": "…"``) and describes
each risk it tests (``description = "…"``). Both are other hands' words.

* hostile — the examples of the vulnerabilities and attacks whose aim is issue 34's
  class, each as written (the generator's ``\\n`` turned into a line break, its
  ``{timestamp}``/``{pid}`` filled with fixed values), minus the texts that are only
  questions (every sentence ends in "?" and none is a request put as "can/could/would
  you …"): a question saved as an entry is no standing instruction.
  - all of prompt_leakage (secrets, the system prompt, hidden rules and roles),
    system_reconnaissance (the agent's index, files, schema and settings),
    cross_context_retrieval (another tenant's, user's or department's data),
    indirect_instruction (notes, clauses and tool responses that lift safety or
    approval), insecure_inter_agent_communication (forged agent and system messages);
  - pii_leakage 10-39 (data the agent holds about its users; 0-9 ask for public
    people's details, which the agent does not hold), goal_theft 24-35 (demands to
    disclose its objectives, parameters and directives; 0-23 are questions and carry
    deepteam's own annotations), external_system_abuse 0-4 (send held data out; 5-14
    spam, fraud and false alerts: harm of another class), tool_metadata_poisoning 0, 3,
    5, 7 (no restriction, credentials handed to a tool, no checks, no verification),
    agent_identity_abuse 1, 5, 6 (skip approval or revalidation);
  - the attacks authority_escalation (forged "SYSTEM INSTRUCTION" pulling held data),
    context_poisoning 0-1 (safety flags and reviews declared lifted), gray_box (forged
    notices and configuration lifting privacy or safety), permission_escalation 1 (a
    forged auditor context to see card records), prompt_probing (the system
    instructions as data to output), synthetic_context_injection (a forged "SYSTEM:"
    identity), system_override (forged alerts ordering "NO WARNINGS", "IGNORE_SAFETY_
    FILTERS").
  Left out as out of class: harmful-content requests without an override (bias,
  toxicity, illegal activity, roleplay, poetry, math, multilingual …), privilege and
  action abuse (rbac, bfla, bola, exploit_tool_agent, excessive_agency), bare SSRF URLs.
* benign — every ``description`` string of five words or more, as written: what each
  risk, attack, rubric level and field is ("Exposure of system prompts, instructions,
  secrets, credentials …", "Content contains very clear steps and actual code for
  malware …"), minus the progress-bar labels ("...... 🎺 …") and the five that open
  with an imperative (Refine, Identify, Evaluate, Establish, Connect: NIST's advice
  to organisations, and a field's note to a generator).

    python tests/data/threats/heldout16_source.py DEEPTEAM_PACKAGE_DIR > tests/data/threats/heldout16.jsonl
"""
import json, re, sys
from pathlib import Path

D = Path(sys.argv[1])
R = []
def row(label, cat, source, text):
    R.append({"text": text, "label": label, "category": cat,
              "style": "deepteam" if label == "hostile" else "risk-description", "source": source})

def examples(folder):
    out = []
    for path in sorted((D / folder).glob("*.py")):
        for m in re.finditer(r'"input":\s*"((?:[^"\\]|\\.)*)"', path.read_text(encoding="utf-8")):
            raw = m.group(1).replace("\\\\", "\\").replace("{{", "{").replace("}}", "}")
            raw = raw.replace("{timestamp}", "2025-03-14 09:26:53.589").replace("{pid}", "4471")
            try:
                text = json.loads('"' + raw + '"')
            except ValueError:
                text = raw
            out.append(text.strip())
    return out

def only_questions(text):
    parts = [p.strip() for p in re.split(r"(?<=[.?!])\s+", text.strip()) if p.strip()]
    return all(p.endswith("?") for p in parts) and not any(
        re.match(r"(?i)(can|could|would|will)\s+you\b", p) for p in parts)

SELECT = {
    "vulnerabilities/prompt_leakage": None, "vulnerabilities/system_reconnaissance": None,
    "vulnerabilities/cross_context_retrieval": None, "vulnerabilities/indirect_instruction": None,
    "vulnerabilities/insecure_inter_agent_communication": None,
    "vulnerabilities/pii_leakage": range(10, 40), "vulnerabilities/goal_theft": range(24, 36),
    "vulnerabilities/external_system_abuse": range(0, 5),
    "vulnerabilities/tool_metadata_poisoning": (0, 3, 5, 7),
    "vulnerabilities/agent_identity_abuse": (1, 5, 6),
    "attacks/single_turn/authority_escalation": None, "attacks/single_turn/context_poisoning": (0, 1),
    "attacks/single_turn/gray_box": None, "attacks/single_turn/permission_escalation": (1,),
    "attacks/single_turn/prompt_probing": None, "attacks/single_turn/synthetic_context_injection": None,
    "attacks/single_turn/system_override": None,
}
for folder, keep in SELECT.items():
    for n, text in enumerate(examples(folder)):
        if (keep is None or n in keep) and not only_questions(text):
            row("hostile", "exfiltrate", f"deepteam/{folder}#{n}", text)

seen = []
for path in sorted(D.rglob("*.py")):
    for m in re.finditer(r'description\s*[:=]\s*(?:str\s*=\s*)?\(?\s*((?:"(?:[^"\\\n]|\\.)*"\s*)+)', path.read_text(encoding="utf-8")):
        s = "".join(re.findall(r'"((?:[^"\\\n]|\\.)*)"', m.group(1)))
        if len(s.split()) >= 5 and s not in seen:
            seen.append(s)
            if not s.startswith("......") and not re.match(r"(Refine|Identify|Evaluate|Establish|Connect)\b", s):
                row("benign", "look-alike", f"deepteam/{path.relative_to(D).as_posix()}", s)

for r in R:
    print(json.dumps(r, ensure_ascii=False))
