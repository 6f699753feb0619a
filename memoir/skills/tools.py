"""The agent-facing skills tools (``skill_manage``, ``skill_view``, ``skills_list``):
the calls behind them run through the command layer and the handlers
(:func:`skill_manage_tool` …) that :mod:`memoir.tools` lists; their schemas are in
:mod:`memoir.skills.schemas`.  The calls are public for code that acts without a
session (reviewers, the CLI): :func:`skill_manage_call`, :func:`skill_view_call`,
:func:`record_use`.

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

from memoir.engine.adoption import adopt
from memoir.engine.caller import CallContext, ReadMark
from memoir.engine.commit import Caller, Decision
from memoir.engine.files import FilesView
from memoir.engine.gate import ApprovalGate, Held
from memoir.engine.places import external_roots
from memoir.engine.port import Home
from memoir.errors import MemoirError, NotFoundError
from memoir.events.runs import RunStarted
from memoir.events.skills import (
    SkillArchived,
    SkillContentSet,
    SkillCreated,
    SkillDeleted,
    SkillFileRemoved,
    SkillFileWritten,
    SkillPatched,
    SkillUsed,
)
from memoir.events.types import Event, Payload
from memoir.ids import short_id
from memoir.logs import get_logger
from memoir.projections.approvals import PendingWrite
from memoir.projections.skills import SKILL_FILE, SkillRecord, created_owner, skill_dir
from memoir.projections.state import State
from memoir.skills.adopt import (
    adoption_bases,
    folder_adoption_events,
    hand_placed_folder,
    placed_skill_folders,
    skill_folder_drift,
)
from memoir.skills.external import ExternalSkill, external_skills
from memoir.skills.guards import (
    Refusal,
    archive_events,
    background_refusal,
    is_background,
    pin_events,
    restore_events,
    unpin_events,
)
from memoir.skills.held import skill_gist, skill_tool_args
from memoir.skills.manage import (
    ACTIONS,
    WRITES,
    archive_key,
    decide_manage,
    prescan,
    text_digest,
)
from memoir.skills.model import canonical_file_path
from memoir.skills.schemas import SKILL_MANAGE_SCHEMA, SKILL_VIEW_SCHEMA, SKILLS_LIST_SCHEMA
from memoir.skills.view import list_skills, view_skill

__all__ = [
    "LIFECYCLE",
    "SKILLS_LIST_SCHEMA",
    "SKILL_MANAGE_SCHEMA",
    "SKILL_VIEW_SCHEMA",
    "adopt_external",
    "adopt_placed_skills",
    "adopt_skill_edits",
    "change_lifecycle",
    "external_skill_records",
    "external_skills_skipped",
    "placed_skill_records",
    "record_use",
    "skill_manage_call",
    "skill_manage_tool",
    "skill_view_call",
    "skill_view_tool",
    "skills_list_call",
    "skills_list_tool",
    "unjournaled_skill_records",
]

log = get_logger("memoir.skills")


def _skills_root(engine: Home) -> str:
    return str(engine.home / "skills")


def _externals(engine: Home, roots: dict[str, str]) -> dict[str, ExternalSkill]:
    """The skills of the external folders ``roots`` not in the journal, read now."""
    skills = engine.state.skills.skills
    return {name: found for name, found in external_skills(roots).items()
            if name not in skills or skills[name].root is None}


def external_skill_records(engine: Home) -> list[SkillRecord]:
    """The skills of ``skills.external_dirs`` not in the journal and not shadowed by a
    skill of the home (``memoir skills list`` and the web view show them beside the
    journal's; they enter it at their first change)."""
    return [found.record for name, found in sorted(_externals(engine, _roots(engine)).items())
            if engine.state.skills.live(name) is None]


def placed_skill_records(engine: Home) -> list[SkillRecord]:
    """The skill folders a person (or Hermes) placed in the home's tree that the journal
    does not hold yet, as they would be adopted (``memoir skills list`` and the web view
    show them beside the journal's; the next session start or tool call of a writing
    handle adopts them).  A folder that could not be adopted is left out here; ``memoir
    status`` lists it with the reason."""
    state = engine.state
    records: list[SkillRecord] = []
    for name in sorted({folder.rsplit("/", 1)[-1]
                        for folder in placed_skill_folders(engine.files, state)}):
        try:
            events, _adopted, _ignored = folder_adoption_events(state, engine.files, name)
        except MemoirError:
            continue
        for event in events:
            if isinstance(event, SkillCreated):
                records.append(SkillRecord(
                    name=event.name, category=event.category, provenance=event.provenance,
                    created_by=created_owner(event), content=event.content,
                    files=dict(event.files), protected=event.protected))
    return sorted(records, key=lambda r: (r.category or "", r.name))  # as skills list


def unjournaled_skill_records(engine: Home) -> list[SkillRecord]:
    """The skills on disk the journal does not hold yet, in the order the tools find
    them: the home's hand-placed folders (:func:`placed_skill_records`), then the
    external folders' skills a home skill does not shadow."""
    placed = placed_skill_records(engine)
    taken = {r.name for r in placed}
    return placed + [r for r in external_skill_records(engine) if r.name not in taken]


def external_skills_skipped(engine: Home) -> dict[str, str]:
    """The skill folders of ``skills.external_dirs`` that memoir does not take (too
    deep, a bad name, a name taken, a malformed SKILL.md, a link), by their path under
    the entry, with why (``memoir status`` lists them)."""
    skipped: dict[str, str] = {}
    external_skills(_roots(engine), skipped)
    return dict(sorted(skipped.items()))


def _roots(engine: Home) -> dict[str, str]:
    """entry -> folder, for each usable entry of ``skills.external_dirs`` (resolved once
    per call: a folder may appear or go while the home is open)."""
    dirs = engine.config.skills.external_dirs
    return {entry: str(root) for entry, root in external_roots(dirs, engine.home).items()} \
        if dirs else {}


def adopt_external(engine: Home, found: ExternalSkill, *, before: str) -> str | None:
    """Bring an external skill into the journal where it lives, as it is on disk (actor
    ``user``, a run of kind ``adopt`` of its own), so the change that follows is
    journaled and written in place.  Returns the run id (None: a local skill took the
    name meanwhile)."""
    run_id = short_id("adopt-")
    record = found.record

    def decide(state: State) -> Decision[str | None]:
        existing = state.skills.skills.get(record.name)
        if existing is not None and not existing.archived:
            return Decision(events=[], result=None)
        head = RunStarted(run_id=run_id, kind="adopt", summary=(
            f"skill {record.name} of the external folder {record.root} entered the "
            f"journal as it is on disk, before {before}")[:200])
        adopted = SkillCreated(
            name=record.name, category=record.category, content=record.content,
            provenance="external", created_by="external", files=dict(record.files),
            root=record.root,
            archived_as=archive_key(state, existing) if existing is not None else None)
        return Decision(events=[head, adopted], result=run_id)

    _events, result = engine.commit(decide, by=Caller(actor="user", run=run_id))
    return result


def adopt_skill_edits(engine: Home, name: str, *, before: str) -> str | None:
    """Adopt the hand edits of skill ``name``'s folder — or the folder of a skill named
    ``name`` that a person placed in the tree — as the person's: events of actor
    ``user`` in a run of their own (kind ``adopt``), three-way against what memoir last
    wrote.  Returns the run id, or None when there was nothing to adopt or the edit is
    left for the write to refuse (a conflict, a rule it breaks), or the home is
    read-only, or ``skills.adopt_hand_edits`` is off.  ``before`` names what the
    adoption makes way for (the run's summary)."""
    if engine.readonly or not engine.config.skills.adopt_hand_edits or not name:
        return None
    state, files = engine.state, engine.files
    known = state.skills.skills.get(name)
    if known is not None and not known.archived:
        if not any(d.kind != "blocked" for d in skill_folder_drift(files, state, name)):
            return None
    elif hand_placed_folder(files, name) is None:
        return None
    bases = adoption_bases(engine, state)

    def adopter(state: State, files: FilesView, _force: bool) -> tuple[list[Payload],
                                                                      list[str]]:
        events, adopted, _ignored = folder_adoption_events(state, files, name, bases=bases)
        return events, adopted

    return adopt(engine, [adopter], before=before, lenient=True).run


def adopt_placed_skills(engine: Home, *, before: str) -> str | None:
    """Adopt, as the person's, every skill folder placed in the tree by hand — one run
    (kind ``adopt``, actor ``user``) — so a skill a person or Hermes put on disk is seen
    at once by every tool, the prompt's skill index and the curator (Hermes reads the
    tree on every call).  A folder that cannot be adopted (a bad name, a rule it breaks)
    is left alone on disk; the others are adopted.  Finding none costs a listing of the
    skills folder and of each category folder (no file is read); hand edits of existing
    skills are adopted before a write touches them, as before.  Returns the run id, or
    None (nothing to adopt, a read-only home, ``skills.adopt_hand_edits`` off)."""
    if engine.readonly or not engine.config.skills.adopt_hand_edits:
        return None
    names = sorted({folder.rsplit("/", 1)[-1]
                    for folder in placed_skill_folders(engine.files, engine.state)})
    if not names:
        return None

    def one(name: str) -> Any:
        def adopter(state: State, files: FilesView, _force: bool
                    ) -> tuple[list[Payload], list[str]]:
            try:
                events, adopted, _ignored = folder_adoption_events(state, files, name)
            except MemoirError as exc:  # said, and left for a person (memoir status)
                log.warning("skills.placed_not_adopted", home=str(engine.home), skill=name,
                            error=str(exc))
                return [], []
            return events, adopted
        return adopter

    return adopt(engine, [one(n) for n in names], before=before).run


#: What :func:`change_lifecycle` does.
LIFECYCLE = ("pin", "unpin", "archive", "restore")


def change_lifecycle(engine: Home, action: str, name: str, *, by: Caller,
                     reason: str | None = None, absorbed_into: str | None = None,
                     ) -> list[Event]:
    """Pin, unpin, archive or restore skill ``name`` as ``by`` (one commit), as
    ``memoir skills pin|unpin|archive|restore``, the web view and hosts do it.  A
    folder of that name placed or edited by hand is adopted first (Hermes's lifecycle
    commands see the folder on disk).  Returns the events (none: nothing to change);
    a refusal raises (:class:`~memoir.errors.MemoirError`)."""
    if action not in LIFECYCLE:
        raise ValueError(f"action must be one of {', '.join(LIFECYCLE)}, not {action!r}")
    adopt_skill_edits(engine, name, before=f"{by.actor}'s skill {action}")
    prune = engine.config.curator.prune_builtins

    def build(state: State) -> list[Payload]:
        if action == "pin":
            return pin_events(state, name, actor=by.actor)
        if action == "unpin":
            return unpin_events(state, name, actor=by.actor)
        if action == "archive":
            return archive_events(state, name, actor=by.actor, absorbed_into=absorbed_into,
                                  reason=reason or "archived by the user",
                                  prune_builtins=prune)
        return restore_events(state, name, actor=by.actor,
                              reason=reason or "restored by the user", prune_builtins=prune)

    events, _ = engine.commit(lambda state: Decision(events=build(state)), by=by)
    return list(events)


def _touched(record: SkillRecord, args: dict[str, Any]) -> set[str] | None:
    """The home-relative files a call on ``record`` would change (None: the whole
    skill, for a delete)."""
    action = args.get("action")
    if action == "delete":
        return None
    folder = skill_dir(record)
    path: str | None = SKILL_FILE
    if action in ("write_file", "remove_file") or (action == "patch"
                                                   and args.get("file_path")):
        path, _problem = canonical_file_path(args.get("file_path"), record.name)
    return {f"{folder}/{path}"} if path else set()


def _drift_refusal(files: FilesView, state: State, name: str, action: str,
                   category: str | None = None,
                   paths: Collection[str] | None = None) -> Decision[Any] | None:
    """A write over a hand edit memoir has not adopted is refused: every change of a
    skill whose folder holds one when ``paths`` is None (a delete, an archive), else
    only a change of one of those files."""
    drifted = [d for d in skill_folder_drift(files, state, name, category)
               if d.kind != "blocked" and (paths is None or d.path in paths)]
    if not drifted:
        return None
    record = state.skills.skills.get(name)
    folder = skill_dir(record) if record is not None else ""
    strays = [d.path for d in drifted if d.kind == "added" and record is not None
              and canonical_file_path(d.path[len(folder) + 1:], name)[1] is not None]
    if strays and len(strays) == len(drifted):
        reason = (
            f"Refusing to change skill '{name}': {', '.join(strays)} is not a file memoir "
            "can keep with a skill (only SKILL.md and files under references/, templates/, "
            f"scripts/ and assets/), and this would remove it. Ask the user to move it out "
            f"of {folder}/, then retry.")
    else:
        reason = (
            f"Refusing to change skill '{name}': {', '.join(d.path for d in drifted)} "
            "changed on disk since memoir wrote it, and this write would hide that edit. "
            "Ask the user to run `memoir adopt` to keep the edit (or `memoir rebuild "
            "--force` to discard it), then retry.")
    refusal = Refusal("drift", reason)
    return Decision(events=[refusal.event(name, action)],
                    result={"success": False, "error": refusal.reason})


def _target_paths(state: State, events: list[Payload]) -> list[tuple[str, str, str]]:
    """(skill folder, file, label) for every file the events write or remove, with the
    folder alone (file "") for a skill deleted or archived as a whole."""
    paths: list[tuple[str, str, str]] = []
    for event in events:
        name = getattr(event, "name", "")
        if isinstance(event, SkillCreated):
            folder = skill_dir(SkillRecord(name=name, category=event.category))
            paths.append((folder, SKILL_FILE, SKILL_FILE))
            continue
        record = state.skills.skills.get(name)
        if record is None:
            continue
        folder = skill_dir(record)
        if isinstance(event, SkillContentSet):
            paths.append((folder, SKILL_FILE, SKILL_FILE))
        elif isinstance(event, SkillPatched | SkillFileWritten | SkillFileRemoved):
            paths.append((folder, event.file, event.file))
        elif isinstance(event, SkillDeleted | SkillArchived):
            paths.append((folder, "", ""))
    return paths


def _path_refusal(files: FilesView, state: State, name: str, action: str,
                  events: list[Payload]) -> Decision[Any] | None:
    """A write that would leave the skill's folder through a link, or land on one, is
    refused before it is journaled (Hermes refuses the first as an escape; memoir
    never writes through a link below its home, so it refuses both)."""
    for folder, file, label in _target_paths(state, events):
        rel = f"{folder}/{file}" if file else folder
        what = files.kind(rel)
        if what not in ("link", "other") or (not file and what == "other"):
            continue  # a folder is what a skill's folder should be
        if not file:
            reason = (f"Refusing to delete '{files.absolute(folder)}': the skill directory is "
                      "a symlink/junction. Remove the link target manually if intended.")
        else:
            escape = files.escape(rel, folder)
            if escape is not None:
                reason = f"Path escapes allowed directory: {escape}"
            elif what == "link":
                reason = (f"Refusing to write '{label}' in skill '{name}': a symbolic link "
                          "stands on its path, and memoir never writes through a link in "
                          "its skills tree. Remove the link, then retry.")
            else:
                reason = (f"Refusing to write '{label}' in skill '{name}': something that is "
                          "not a file stands where it goes. Move it away, then retry.")
        refusal = Refusal("path", reason)
        return Decision(events=[refusal.event(name, action)],
                        result={"success": False, "error": reason})
    return None


def _link_escape(files: FilesView, state: State, name: str, file_path: Any) -> str | None:
    """Hermes's error when ``file_path`` of skill ``name`` leads out of the skill's
    folder through a link (None: it does not, or names no file a skill may hold)."""
    record = state.skills.live(name)
    path, problem = canonical_file_path(file_path, name) if isinstance(file_path, str) \
        else (None, "no path")
    if record is None or path is None or problem:
        return None
    folder = skill_dir(record)
    rel = f"{folder}/{path}"
    escape = files.escape(rel, folder) if files.kind(rel) == "link" else None
    return None if escape is None else f"Path escapes allowed directory: {escape}"


def skill_manage_call(
    engine: Home,
    args: dict[str, Any],
    *,
    by: Caller | str,
    viewed: Collection[ReadMark] = (),
    approving: PendingWrite | None = None,
) -> dict[str, Any]:
    """Run one ``skill_manage`` call through the command layer as ``by``; returns
    Hermes's result.

    When ``by`` names a run with a kind, a call that lands starts it in the same append.
    With
    ``skills.write_approval`` on, a write by anyone but a person that would land is
    held (``write.pending``, result ``staged``); ``approving`` replays a held write for
    a person, its ``write.approved`` first in the same append (see
    :func:`memoir.memory.commands.memory_call`).
    """
    by = Caller.of(by)
    actor = by.actor
    gate = ApprovalGate.of("skills", actor=actor, enabled=engine.config.skills.write_approval,
                           approving=approving)

    name = str(args.get("name", ""))
    action = str(args.get("action", ""))
    # Background writes are always scanned; an agent's when the home asks for it.
    scan = is_background(actor) or engine.config.skills.guard_agent_created
    if action in ACTIONS:
        # As Hermes reads the tree on every call: the person's hand edits of this
        # skill (or a skill they placed by hand) become part of the journal first.
        adopt_skill_edits(engine, name, before=f"{actor}'s skill_manage {action}")
    roots = _roots(engine)
    external = _externals(engine, roots)
    outside = external.get(name) if engine.state.skills.live(name) is None else None
    if outside is not None and action in WRITES and action != "create" \
            and not is_background(actor):
        adopt_external(engine, outside, before=f"{actor}'s skill_manage {action}")
        external.pop(name, None)

    def decide(state: State, files: FilesView) -> Decision[dict[str, Any]]:
        record = state.skills.live(name)
        found = external.get(name) if record is None else None
        if found is not None and action == "create":
            return Decision(events=[], result={
                "success": False,
                "error": f"A skill named '{name}' already exists at {found.folder}."})
        if found is not None and action in WRITES:  # a background actor's
            refusal = Refusal("external", (
                f"Refusing background curator {action} for skill '{name}': the skill lives "
                "in skills.external_dirs, which are externally owned and read-only to "
                "autonomous curation."))
            return Decision(events=[refusal.event(name, action)],
                            result={"success": False, "error": refusal.reason})
        if (action in WRITES and record is not None
                and background_refusal(state, actor, name, action) is None):
            # What is left of a hand edit (one that could not be adopted) is never
            # hidden: a change of that file, or of the whole skill, is refused.
            refused = _drift_refusal(files, state, name, action,
                                     paths=_touched(record, args))
            if refused is not None:
                return refused
        escape = _link_escape(files, state, name, args.get("file_path")) \
            if action in ("patch", "remove_file") else None
        if escape is not None:
            refusal = Refusal("path", escape)
            return Decision(events=[refusal.event(name, action)],
                            result={"success": False, "error": escape})
        outcome = decide_manage(
            state, args, actor=actor, root=_skills_root(engine), viewed=viewed, scan=scan,
            agent_owns=engine.config.skills.agent_owns_conversation_skills, roots=roots)
        if outcome.success:
            refused = _path_refusal(files, state, name, action, list(outcome.events))
            if refused is not None:
                return refused
        if outcome.success and action == "create":
            category = args.get("category")
            refused = _drift_refusal(files, state, name, action,
                                     category.strip() or None if isinstance(category, str)
                                     else None)
            if refused is not None:
                return refused
        payloads, staged = gate.passes(
            state, outcome.events, success=outcome.success,
            message=str(outcome.result.get("message", "")),
            held=lambda: Held(action, skill_gist(args),
                              "background_review" if is_background(actor) else "foreground",
                              skill_tool_args(args)))
        result = outcome.result if staged is None else {  # Hermes's order of keys
            **{k: staged[k] for k in ("success", "staged", "pending_id")},
            "gist": skill_gist(args), "message": staged["message"]}
        return Decision(events=payloads, result=result,
                        summary=f"skill_manage {action} {name}")

    if scan and action in ACTIONS:
        prescan(args)  # off the journal's lock
    _events, answer = engine.commit_with_files(decide, by=by)
    assert answer is not None
    return answer


def skill_view_call(
    engine: Home,
    args: dict[str, Any],
    *,
    by: Caller | str,
    record: bool = True,
) -> tuple[dict[str, Any], ReadMark | None]:
    """Run one ``skill_view`` call as ``by``: one ``skill.viewed`` event per successful
    call (``record=False``: none, and no hand edit adopted — a caller that may not
    append reads the skill as the journal has it).

    Returns the result and the read mark for what was shown (None on failure).
    """
    by = Caller.of(by)
    roots = _roots(engine)
    external = _externals(engine, roots)
    name = args.get("name")
    if isinstance(name, str) and record:
        adopt_skill_edits(engine, name.rsplit("/", 1)[-1], before=f"{by.actor}'s skill_view")
    escape = _link_escape(engine.files, engine.state, str(name or ""), args.get("file_path"))
    if escape is not None:  # Hermes's answer; nothing shown, nothing recorded
        return {"success": False, "error": escape,
                "hint": "Use a relative path within the skill directory"}, None

    def view(state: State) -> tuple[Any, ReadMark | None]:
        outcome = view_skill(state, args, root=_skills_root(engine), environ=os.environ,
                             external=external, roots=roots)
        if outcome.shown is None:
            return outcome, None
        name, path, text = outcome.shown
        return outcome, (name, path, text_digest(text))

    if not record:
        outcome, mark = view(engine.state)
        return outcome.result, mark
    shown: list[ReadMark | None] = [None]

    def decide(state: State) -> Decision[dict[str, Any]]:
        outcome, shown[0] = view(state)
        return Decision(events=[outcome.event] if outcome.event else [], result=outcome.result)

    _events, result = engine.commit(decide, by=by)
    assert result is not None
    return result, shown[0]


def skills_list_call(engine: Home, args: dict[str, Any]) -> dict[str, Any]:
    """Answer ``skills_list`` from the current state, after adopting the skill folders
    placed in the tree by hand (:func:`adopt_placed_skills`; nothing else appended)."""
    adopt_placed_skills(engine, before="skills_list")
    return list_skills(engine.state, args, external=_externals(engine, _roots(engine)))


def record_use(
    engine: Home,
    name: str,
    *,
    by: Caller | str = "agent",
    via: str = "activation",
) -> Event:
    """Journal that skill ``name`` was used (a slash command, a preload, a cron run).

    Raises NotFoundError for a skill that does not exist (a folder of that name placed
    by hand is adopted first).
    """
    adopt_skill_edits(engine, name, before=f"a use of skill {name}")

    def decide(state: State) -> Decision[None]:
        if name not in state.skills.skills:
            raise NotFoundError(f"no skill named '{name}' to record a use of")
        return Decision(events=[SkillUsed(name=name, via=via)])

    events, _ = engine.commit(decide, by=by)
    return events[-1]


# -- tool handlers ---------------------------------------------------------------------------


def skill_manage_tool(engine: Home, ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    return skill_manage_call(engine, args, by=ctx.caller(), viewed=ctx.viewed)


def skill_view_tool(engine: Home, ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    # A view is no write: it does not start the caller's run.
    result, mark = skill_view_call(engine, args, by=ctx.caller(starts_run=False),
                                   record=ctx.records_reads)
    if mark is not None:
        ctx.viewed.add(mark)
    return result


def skills_list_tool(engine: Home, _ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    return skills_list_call(engine, args)
