"""``memory_read``: what the memory holds now, for a model that cannot see its prompt.

Hermes needs no such tool: its MEMORY and USER blocks are in every system prompt.  A
client that reaches memoir over MCP gets them in the server's instructions, frozen when
the connection began, and may drop or truncate those; this tool is the read path the
model can call itself.  It answers with the entries as they are now (this session's own
writes included), each shown as the prompt would show it: an entry that the prompt's
threat scan blocks is blocked here too.  It writes nothing.
"""

from __future__ import annotations

from typing import Any

from memoir.engine.caller import CallContext
from memoir.engine.port import Home
from memoir.projections.memory import FILE_NAMES, TARGETS, usage_text
from memoir.threats import sanitize_for_prompt

__all__ = ["MEMORY_READ_SCHEMA", "memory_read_tool"]

MEMORY_READ_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "memory_read",
        "description": (
            "Read the durable memory as it is now: your notes ('memory') and the user's "
            "profile ('user'), one list of entries each, with how full each is. What was "
            "saved before this conversation began is also in the server's instructions; "
            "call this when you do not see it there, or to check what you saved since. "
            "Read-only."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "target": {"type": "string", "enum": ["memory", "user"],
                           "description": "Only this store (default: both)."},
            },
            "required": [],
        },
    },
}


def memory_read_tool(engine: Home, ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """The ``memory_read`` tool: the entries of each enabled target, now."""
    del ctx
    target = args.get("target")
    if target is not None and target not in TARGETS:
        return {"success": False,
                "error": f"Invalid target '{target}'. Use 'memory' or 'user'."}
    unknown = sorted(set(args) - {"target"})
    if unknown:
        return {"success": False,
                "error": f"memory_read takes only 'target'; got {', '.join(unknown)}."}
    state = engine.state.memory
    settings = engine.config.memory
    enabled = {"memory": settings.memory_enabled, "user": settings.user_profile_enabled}
    result: dict[str, Any] = {"success": True}
    for name in (target,) if target else TARGETS:
        if not enabled[name]:
            result[name] = {"enabled": False, "entries": []}
            continue
        texts = state.target(name).texts()
        limit = state.limits[name]
        result[name] = {"entries": sanitize_for_prompt(texts, FILE_NAMES[name]),
                        "entry_count": len(texts), "usage": usage_text(texts, limit)}
    return result
