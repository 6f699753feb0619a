"""What a valid skill is: names, categories, SKILL.md frontmatter, sizes and file paths.

The rules, limits and error messages are Hermes's (spec §3.2, §3.4): agents are
prompted against that wording.  Every check returns an error message or None, so a
tool can turn it into a Hermes-shaped result and the CLI into a one-line error.

A skill's name is its folder's name.  The frontmatter ``name`` is what the skills
index shows and may differ, as in Hermes; memoir keys telemetry, curation and
provenance by the folder name too (Hermes looks some of those up by the frontmatter
name, so a mismatch splits one skill into two records there).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

import yaml

from memoir import lazyre
from memoir.names import (
    ALLOWED_SUBDIRS,
    MAX_FILE_BYTES,
    MAX_NAME_CHARS,
    MAX_SKILL_CHARS,
    NAME_RE,
    canonical_file_path,
    check_category,
    check_content_size,
    check_file_content,
    check_name,
)

__all__ = [
    "ALLOWED_SUBDIRS",
    "MAX_DESCRIPTION_CHARS",
    "MAX_FILE_BYTES",
    "MAX_NAME_CHARS",
    "MAX_SKILL_CHARS",
    "NAME_RE",
    "PROTECTED_SKILLS",
    "Frontmatter",
    "canonical_file_path",
    "check_category",
    "check_content_size",
    "check_file_content",
    "check_found_skill_md",
    "check_name",
    "check_skill_md",
    "description_of",
    "list_value",
    "matches_platform",
    "parse_frontmatter",
]

MAX_DESCRIPTION_CHARS = 1024
#: Load-bearing built-ins no background actor may change (Hermes's protected set).
PROTECTED_SKILLS = frozenset({"plan"})

# The closing fence: Hermes searches for a newline, three dashes, any whitespace
# (newlines included) and a newline, starting after the opening fence.
_CLOSING_FENCE = lazyre.compile(r"\n---\s*\n")
_BOM = "\ufeff"

Frontmatter = dict[str, Any]


def parse_frontmatter(content: str) -> tuple[Frontmatter, str]:
    """The frontmatter mapping and the body of a SKILL.md; ``({}, content)`` when the
    text has no well-formed frontmatter (use :func:`check_skill_md` to know why)."""
    text = content[1:] if content.startswith(_BOM) else content
    if not text.startswith("---"):
        return {}, content
    fence = _CLOSING_FENCE.search(text, 3)
    if fence is None:
        return {}, content
    try:
        parsed = yaml.safe_load(text[3 : fence.start()])
    except yaml.YAMLError:
        return {}, text[fence.end() :]
    return (parsed if isinstance(parsed, dict) else {}), text[fence.end() :]


def check_skill_md(content: object, name: str | None = None) -> str | None:
    """Whether ``content`` is a valid SKILL.md: YAML frontmatter between ``---`` lines
    with ``name`` and ``description`` (≤1024 chars), a non-empty body, at most 100,000
    characters.  ``name`` (the skill's) is accepted for the callers' convenience; the
    frontmatter's name may differ from it, as in Hermes."""
    del name
    if not isinstance(content, str) or not content.strip():
        return "Content cannot be empty."
    try:
        content.encode("utf-8")
    except UnicodeEncodeError:
        return "SKILL.md is not valid Unicode text."
    if "\0" in content:
        return "SKILL.md contains a NUL character (U+0000); skill files are text."
    text = content[1:] if content.startswith(_BOM) else content
    if not text.startswith("---"):
        return "SKILL.md must start with YAML frontmatter (---). See existing skills for format."
    fence = _CLOSING_FENCE.search(text, 3)
    if fence is None:
        return "SKILL.md frontmatter is not closed. Ensure you have a closing '---' line."
    try:
        parsed = yaml.safe_load(text[3 : fence.start()])
    except yaml.YAMLError as exc:
        return f"YAML frontmatter parse error: {exc}"
    if not isinstance(parsed, dict):
        return "Frontmatter must be a YAML mapping (key: value pairs)."
    if "name" not in parsed:
        return "Frontmatter must include 'name' field."
    if "description" not in parsed:
        return "Frontmatter must include 'description' field."
    if len(str(parsed["description"])) > MAX_DESCRIPTION_CHARS:
        return f"Description exceeds {MAX_DESCRIPTION_CHARS} characters."
    if not text[fence.end() :].strip():
        return ("SKILL.md must have content after the frontmatter (instructions, "
                "procedures, etc.).")
    return check_content_size(content)


def check_found_skill_md(content: object) -> str | None:
    """Whether a SKILL.md a person placed or edited by hand can enter the journal.

    Hermes loads whatever SKILL.md it finds (frontmatter or not, body or not), so
    memoir takes it too, as text: not empty, valid Unicode, no NUL, within 100,000
    characters.  An agent's write to the skill is validated in full, as always.
    """
    if not isinstance(content, str) or not content.strip():
        return "SKILL.md is empty."
    try:
        content.encode("utf-8")
    except UnicodeEncodeError:
        return "SKILL.md is not valid Unicode text."
    if "\0" in content:
        return "SKILL.md contains a NUL character (U+0000); skill files are text."
    return check_content_size(content)


#: The longest file name (bytes) a skill file may have: the file systems' 255, less
#: room for the ``.bak.<unix seconds>`` a backup of it adds.
MAX_NAME_BYTES = 240
#: The longest absolute path (bytes) of any skill file, wherever it lives (the archive
#: included): Linux's PATH_MAX of 4,096 less the terminating NUL and a backup suffix.
MAX_PATH_BYTES = 4080


def file_layout_problem(path: str, existing: Iterable[str]) -> str | None:
    """Why the file ``path`` cannot sit beside the skill's ``existing`` files (a file
    where a folder of files is, or a folder where a file is), or why a file system
    cannot hold its name; None when it can."""
    for part in path.split("/"):
        size = len(part.encode("utf-8", "surrogatepass"))
        if size > MAX_NAME_BYTES:
            return (f"file_path '{path}' has a name of {size} bytes; file names can be at "
                    f"most {MAX_NAME_BYTES} bytes long. Use a shorter name.")
    for other in existing:
        if other.startswith(path + "/"):
            return (f"file_path '{path}' is a folder holding '{other}'; a file cannot "
                    "replace it. Choose another name, or remove that file first.")
        if path.startswith(other + "/"):
            return (f"file_path '{path}' would go inside '{other}', which is a file. "
                    "Choose another name, or remove that file first.")
    return None


def path_length_problem(paths: Iterable[str]) -> str | None:
    """Why one of the absolute ``paths`` (every place a skill file will live) is too long
    for a file system; None when none is."""
    for path in paths:
        size = len(path.encode("utf-8", "surrogatepass"))
        if size > MAX_PATH_BYTES:
            return (f"the file would live at a path of {size} bytes ({path[:60]}…), over the "
                    f"{MAX_PATH_BYTES} a file system allows. Use shorter names.")
    return None


def list_value(value: Any) -> list[str]:
    """A frontmatter list field (a YAML list, ``"[a, b]"`` or ``"a, b"``) as strings."""
    if not value:
        return []
    if isinstance(value, list):
        return [str(v).strip() for v in value if v]
    text = str(value).strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    return [part.strip().strip("\"'") for part in text.split(",") if part.strip()]


def description_of(content: str) -> str:
    """The description a listing shows: the frontmatter's, else the first body line
    that is not a heading, cut to 1,024 characters."""
    frontmatter, body = parse_frontmatter(content)
    description = str(frontmatter.get("description") or "")
    if not description:
        for line in body.strip().split("\n"):
            line = line.strip()
            if line and not line.startswith("#"):
                description = line
                break
    if len(description) > MAX_DESCRIPTION_CHARS:
        description = description[: MAX_DESCRIPTION_CHARS - 3] + "..."
    return description


_PLATFORMS = {"macos": "darwin", "linux": "linux", "windows": "win32"}


def matches_platform(frontmatter: Frontmatter, platform: str | None = None) -> bool:
    """Whether a skill's ``platforms`` list (if any) includes this machine's OS."""
    wanted = frontmatter.get("platforms")
    if not wanted:
        return True
    if not isinstance(wanted, list):
        wanted = [wanted]
    here = platform or sys.platform
    for item in wanted:
        prefix = _PLATFORMS.get(str(item).lower().strip(), str(item).lower().strip())
        if here.startswith(prefix):
            return True
    return False
