"""The schemas of the skills tools (``skill_manage``, ``skill_view``, ``skills_list``)
as the model sees them (OpenAI function-calling format).

The wording is memoir's own; actions and arguments match Hermes's tools (spec §3.4).
"""

from __future__ import annotations

from typing import Any

__all__ = ["SKILLS_LIST_SCHEMA", "SKILL_MANAGE_SCHEMA", "SKILL_VIEW_SCHEMA"]

SKILL_MANAGE_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "skill_manage",
        "description": (
            "Create and maintain skills: your procedural memory of how to do a kind of "
            "task. Actions: create (a full SKILL.md, optionally in a category), patch "
            "(old_string → new_string; the preferred way to fix a skill), edit (rewrite "
            "the whole SKILL.md), delete, write_file and remove_file (support files under "
            "references/, templates/, scripts/ or assets/).\n\n"
            "SKILL.md starts with YAML frontmatter holding 'name' (the skill's name) and "
            "'description', followed by the instructions. Good skills say when they apply, "
            "give numbered steps with exact commands, list pitfalls and how to verify.\n\n"
            "Create one after a hard task succeeded, an error was overcome, the user "
            "corrected your approach, or the user asks you to remember a procedure. Patch "
            "one as soon as you find it stale, wrong or missing a step. When deleting a "
            "skill whose content you merged into another, pass absorbed_into=<that skill>. "
            "Pinned skills cannot be deleted; they can still be patched and edited."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "action": {"type": "string",
                           "enum": ["create", "patch", "edit", "delete", "write_file",
                                    "remove_file"],
                           "description": "What to do."},
                "name": {"type": "string",
                         "description": "The skill's name: lowercase letters, digits, '.', "
                                        "'_' or '-', at most 64 characters. Must name an "
                                        "existing skill for every action but create."},
                "content": {"type": "string",
                            "description": "The whole SKILL.md (frontmatter and body), for "
                                           "create and edit. Before an edit, load the skill "
                                           "with skill_view."},
                "old_string": {"type": "string",
                               "description": "For patch: the text to find. It must match "
                                              "one place unless replace_all is true; "
                                              "whitespace and indentation may differ."},
                "new_string": {"type": "string",
                               "description": "For patch: the replacement; an empty string "
                                              "deletes the matched text."},
                "replace_all": {"type": "boolean",
                                "description": "For patch: replace every match instead of "
                                               "requiring exactly one (default false)."},
                "category": {"type": "string",
                             "description": "For create: an optional category folder such as "
                                            "'devops' (one folder name)."},
                "file_path": {"type": "string",
                              "description": "A support file, under references/, templates/, "
                                             "scripts/ or assets/. Required for write_file "
                                             "and remove_file; for patch it selects the file "
                                             "(default SKILL.md)."},
                "file_content": {"type": "string",
                                 "description": "For write_file: the file's full text."},
                "absorbed_into": {"type": "string",
                                  "description": "For delete: the existing skill this one's "
                                                 "content was merged into, or an empty string "
                                                 "when it is simply pruned."},
            },
            "required": ["action", "name"],
        },
    },
}

SKILL_VIEW_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "skill_view",
        "description": (
            "Load a skill: its SKILL.md and the list of its linked files (references, "
            "templates, scripts, assets). Call again with file_path to read one of those."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "name": {"type": "string",
                         "description": "The skill's name (see skills_list); "
                                        "'category/name' also works."},
                "file_path": {"type": "string",
                              "description": "Optional: a linked file to read, e.g. "
                                             "'references/api.md'. Omit for SKILL.md."},
            },
            "required": ["name"],
        },
    },
}

SKILLS_LIST_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "skills_list",
        "description": "List the available skills (name, description, category). Load one "
                       "with skill_view(name).",
        "parameters": {
            "type": "object",
            "properties": {
                "category": {"type": "string",
                             "description": "Optional: only skills in this category."},
            },
            "required": [],
        },
    },
}
