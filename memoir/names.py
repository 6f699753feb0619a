"""The names, paths and sizes memoir accepts, whoever brings them: a command, a journal read
back, an archive, an import.

One set of rules for every door.  A command checks them when it decides (with
Hermes's wording, since agents are prompted against it); the event payloads check
them again when a record is decoded (:mod:`memoir.events`), so a journal rewritten by
hand, restored from an archive or written by another machine cannot name a skill
``../../outside/pwn``; and the file-system layer (:mod:`memoir.fs.safefs`) refuses
unsafe components on its own with :func:`path_problem`.  Every check returns an error
message or None.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from memoir import lazyre

__all__ = [
    "ALLOWED_SUBDIRS",
    "MAX_ARCHIVED_NAME_CHARS",
    "MAX_FILE_BYTES",
    "MAX_MEMORY_CHARS",
    "MAX_NAME_CHARS",
    "MAX_SKILL_CHARS",
    "NAME_RE",
    "REPORT_PATH_RE",
    "SESSION_ID",
    "SKILL_FILE",
    "TRANSCRIPT_REF",
    "canonical_file_path",
    "check_category",
    "check_content_size",
    "check_file_content",
    "check_name",
    "check_report_path",
    "check_session_id",
    "check_shown_path",
    "check_skill_file",
    "check_skill_key",
    "check_text_size",
    "is_record_line",
    "path_problem",
]

MAX_NAME_CHARS = 64
MAX_SKILL_CHARS = 100_000
MAX_FILE_BYTES = 1_048_576
#: The largest memory limit config accepts (``memory.memory_char_limit``): no entry
#: and no journaled limit can be longer.
MAX_MEMORY_CHARS = 1_000_000
NAME_RE = lazyre.compile(r"^[a-z0-9][a-z0-9._-]*$")
#: A skill archived under Hermes's suffix (``<name>-<YYYYMMDDHHMMSS>[-N]``) is longer.
MAX_ARCHIVED_NAME_CHARS = MAX_NAME_CHARS + 24
#: The folders a skill may keep support files in.
ALLOWED_SUBDIRS = ("assets", "references", "scripts", "templates")
SKILL_FILE = "SKILL.md"
#: A session id a caller may choose (generated ones are ``s-`` and 12 hex digits).
SESSION_ID = lazyre.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
#: A transcript body's reference: ``<pack>:<offset>:<length>:<BLAKE2b-128 hex>``.
TRANSCRIPT_REF = lazyre.compile(r"pack-[0-9]{6,9}:[0-9]{1,15}:[0-9]{1,15}:[0-9a-f]{32}")
#: Where a curator pass's report lives: ``logs/curator/<YYYYMMDD-HHMMSS>[-N]``.
REPORT_PATH_RE = lazyre.compile(r"logs/curator/[0-9]{8}-[0-9]{6}(?:-[0-9]{1,6})?")


def check_name(name: object) -> str | None:
    """Whether ``name`` can name a skill (regex ``^[a-z0-9][a-z0-9._-]*$``, ≤64 chars)."""
    if not isinstance(name, str) or not name:
        return "Skill name is required."
    if len(name) > MAX_NAME_CHARS:
        return f"Skill name exceeds {MAX_NAME_CHARS} characters."
    if not NAME_RE.match(name):
        return (
            f"Invalid skill name '{name}'. Use lowercase letters, numbers, hyphens, dots, "
            "and underscores. Must start with a letter or digit."
        )
    return None


def check_skill_key(name: object) -> str | None:
    """Whether ``name`` can key a skill in the journal: a skill's name or the name an
    archived copy is kept under (``<name>-<YYYYMMDDHHMMSS>[-N]``, so a little longer)."""
    if not isinstance(name, str) or not NAME_RE.match(name) \
            or len(name) > MAX_ARCHIVED_NAME_CHARS:
        return (f"{name!r} is not a skill name (lowercase letters, digits, '.', '_' and "
                f"'-', starting with a letter or a digit, at most "
                f"{MAX_ARCHIVED_NAME_CHARS} characters)")
    return None


def check_category(category: object) -> str | None:
    """Whether ``category`` can be a category: one folder name with the name rules."""
    if category is None:
        return None
    if not isinstance(category, str):
        return "Category must be a string."
    category = category.strip()
    if not category:
        return None
    invalid = (
        f"Invalid category '{category}'. Use lowercase letters, numbers, hyphens, dots, "
        "and underscores. Categories must be a single directory name."
    )
    if "/" in category or "\\" in category:
        return invalid
    if len(category) > MAX_NAME_CHARS:
        return f"Category exceeds {MAX_NAME_CHARS} characters."
    if not NAME_RE.match(category):
        return invalid
    return None


def canonical_file_path(file_path: object, name: str) -> tuple[str | None, str | None]:
    """``(path, None)`` for an acceptable file of skill ``name`` or ``(None, error)``.

    The path is ``SKILL.md`` (also spelled ``<name>/SKILL.md``) or a file under
    references/, templates/, scripts/ or assets/, written as pathlib writes it (empty
    and ``.`` segments dropped).  ``..``, backslashes and NUL characters are refused,
    so no path can leave the skill's folder.  (Hermes takes ``<x>/SKILL.md`` for any
    ``x`` and writes a second SKILL.md inside the skill; memoir takes only the skill's
    own name there.)
    """
    if not isinstance(file_path, str) or not file_path:
        return None, "file_path is required."
    pure = PurePosixPath(file_path)
    if ".." in pure.parts:
        return None, "Path traversal ('..') is not allowed."
    if "\0" in file_path or "\\" in file_path:
        return None, f"file_path '{file_path}' contains a backslash or NUL character."
    segments = list(pure.parts)
    if segments == [SKILL_FILE] or segments == [name, SKILL_FILE]:
        return SKILL_FILE, None
    if segments and segments[-1] == SKILL_FILE and len(segments) == 2:
        return None, f"file_path '{file_path}' names another skill's SKILL.md."
    if not segments or segments[0] not in ALLOWED_SUBDIRS:
        return None, (
            f"File must be under one of: {', '.join(ALLOWED_SUBDIRS)}. Got: '{file_path}'"
        )
    if len(segments) < 2:
        return None, (
            "Provide a file path, not just a directory. "
            f"Example: '{segments[0]}/myfile.md'"
        )
    return "/".join(segments), None


def check_content_size(content: str, label: str = "SKILL.md") -> str | None:
    """Whether a SKILL.md or support file fits the 100,000-character limit."""
    if len(content) > MAX_SKILL_CHARS:
        return (
            f"{label} content is {len(content):,} characters (limit: {MAX_SKILL_CHARS:,}). "
            "Consider splitting into a smaller SKILL.md with supporting files in "
            "references/ or templates/."
        )
    return None


def check_file_content(content: str, label: str) -> str | None:
    """Whether a support file fits: ≤1 MiB as UTF-8 and ≤100,000 characters."""
    try:
        size = len(content.encode("utf-8"))
    except UnicodeEncodeError:
        return f"{label} is not valid Unicode text."
    if "\0" in content:
        return f"{label} contains a NUL character (U+0000); skill files are text."
    if size > MAX_FILE_BYTES:
        return (
            f"File content is {size:,} bytes (limit: {MAX_FILE_BYTES:,} bytes / 1 MiB). "
            "Consider splitting into smaller files."
        )
    return check_content_size(content, label)


def check_skill_file(path: object, name: str, *, skill_md: bool = False) -> str | None:
    """Whether ``path`` is, exactly as written, a support file of skill ``name`` (or,
    with ``skill_md``, its ``SKILL.md``): the canonical form :func:`canonical_file_path`
    gives, nothing a command would have rewritten or refused."""
    canonical, problem = canonical_file_path(path, name)
    if problem is not None:
        return problem
    if canonical != path or (canonical == SKILL_FILE and not skill_md):
        return f"{path!r} is not a support file path memoir writes"
    return None


def check_session_id(value: object) -> str | None:
    """Whether ``value`` can be a session id (1-128 of letters, digits, ``._:-``)."""
    if not isinstance(value, str) or not SESSION_ID.fullmatch(value):
        return (f"session id {value!r} is not acceptable: use 1-128 letters, digits, "
                "'.', '_', ':' or '-', starting with a letter or a digit")
    return None


def check_text_size(text: str, limit: int = MAX_MEMORY_CHARS) -> str | None:
    """Whether a memory entry's ``text`` fits the largest limit memoir can be given."""
    if len(text) > limit:
        return f"{len(text):,} characters, over the {limit:,} any memory limit allows"
    return None


def check_shown_path(value: object) -> str | None:
    """Whether ``value`` can be a path memoir only shows (``.curator_state``'s
    ``last_report_path``, absolute as Hermes writes it or relative to the home): one
    line, no ``..`` component."""
    if not isinstance(value, str) or not value.isprintable() or "\0" in value or \
            ".." in value.split("/"):
        return f"path {value!r} is not one a report could be at"
    return None


def check_report_path(value: object) -> str | None:
    """Whether ``value`` is a curator report folder (``logs/curator/<stamp>``)."""
    if not isinstance(value, str) or not REPORT_PATH_RE.fullmatch(value):
        return f"report path {value!r} is not a curator report folder (logs/curator/<stamp>)"
    return None


def path_problem(rel: str) -> str | None:
    """Why ``rel`` cannot name something below a home, or None: it must be relative,
    and no component may be empty, ``.`` or ``..`` or hold a NUL character.  The
    empty string names the home itself."""
    if rel == "":
        return None
    if "\0" in rel:
        return f"{rel!r} holds a NUL character"
    if rel.startswith("/"):
        return f"{rel!r} is an absolute path"
    for part in rel.split("/"):
        if part in ("", ".", ".."):
            return f"{rel!r} has a component {part!r} (empty, '.' and '..' are refused)"
    return None


def is_record_line(text: str) -> bool:
    """Whether ``text`` can be one line of a Hermes record file (``.bundled_manifest``,
    ``.curator_suppressed``): printable, no surrounding space, no line break."""
    return text == text.strip() and text.isprintable()
