"""The ``memory`` tool's schema, as the model sees it (OpenAI function-calling format).

The wording is memoir's own; the actions, targets and arguments match Hermes's tool
(spec §1.3, §1.4), so a model trained on one calls the other the same way.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MEMORY_SCHEMA"]

MEMORY_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "memory",
        "description": (
            "Keep durable facts that are shown to you at the start of every future "
            "session, so keep each entry short and worth its place. Target 'user' is "
            "who the user is (name, role, preferences, corrections, style); target "
            "'memory' is your notes on the environment, conventions, tool quirks and "
            "lessons learned. Save when the user states a preference or corrects you, or "
            "when you learn a fact about their setup that will still hold next week; "
            "preferences and corrections matter most.\n\n"
            "Memory is not a diary. Do not record what you did or are doing: task "
            "progress, finished work, PR numbers, commit hashes, temporary TODO state "
            "and raw output stay in the session transcript, which session_search finds "
            "later. "
            "Do not save what is easy to look up again. Write facts, not orders to "
            "yourself, and put step-by-step procedures in a skill instead.\n\n"
            "Prefer one call with an 'operations' list ({action, content?, old_text?} "
            "each): it applies all or nothing and the character budget is checked only on "
            "the final result, so you can remove or shorten stale entries and add the new "
            "one together. Use action/content/old_text alone for a single change: add "
            "(content), replace (old_text: a unique substring of one entry, content: its "
            "new text), remove (old_text). A successful result means the change is saved; "
            "do not repeat it. When a write does not fit, the error lists the current "
            "entries: make room and retry in the same turn."
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
