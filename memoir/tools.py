"""The agent-facing tools: their JSON schemas and the dispatch by name.

Schemas follow the OpenAI chat-completions ``tools`` format (``{"type": "function",
"function": {name, description, parameters}}``) so any agent framework can register
them; the argument names and meanings are Hermes's.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memoir.session import Session

__all__ = ["TOOLS", "dispatch", "register_tool", "tool_schemas"]

ToolHandler = Callable[["Session", dict[str, Any]], dict[str, Any]]

MEMORY_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "memory",
        "description": (
            "Keep durable notes that are shown to you at the start of every future "
            "session. Target 'memory' holds your notes about the environment, conventions "
            "and tool quirks; target 'user' holds what you know about the user (name, role, "
            "preferences, style). Save declarative facts that will still be true next week, "
            "not task progress. Actions: add (content), replace (old_text: a unique "
            "substring of one entry, content: its new text), remove (old_text). Use "
            "'operations' to apply several actions at once, all or nothing. Each target has "
            "a character budget; when a write does not fit, replace or remove entries and "
            "retry in the same turn."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["add", "replace", "remove"],
                           "description": "What to do (ignored when 'operations' is given)."},
                "target": {"type": "string", "enum": ["memory", "user"],
                           "description": "Which store: 'memory' (your notes) or 'user' "
                                          "(the user's profile)."},
                "content": {"type": "string",
                            "description": "The entry text for add, or the new text for "
                                           "replace."},
                "old_text": {"type": "string",
                             "description": "A short substring identifying exactly one "
                                            "existing entry (replace, remove)."},
                "operations": {
                    "type": "array",
                    "description": "Several actions applied in order as one all-or-nothing "
                                   "batch; the budget is checked on the final result.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "action": {"type": "string", "enum": ["add", "replace", "remove"]},
                            "content": {"type": "string"},
                            "old_text": {"type": "string"},
                        },
                        "required": ["action"],
                    },
                },
            },
            "required": ["target"],
        },
    },
}


def _memory(session: Session, args: dict[str, Any]) -> dict[str, Any]:
    return session.memory(args)


#: name → (schema, handler) for every tool a session answers.
TOOLS: dict[str, tuple[dict[str, Any], ToolHandler]] = {"memory": (MEMORY_SCHEMA, _memory)}


def register_tool(schema: dict[str, Any], handler: ToolHandler) -> None:
    """Add a tool (used by memoir's own modules, e.g. the skills tools)."""
    TOOLS[schema["function"]["name"]] = (schema, handler)


def tool_schemas() -> list[dict[str, Any]]:
    """The JSON schemas of every agent-facing tool, sorted by name (copies)."""
    return [copy.deepcopy(TOOLS[name][0]) for name in sorted(TOOLS)]


def dispatch(session: Session, name: str, args: dict[str, Any]) -> dict[str, Any]:
    entry = TOOLS.get(name)
    if entry is None:
        known = ", ".join(sorted(TOOLS))
        return {"error": f"Unknown tool '{name}'. Available: {known}.", "success": False}
    return entry[1](session, args)
