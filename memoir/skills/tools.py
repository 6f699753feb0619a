"""The agent-facing skills tools (``skill_manage``, ``skill_view``, ``skills_list``):
their schemas, the calls behind them run through the command layer, and the handlers
(:func:`skill_manage_tool` …) that :mod:`memoir.tools` lists.  The calls are public
for code that acts without a session (reviewers, the CLI): :func:`skill_manage_call`,
:func:`skill_view_call`, :func:`record_use`.

Read-before-write (spec §3.5): a background actor may change an existing file only
after ``skill_view`` showed it that exact text.  What a caller was shown is kept in
its call context (:attr:`~memoir.engine.caller.CallContext.viewed`), as Hermes keeps
it per review; code that calls :func:`skill_manage_call` directly passes its own.

A skill whose files were edited by hand since memoir wrote them refuses agent
writes (journaled as ``skill.write_rejected`` with guard ``drift``) until the edit
is adopted or discarded, exactly as the memory tool does for MEMORY.md.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from typing import Any

from memoir.engine.caller import CallContext, ReadMark
from memoir.engine.commit import Decision
from memoir.engine.engine import Engine
from memoir.engine.files import FilesView
from memoir.errors import NotFoundError
from memoir.events.runs import RunStarted
from memoir.events.skills import SkillUsed
from memoir.events.types import Event, Payload
from memoir.projections.state import State
from memoir.skills.adopt import skill_folder_drift
from memoir.skills.guards import Refusal, background_refusal, is_background
from memoir.skills.manage import WRITES, decide_manage, text_digest
from memoir.skills.view import list_skills, view_skill

__all__ = [
    "SKILLS_LIST_SCHEMA",
    "SKILL_MANAGE_SCHEMA",
    "SKILL_VIEW_SCHEMA",
    "record_use",
    "skill_manage_call",
    "skill_manage_tool",
    "skill_view_call",
    "skill_view_tool",
    "skills_list_call",
    "skills_list_tool",
]

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

def _skills_root(engine: Engine) -> str:
    return str(engine.home / "skills")


def _drift_refusal(files: FilesView, state: State, name: str, action: str,
                   category: str | None = None) -> Decision[Any] | None:
    drifted = [d for d in skill_folder_drift(files, state, name, category)
               if d.kind != "blocked"]
    if not drifted:
        return None
    paths = ", ".join(d.path for d in drifted)
    refusal = Refusal("drift", (
        f"Refusing to change skill '{name}': {paths} changed on disk since memoir wrote it, "
        "and this write would hide that edit. Ask the user to run `memoir adopt` to keep "
        "the edit (or `memoir rebuild --force` to discard it), then retry."
    ))
    return Decision(events=[refusal.event(name, action)],
                    result={"success": False, "error": refusal.reason})


def skill_manage_call(
    engine: Engine,
    args: dict[str, Any],
    *,
    actor: str,
    session: str | None = None,
    run: str | None = None,
    run_kind: str | None = None,
    viewed: Collection[ReadMark] = (),
) -> dict[str, Any]:
    """Run one ``skill_manage`` call through the command layer; returns Hermes's result.

    With ``run_kind``, a call that lands starts run ``run`` in the same append.
    """

    name = str(args.get("name", ""))
    action = str(args.get("action", ""))
    # Background writes are always scanned; an agent's when the home asks for it.
    scan = is_background(actor) or engine.config.skills.guard_agent_created

    def decide(state: State, files: FilesView) -> Decision[dict[str, Any]]:
        # A skill edited by hand refuses every change (whether or not it would apply
        # to the journal's text) once the background guard has had its say.
        if (action in WRITES and state.skills.live(name) is not None
                and background_refusal(state, actor, name, action) is None):
            refused = _drift_refusal(files, state, name, action)
            if refused is not None:
                return refused
        outcome = decide_manage(state, args, actor=actor, root=_skills_root(engine),
                                viewed=viewed, scan=scan)
        if outcome.success and action == "create":
            category = args.get("category")
            refused = _drift_refusal(files, state, name, action,
                                     category.strip() or None if isinstance(category, str)
                                     else None)
            if refused is not None:
                return refused
        events: list[Payload] = list(outcome.events)
        if run_kind and run and outcome.success and events:
            events.insert(0, RunStarted(run_id=run, kind=run_kind,
                                        summary=f"skill_manage {action} {name}"))
        return Decision(events=events, result=outcome.result)

    _events, result = engine.commit_with_files(decide, actor=actor, session=session, run=run)
    assert result is not None
    return result


def skill_view_call(
    engine: Engine,
    args: dict[str, Any],
    *,
    actor: str,
    session: str | None = None,
    run: str | None = None,
) -> tuple[dict[str, Any], ReadMark | None]:
    """Run one ``skill_view`` call: one ``skill.viewed`` event per successful call.

    Returns the result and the read mark for what was shown (None on failure).
    """
    shown: list[ReadMark] = []

    def decide(state: State) -> Decision[dict[str, Any]]:
        outcome = view_skill(state, args, root=_skills_root(engine), environ=os.environ)
        shown.clear()
        if outcome.shown is not None:
            name, path, text = outcome.shown
            shown.append((name, path, text_digest(text)))
        return Decision(events=[outcome.event] if outcome.event else [], result=outcome.result)

    _events, result = engine.commit(decide, actor=actor, session=session, run=run)
    assert result is not None
    return result, (shown[0] if shown else None)


def skills_list_call(engine: Engine, args: dict[str, Any]) -> dict[str, Any]:
    """Answer ``skills_list`` from the current state (appends nothing)."""
    return list_skills(engine.state, args)


def record_use(
    engine: Engine,
    name: str,
    *,
    actor: str = "agent",
    session: str | None = None,
    run: str | None = None,
    via: str = "activation",
) -> Event:
    """Journal that skill ``name`` was used (a slash command, a preload, a cron run).

    Raises NotFoundError for a skill that does not exist.
    """

    def decide(state: State) -> Decision[None]:
        if name not in state.skills.skills:
            raise NotFoundError(f"no skill named '{name}' to record a use of")
        return Decision(events=[SkillUsed(name=name, via=via)])

    events, _ = engine.commit(decide, actor=actor, session=session, run=run)
    return events[-1]


# -- tool handlers ---------------------------------------------------------------------------


def skill_manage_tool(engine: Engine, ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    return skill_manage_call(engine, args, actor=ctx.actor, session=ctx.session, run=ctx.run,
                             run_kind=ctx.run_kind, viewed=ctx.viewed)


def skill_view_tool(engine: Engine, ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    result, mark = skill_view_call(engine, args, actor=ctx.actor, session=ctx.session,
                                   run=ctx.run)
    if mark is not None:
        ctx.viewed.add(mark)
    return result


def skills_list_tool(engine: Engine, _ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    return skills_list_call(engine, args)
