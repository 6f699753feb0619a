"""The shapes of what the agent tools answer, for type checkers.

Every result is a JSON object; these ``TypedDict`` s name the keys each tool may set
(all optional but ``success``, as the results differ between success and failure, and
Hermes's tools add keys for some outcomes).  ``Session.call_tool`` is overloaded on the
tool's name, so ``session.call_tool("memory", …)["usage"]`` type-checks and a mistyped
key does not.  At run time they are plain dicts.
"""

from __future__ import annotations

from typing import Any, Literal, Required, TypedDict

__all__ = [
    "MemoryReadResult", "MemoryResult", "MemorySearchResult", "SessionSearchResult",
    "SkillManageResult", "SkillViewResult", "SkillsListResult", "TargetEntries",
    "ToolMessage",
]


class ToolMessage(TypedDict):
    """A chat-completions ``tool`` message answering one tool call (see
    :mod:`memoir.sdk` for the OpenAI SDK's own type)."""

    role: Literal["tool"]
    tool_call_id: str
    content: str


class MemoryResult(TypedDict, total=False):
    """``memory`` (Hermes's keys): on success ``message``, ``target``, ``usage``,
    ``entry_count`` (and ``note``, ``done`` for some outcomes); on failure ``error``,
    with ``current_entries`` and ``usage`` when a write did not fit."""

    success: Required[bool]
    message: str
    target: str
    usage: str
    entry_count: int
    note: str
    done: bool
    error: str
    #: memoir's: the run a person's write through the handle recorded
    #: (``Memoir.add_memory``; a refusal is recorded too; None when nothing was).
    run: str | None
    current_entries: list[str]
    matches: list[str]


class SkillManageResult(TypedDict, total=False):
    success: Required[bool]
    message: str
    path: str
    skill_md: str
    hint: str
    error: str


class SkillsListResult(TypedDict, total=False):
    success: Required[bool]
    skills: list[dict[str, Any]]
    categories: list[str]
    count: int
    hint: str
    error: str


class SkillViewResult(TypedDict, total=False):
    success: Required[bool]
    name: str
    description: str
    tags: list[str]
    related_skills: list[str]
    content: str
    path: str
    skill_dir: str
    file: str
    file_type: str
    linked_files: dict[str, Any]
    usage_hint: str
    required_environment_variables: list[Any]
    required_commands: list[Any]
    missing_required_environment_variables: list[Any]
    missing_credential_files: list[Any]
    missing_required_commands: list[Any]
    setup_needed: bool
    setup_skipped: bool
    readiness_status: str
    available_skills: list[str]
    hint: str
    error: str


class SessionSearchResult(TypedDict, total=False):
    success: Required[bool]
    mode: str
    query: str
    results: list[dict[str, Any]]
    sessions: list[dict[str, Any]]
    error: str


class MemorySearchResult(TypedDict, total=False):
    success: Required[bool]
    results: list[dict[str, Any]]
    error: str


class TargetEntries(TypedDict, total=False):
    """One store in ``memory_read``'s answer."""

    entries: Required[list[str]]
    entry_count: int
    usage: str
    enabled: bool


class MemoryReadResult(TypedDict, total=False):
    success: Required[bool]
    memory: TargetEntries
    user: TargetEntries
    error: str
