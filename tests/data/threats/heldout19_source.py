# ruff: noqa
"""Source of heldout19.jsonl (issue 34): the nineteenth held-out part, by other hands,
selected and labelled after the detector and its second opinion were frozen at commit
2a3e73b (#18's fixes and their review), before any text was scanned, and scored once.

It measures false refusals only: real skills, the documents the curator, the reviewers
and ``skill_manage`` write whole and the scan reads whole. hermes-agent 0.19.0
(https://github.com/NousResearch/hermes-agent, MIT, LICENSE-hermes-agent), its source
distribution on PyPI: the skills Hermes bundles (``skills/``) and offers
(``optional-skills/``), which a Hermes user's agent reads, patches and the curator
consolidates.

* benign — every ``SKILL.md`` under the two folders, whole and as written (its
  frontmatter included), of at most 100,000 characters (``MAX_SKILL_CHARS``: a larger
  one cannot be written by a tool call at all); minus ``optional-skills/security/godmode``,
  whose purpose is writing prompts that make a model drop its rules (issue 34's class
  itself), left out and labelled neither way.
* hostile — none.

    pip download --no-deps --no-binary :all: hermes-agent==0.19.0 -d DIR && tar xzf DIR/hermes_agent-0.19.0.tar.gz -C DIR
    python tests/data/threats/heldout19_source.py DIR/hermes_agent-0.19.0 > tests/data/threats/heldout19.jsonl
"""
import json, sys
from pathlib import Path

ROOT = Path(sys.argv[1])
LEAVE = {"optional-skills/security/godmode"}
for path in sorted(p for top in ("skills", "optional-skills") for p in (ROOT / top).rglob("SKILL.md")):
    folder = path.parent.relative_to(ROOT).as_posix()
    text = path.read_text(encoding="utf-8")
    if folder in LEAVE or len(text) > 100_000:
        continue
    print(json.dumps({"text": text, "label": "benign", "category": folder.split("/")[1],
                      "style": "hermes-skill", "source": f"hermes-agent/{folder}"},
                     ensure_ascii=False))
