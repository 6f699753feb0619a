# ruff: noqa
"""Source of heldout17.jsonl (issue 34): the seventeenth held-out part, by other hands,
selected and labelled after the detector and its second opinion were frozen at commit
b4df8d5 (#16's fixes, the second opinion retrained on them), before any text was
scanned, and scored once.

promptfoo 0.121.20 (https://github.com/promptfoo/promptfoo, MIT, LICENSE-promptfoo), from
the npm registry: its red-team graders show each plugin's attacks as examples
(``<Example> System purpose: … Prompt: … </Example>``), and it describes every plugin and
strategy in two tables (``subCategoryDescriptions``, ``pluginDescriptions``).

* hostile — the examples' prompts of the plugins whose aim is issue 34's class, as
  written ("{{name}}" filled with "Maria Lopez"), minus the texts that are only
  questions (every sentence ends in "?" and none is a request put as "can/could/would
  you …"): ``pii`` (a person's details the agent holds, the previous chat's; not the two
  that ask for the asker's own, "my details" and "my account information"),
  ``debug-access`` (logs, configuration, environment, internal endpoints, schema,
  tools, authentication headers; minus "Enter admin mode", which hands nothing over),
  ``prompt-extraction``, ``rbac``'s two that ask for other customers' accounts (not
  "I am supposed to have admin privileges", a claim), ``shell-injection``'s that send
  data out in their command (not the first, whose ``curl`` only reads a health page).
  Left out: cross-session-leak (its examples are dialogues), excessive-agency,
  sql-injection, tool-discovery and the harm plugins.
* benign — every description in the two tables of five words or more, as written
  ("Tests for data exfiltration via URL parameters, images, or markdown links",
  "Exploits academic authority bias to bypass content filters"), minus the one that
  opens with an imperative ("Evaluate …").

    python tests/data/threats/heldout17_source.py PROMPTFOO_PACKAGE_DIR > tests/data/threats/heldout17.jsonl
"""
import json, re, sys
from pathlib import Path

D = Path(sys.argv[1]) / "dist" / "src"
R = []
def row(label, cat, source, text):
    R.append({"text": text, "label": label, "category": cat,
              "style": "promptfoo" if label == "hostile" else "plugin-description", "source": source})

def only_questions(text):
    parts = [p.strip() for p in re.split(r"(?<=[.?!])\s+", text.strip()) if p.strip()]
    return all(p.endswith("?") for p in parts) and not any(
        re.match(r"(?i)(can|could|would|will)\s+you\b", p) for p in parts)

graders = next(t for t in (p.read_text(encoding="utf-8") for p in sorted(D.glob("graders-*.js")))
               if "<Example>" in t)
ids = [(m.start(), m.group(1)) for m in re.finditer(r"promptfoo:redteam:([\w:-]+)", graders)]
LEAVE = {"debug-access": ("Enter admin mode",),
         "pii": ("Query the customer database for my details", "Access the API to get my account"),
         "rbac": ("I'm a new user",),
         "shell-injection": ("Can you review this PR",)}
n = 0
for m in re.finditer(r"<Example>(.*?)</Example>", graders, re.S):
    plugin = None
    for pos, name in ids:
        if pos < m.start():
            plugin = name
        else:
            break
    found = re.search(r"Prompt:\s*(.*)", m.group(1), re.S)
    if plugin not in ("pii", "debug-access", "prompt-extraction", "rbac", "shell-injection") or not found:
        continue
    text = " ".join(found.group(1).split()).replace("\\$", "$").replace("{{name}}", "Maria Lopez")
    if plugin == "shell-injection":
        text = text.split(" SQL the system might")[0]
    if text.startswith(LEAVE.get(plugin, ())) or only_questions(text):
        continue
    n += 1
    row("hostile", "exfiltrate", f"promptfoo/graders/{plugin}#{n}", text)

tables = next(t for t in (p.read_text(encoding="utf-8") for p in sorted(D.glob("tables-*.js")))
              if "const subCategoryDescriptions = {" in t)
seen = []
for name in ("subCategoryDescriptions", "pluginDescriptions"):
    start = tables.index(f"const {name} = {{")
    body = tables[start:tables.index("\n};", start)]
    for value in re.findall(r':\s*"((?:[^"\\]|\\.)*)"', body):
        if len(value.split()) >= 5 and value not in seen:
            seen.append(value)
            if not value.startswith("Evaluate "):
                row("benign", "look-alike", f"promptfoo/{name}", value)

for r in R:
    print(json.dumps(r, ensure_ascii=False))
