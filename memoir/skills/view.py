"""``skill_view`` and ``skills_list`` answered from a state, with Hermes's results.

Both are pure: the tool layer passes the state (and the machine's platform and
environment, which decide what Hermes reports as supported or missing), appends
the one ``skill.viewed`` event a successful view returns, and remembers what the
actor was shown for the read-before-write rule.  Archived skills are not listed
and cannot be viewed, as in Hermes (they live under ``.archive``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from memoir import lazyre
from memoir.events.skills import SkillViewed
from memoir.projections.skills import (
    SKILL_FILE,
    SKILLS_DIR,
    SkillRecord,
    skill_location,
)
from memoir.projections.state import State
from memoir.skills.external import ExternalSkill
from memoir.skills.model import (
    canonical_file_path,
    description_of,
    list_value,
    matches_platform,
    parse_frontmatter,
)

__all__ = ["ViewOutcome", "linked_files", "list_skills", "view_skill"]

_ENV_NAME = lazyre.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_TEMPLATE_EXTS = (".md", ".py", ".yaml", ".yml", ".json", ".tex", ".sh")
_SCRIPT_EXTS = (".py", ".sh", ".bash", ".js", ".ts", ".rb")
_LISTING_HINT = "Use skill_view(name) to see full content, tags, and linked files"


class ViewOutcome:
    """A decided ``skill_view``: the result, the event to append (on success) and the
    ``(name, file, text)`` the caller was shown."""

    def __init__(self, result: dict[str, Any], event: SkillViewed | None = None,
                 shown: tuple[str, str, str] | None = None) -> None:
        self.result = result
        self.event = event
        self.shown = shown


def _sorted_live(state: State) -> list[SkillRecord]:
    live = [r for r in state.skills.skills.values() if not r.archived]
    return sorted(live, key=lambda r: (r.category or "", r.name))


def _lookup_error(name: object) -> str | None:
    if not isinstance(name, str):
        return "The skill name must be a string."
    candidate = name.strip()
    if (PurePosixPath(candidate).is_absolute() or PureWindowsPath(candidate).is_absolute()
            or PureWindowsPath(candidate).drive):
        return "The skill name must be a name or a path inside the skills folder, not absolute."
    if ".." in PurePosixPath(candidate).parts:
        return "The skill name may not contain '..'."
    return None


def _find(state: State, name: str) -> SkillRecord | None:
    """A live skill by name, ``category/name`` or ``category:name``."""
    record = state.skills.live(name)
    if record is not None:
        return record
    for sep in ("/", ":"):
        if sep in name:
            category, _, bare = name.partition(sep)
            record = state.skills.live(bare)
            if record is not None and record.category == category:
                return record
    return None


def linked_files(record: SkillRecord) -> dict[str, list[str]]:
    """Support files grouped as Hermes lists them: references (``*.md`` directly in
    references/), templates (text kinds, any depth), assets (all), scripts (script
    kinds directly in scripts/)."""
    files = sorted(record.files)
    groups: dict[str, list[str]] = {}

    def add(group: str, paths: list[str]) -> None:
        if paths:
            groups[group] = paths

    add("references", [f for f in files
                       if f.startswith("references/") and f.count("/") == 1 and f.endswith(".md")])
    add("templates", [f for ext in _TEMPLATE_EXTS for f in files
                      if f.startswith("templates/") and f.endswith(ext)])
    add("assets", [f for f in files if f.startswith("assets/")])
    add("scripts", [f for ext in _SCRIPT_EXTS for f in files
                    if f.startswith("scripts/") and f.count("/") == 1 and f.endswith(ext)])
    return groups


def _required_env(frontmatter: Mapping[str, Any]) -> list[dict[str, Any]]:
    raw = frontmatter.get("required_environment_variables")
    items: list[Any] = [raw] if isinstance(raw, dict) else raw if isinstance(raw, list) else []
    prereqs = frontmatter.get("prerequisites")
    if isinstance(prereqs, dict):
        legacy = prereqs.get("env_vars") or []
        items += [legacy] if isinstance(legacy, str) else list(legacy)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for item in items:
        entry = {"name": item} if isinstance(item, str) else item
        if not isinstance(entry, dict):
            continue
        env = str(entry.get("name") or entry.get("env_var") or "").strip()
        if not env or env in seen or not _ENV_NAME.match(env):
            continue
        seen.add(env)
        normalized: dict[str, Any] = {
            "name": env, "prompt": str(entry.get("prompt") or f"Enter value for {env}").strip(),
        }
        help_text = entry.get("help") or entry.get("provider_url") or entry.get("url")
        if isinstance(help_text, str) and help_text.strip():
            normalized["help"] = help_text.strip()
        if entry.get("optional"):
            normalized["optional"] = True
        out.append(normalized)
    return out


def _file_result(record: SkillRecord, name: str, file_path: str,
                 root: str) -> ViewOutcome:
    path, _problem = canonical_file_path(file_path, record.name)
    if ".." in PurePosixPath(file_path).parts:
        return ViewOutcome({"success": False, "error": "file_path may not contain '..'.",
                            "hint": "Use a relative path within the skill directory"})
    text = record.file(path) if path else None
    if path is None or text is None:
        available: dict[str, list[str]] = {}
        for f in sorted(record.files):
            group = f.split("/")[0]
            available.setdefault(group if group in ("references", "templates", "assets",
                                                    "scripts") else "other", []).append(f)
        return ViewOutcome({
            "success": False,
            "error": f"File '{file_path}' not found in skill '{name}'.",
            "available_files": available,
            "hint": "Use one of the available file paths listed above",
        })
    return ViewOutcome(
        {"success": True, "name": name, "file": file_path, "content": text,
         "file_type": PurePosixPath(path).suffix},
        SkillViewed(name=record.name, file=path),
        (record.name, path, text),
    )


def _find_external(external: Mapping[str, ExternalSkill], name: str) -> ExternalSkill | None:
    found = external.get(name)
    if found is not None:
        return found
    for sep in ("/", ":"):
        if sep in name:
            category, _, bare = name.partition(sep)
            found = external.get(bare)
            if found is not None and found.record.category == category:
                return found
    return None


def view_skill(
    state: State, args: Mapping[str, Any], *, root: str = SKILLS_DIR,
    platform: str | None = None, environ: Mapping[str, str] | None = None,
    external: Mapping[str, ExternalSkill] | None = None,
    roots: Mapping[str, str] | None = None,
) -> ViewOutcome:
    """Decide one ``skill_view`` call (``name``, optional ``file_path``).

    ``external``: the skills of ``skills.external_dirs`` not in the journal, found
    when no local skill has the name; viewing one appends nothing.  ``roots``: the
    folder of each usable entry of ``skills.external_dirs`` (where a journaled
    external skill is shown to live)."""
    name = args.get("name", "")
    problem = _lookup_error(name)
    if problem:
        return ViewOutcome({"success": False, "error": problem,
                            "hint": "Use a skill name or relative path within the skills "
                                    "directory."})
    assert isinstance(name, str)
    record = _find(state, name)
    found = _find_external(external or {}, name) if record is None else None
    if found is not None:
        entry = found.record.root or ""
        outcome = view_skill(_one_skill_state(found.record), args, platform=platform,
                             environ=environ, roots={entry: str(found.root)})
        outcome.event = None
        return outcome
    if record is None:
        archived = state.skills.skills.get(name)
        result: dict[str, Any] = {
            "success": False,
            "error": f"Skill '{name}' not found.",
            "available_skills": [r.name for r in _sorted_live(state)[:20]],
            "hint": "Use skills_list to see all available skills",
        }
        if archived is not None:
            result["error"] += (f" It is archived; the user can bring it back with "
                                f"`memoir skills restore {name}`.")
        return ViewOutcome(result)
    frontmatter, _body = parse_frontmatter(record.content)
    if not matches_platform(frontmatter, platform):
        return ViewOutcome({"success": False,
                            "error": f"Skill '{name}' is not supported on this platform.",
                            "readiness_status": "unsupported"})
    file_path = args.get("file_path")
    if file_path:
        return _file_result(record, name, str(file_path), root)
    return _main_result(record, frontmatter, skill_location(record, root, roots or {}),
                        os.environ if environ is None else environ)


def _main_result(record: SkillRecord, frontmatter: Mapping[str, Any],
                 location: tuple[str, str], environ: Mapping[str, str]) -> ViewOutcome:
    metadata = frontmatter.get("metadata")
    hermes = metadata.get("hermes") if isinstance(metadata, dict) else None
    hermes = hermes if isinstance(hermes, dict) else {}
    links = linked_files(record)
    required = _required_env(frontmatter)
    missing = [e["name"] for e in required if not e.get("optional") and e["name"] not in environ]
    root, folder = location
    result: dict[str, Any] = {
        "success": True,
        "name": record.name,
        "description": frontmatter.get("description", ""),
        "tags": list_value(hermes.get("tags") or frontmatter.get("tags", "")),
        "related_skills": list_value(hermes.get("related_skills")
                                     or frontmatter.get("related_skills", "")),
        "content": record.content,
        "path": f"{folder}/{SKILL_FILE}",
        "skill_dir": f"{root}/{folder}",
        "linked_files": links or None,
        "usage_hint": ("To view linked files, call skill_view(name, file_path) where file_path "
                       "is e.g. 'references/api.md' or 'assets/config.yaml'") if links else None,
        "required_environment_variables": required,
        "required_commands": [],
        "missing_required_environment_variables": missing,
        "missing_credential_files": [],
        "missing_required_commands": [],
        "setup_needed": bool(missing),
        "setup_skipped": False,
        "readiness_status": "setup_needed" if missing else "available",
    }
    setup_help = next((e["help"] for e in required if e.get("help")), None)
    if setup_help:
        result["setup_help"] = setup_help
    if missing:
        items = ", ".join(f"env ${m}" for m in missing)
        note = f"Setup needed before using this skill: missing {items}."
        result["setup_note"] = f"{note} {setup_help}" if setup_help else note
    if frontmatter.get("compatibility"):
        result["compatibility"] = frontmatter["compatibility"]
    if isinstance(metadata, dict):
        result["metadata"] = metadata
    return ViewOutcome(result, SkillViewed(name=record.name),
                       (record.name, SKILL_FILE, record.content))


def _one_skill_state(record: SkillRecord) -> State:
    state = State()
    state.skills.skills[record.name] = record
    return state


def list_skills(state: State, args: Mapping[str, Any], *,
                platform: str | None = None,
                external: Mapping[str, ExternalSkill] | None = None) -> dict[str, Any]:
    """Answer one ``skills_list`` call (optional ``category`` filter); skills of the
    external folders are listed after the local ones, unless a local skill has the
    name."""
    everything = _sorted_live(state)
    live = [r for r in everything if r.root is None]
    names = {r.name for r in everything}
    # As Hermes lists them: the home's skills, then the external folders' (journaled
    # or not).
    outside = sorted([*(r for r in everything if r.root is not None),
                      *(e.record for n, e in (external or {}).items() if n not in names)],
                     key=lambda r: (r.category or "", r.name))
    rows = [
        {"name": r.name, "description": description_of(r.content), "category": r.category}
        for r in [*live, *outside]
        if matches_platform(parse_frontmatter(r.content)[0], platform)
    ]
    if not rows:
        return {"success": True, "skills": [], "categories": [],
                "message": "No skills found in skills/ directory."}
    category = args.get("category")
    if category:
        rows = [row for row in rows if row["category"] == category]
    categories = sorted({str(row["category"]) for row in rows if row["category"]})
    return {"success": True, "skills": rows, "categories": categories, "count": len(rows),
            "hint": _LISTING_HINT}
