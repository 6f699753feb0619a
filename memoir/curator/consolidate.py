"""Turning a validated plan into skill events: umbrellas written, siblings absorbed.

An absorbed skill is demoted into its umbrella, never lost: its SKILL.md becomes
``references/<skill>.md`` of the umbrella (frontmatter turned into a heading), its
support files move under ``<dir>/<skill>/`` (links in its text rewritten to match, so
the package keeps working), the umbrella's SKILL.md gains an index line pointing at
it, and the skill itself is archived with ``absorbed_into`` set.  Pruned skills are
archived with their reason.  Nothing is ever deleted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import yaml

from memoir import lazyre
from memoir.curator.plans import Plan
from memoir.events.skills import SkillArchived, SkillContentSet, SkillCreated, SkillFileWritten
from memoir.events.types import Payload
from memoir.projections.skills import SkillRecord

__all__ = ["INDEX_HEADING", "description_of", "plan_events", "split_frontmatter"]

INDEX_HEADING = "## Absorbed skills"
_FRONTMATTER = lazyre.compile(r"\A\ufeff?---[ \t]*\n(.*?)\n---[ \t]*(?:\n|\Z)", re.DOTALL)


def split_frontmatter(text: str) -> tuple[dict[str, object], str]:
    """SKILL.md's YAML frontmatter (empty when absent or unreadable) and its body."""
    match = _FRONTMATTER.match(text)
    if not match:
        return {}, text
    try:
        meta = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        meta = None
    return (meta if isinstance(meta, dict) else {}), text[match.end():]


def description_of(record: SkillRecord) -> str:
    meta, _ = split_frontmatter(record.content)
    value = meta.get("description")
    return " ".join(str(value).split()) if value else ""


def _relocate(file: str, skill: str) -> str:
    top, _, rest = file.partition("/")
    return f"{top}/{skill}/{rest}" if rest else f"references/{skill}/{file}"


def _relative_from_references(path: str) -> str:
    return path[len("references/"):] if path.startswith("references/") else f"../{path}"


def _demoted(record: SkillRecord, moved: Mapping[str, str]) -> str:
    """The skill's SKILL.md as a reference page of its umbrella."""
    meta, body = split_frontmatter(record.content)
    for old, new in sorted(moved.items(), key=lambda kv: -len(kv[0])):
        pattern = re.compile(r"(?<![\w./-])" + re.escape(old) + r"(?![\w/-])")
        body = pattern.sub(_relative_from_references(new).replace("\\", "\\\\"), body)
    head = f"# {record.name}\n"
    description = description_of(record)
    if description:
        head += f"\n{description}\n"
    extra = {k: v for k, v in meta.items() if k not in ("name", "description")}
    if extra:
        head += "\n```yaml\n" + yaml.safe_dump(extra, sort_keys=True).rstrip("\n") + "\n```\n"
    return head + "\n" + body.lstrip("\n")


def _free(path: str, taken: set[str]) -> str:
    if path not in taken:
        return path
    stem, dot, ext = path.rpartition(".")
    if not dot or "/" in ext:
        stem, ext = path, ""
    n = 2
    while True:
        candidate = f"{stem}-{n}.{ext}" if ext else f"{stem}-{n}"
        if candidate not in taken:
            return candidate
        n += 1


def _index_line(record: SkillRecord, ref: str) -> str:
    description = description_of(record)
    text = f"- `{record.name}`"
    if description:
        text += f" — {description}"
    return text + f" → [{ref}]({ref})"


def _with_index(content: str, lines: list[str]) -> str:
    """``content`` with ``lines`` added to its absorbed-skills index (made if missing)."""
    body = content.rstrip("\n")
    at = body.find(f"\n{INDEX_HEADING}\n")
    if at < 0:
        return f"{body}\n\n{INDEX_HEADING}\n\n" + "\n".join(lines) + "\n"
    start = at + len(INDEX_HEADING) + 2
    nxt = body.find("\n## ", start)
    end = len(body) if nxt < 0 else nxt
    section = body[start:end].rstrip("\n")
    section = (section + "\n" if section.strip() else "\n") + "\n".join(lines)
    return body[:start] + section + ("\n" + body[end:] if nxt >= 0 else "") + "\n"


def _new_umbrella_text(name: str, description: str) -> str:
    meta = yaml.safe_dump({"name": name, "description": description}, sort_keys=False,
                          allow_unicode=True, width=10_000).rstrip("\n")
    return (f"---\n{meta}\n---\n# {name}\n\n"
            "An umbrella skill: the curator merged the related skills listed below into "
            "it. Each one's full instructions are kept as a reference page here; open "
            "the one that fits the task.\n")


def plan_events(skills: Mapping[str, SkillRecord], plan: Plan) -> list[Payload]:
    """The events that carry out an already validated ``plan``, in a replayable order:
    umbrellas first (created or extended), then the archives."""
    events: list[Payload] = []
    by_umbrella: dict[str, list[str]] = {}
    for c in plan.consolidations:
        by_umbrella.setdefault(c.into, []).append(c.source)
    new = {u.name: u for u in plan.umbrellas}
    for umbrella, members in by_umbrella.items():
        existing = skills.get(umbrella)
        files: dict[str, str] = dict(existing.files) if existing is not None else {}
        taken = set(files)
        written: dict[str, str] = {}
        lines: list[str] = []
        for member in members:
            record = skills[member]
            moved = {}
            for file in sorted(record.files):
                target = _free(_relocate(file, member), taken)
                taken.add(target)
                moved[file] = target
                written[target] = record.files[file]
            ref = _free(f"references/{member}.md", taken)
            taken.add(ref)
            written[ref] = _demoted(record, moved)
            lines.append(_index_line(record, ref))
        if existing is None:
            u = new[umbrella]
            categories = {skills[m].category for m in members}
            category = categories.pop() if len(categories) == 1 else None
            content = _with_index(_new_umbrella_text(umbrella, u.description), lines)
            events.append(SkillCreated(name=umbrella, category=category, content=content,
                                       provenance="agent", files=written))
        else:
            for file, text in written.items():
                events.append(SkillFileWritten(name=umbrella, file=file, content=text,
                                               previous=existing.files.get(file)))
            events.append(SkillContentSet(name=umbrella,
                                          content=_with_index(existing.content, lines),
                                          previous=existing.content))
    for c in plan.consolidations:
        record = skills[c.source]
        events.append(SkillArchived(
            name=c.source, absorbed_into=c.into,
            reason=c.reason or f"consolidated into {c.into}",
            previous_state="stale" if record.state == "stale" else "active",
        ))
    for p in plan.prunings:
        record = skills[p.name]
        events.append(SkillArchived(
            name=p.name, absorbed_into=None, reason=p.reason or "pruned by the plan",
            previous_state="stale" if record.state == "stale" else "active",
        ))
    return events
