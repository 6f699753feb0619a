"""``skill_manage`` decided against a state: Hermes's arguments, rules and results,
recorded as events.

:func:`decide_manage` is pure.  Given the state, the tool arguments, the actor and
what that actor has viewed (for the read-before-write rule), it returns the
Hermes-shaped result and the events to append: nothing for an invalid call, a
``skill.write_rejected`` for a call a guard refused, and for a success the events
that state the change completely (full new text and the text it replaced).

Order of checks (spec §3.4): the background guard for a change to an existing skill
comes first, then the per-action argument checks, lookup and rules.  Differences
from Hermes, on purpose:

- the frontmatter ``name`` must equal the skill name (one key per skill);
- ``write_file`` to ``SKILL.md`` is validated like ``edit`` (Hermes writes it blind);
- a background ``delete`` archives, and needs ``absorbed_into`` (as in Hermes); a
  foreground ``delete`` appends ``skill.deleted`` and the content stays in the
  journal (Hermes removes the folder for good);
- background actors may maintain every skill the agent owns, including ones the
  foreground agent created (Hermes leaves those to nobody, weak point 9).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from memoir import lazyre
from memoir.credentials import credential_message, find_credentials
from memoir.engine.caller import ReadMark
from memoir.errors import MemoirError
from memoir.events.skills import (
    Provenance,
    SkillContentSet,
    SkillCreated,
    SkillFileRemoved,
    SkillFileWritten,
    SkillPatched,
)
from memoir.events.types import Payload
from memoir.projections.skills import (
    SKILL_FILE,
    SKILLS_DIR,
    SkillRecord,
    skill_dir,
    skill_location,
)
from memoir.projections.state import State
from memoir.skills.fuzzy import NOT_FOUND, closest_lines, find_and_replace
from memoir.skills.guards import (
    GuardRefusal,
    Refusal,
    archive_events,
    background_refusal,
    check_absorbed_into,
    delete_events,
    is_background,
    pinned_refusal,
)
from memoir.skills.model import (
    ALLOWED_SUBDIRS,
    PROTECTED_SKILLS,
    canonical_file_path,
    check_category,
    check_file_content,
    check_name,
    check_skill_md,
    file_layout_problem,
    parse_frontmatter,
    path_length_problem,
)
from memoir.threats import first_threat_id

__all__ = [
    "ACTIONS", "WRITES", "ManageOutcome", "ReadMark", "archive_key", "decide_manage",
    "layout_clash", "person_create_events", "person_skill_problem", "prescan",
    "text_digest",
]

ACTIONS = ("create", "patch", "edit", "delete", "write_file", "remove_file")
#: The actions that change an existing skill (the background guard applies).
WRITES = frozenset({"edit", "patch", "delete", "write_file", "remove_file"})


def prescan(args: dict[str, Any]) -> None:
    """Scan the texts a ``skill_manage`` call brings before the journal's lock is taken,
    so the scan under it (of the files as they will be) finds its patterns compiled and
    other writers do not wait for that."""
    for key in ("content", "new_string", "file_content"):
        text = args.get(key)
        if isinstance(text, str) and text:
            first_threat_id(text)


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class ManageOutcome:
    """A decided ``skill_manage`` call: the tool result and the events to append."""

    result: dict[str, Any]
    events: list[Payload] = field(default_factory=list)

    @property
    def success(self) -> bool:
        return bool(self.result.get("success"))


def _fail(message: str, **extra: Any) -> ManageOutcome:
    return ManageOutcome({"success": False, "error": message, **extra})


def _refuse(name: str, action: str, refusal: Refusal, **extra: Any) -> ManageOutcome:
    return ManageOutcome({"success": False, "error": refusal.reason, **extra},
                         [refusal.event(name, action)])


def _not_found(state: State, name: str, suffix: str = "") -> ManageOutcome:
    record = state.skills.skills.get(name)
    archived = ""
    if record is not None and record.archived:
        # Hermes's message, and where the skill went.
        archived = (f" It is archived ({skill_dir(record)}): ask the user to run "
                    f"`memoir skills restore {name}` if it is needed again.")
    return _fail(f"Skill '{name}' not found. Use skills_list() to see available skills."
                 f"{archived}{suffix}")


def _description(content: str) -> str:
    frontmatter, _ = parse_frontmatter(content)
    return str(frontmatter.get("description", ""))[:120]


def _clip(text: str, limit: int = 200) -> str:
    return text[:limit] + ("…" if len(text) > limit else "")


class _Call:
    """One ``skill_manage`` call: its arguments and the context to decide it in."""

    def __init__(self, state: State, args: Mapping[str, Any], actor: str, root: str,
                 viewed: Collection[ReadMark], roots: Mapping[str, str] | None = None) -> None:
        self.state = state
        self.actor = actor
        self.root = root.rstrip("/")
        #: entry of skills.external_dirs -> its folder, for the entries usable here.
        self.roots = roots or {}
        self.viewed = viewed
        #: Whether a skill the agent creates in a conversation is the agent's.
        self.agent_owns = False
        self.action = args.get("action", "")
        name = args.get("name", "")
        self.name: str = name if isinstance(name, str) else ""
        self.content = args.get("content")
        self.category = args.get("category")
        self.file_path = args.get("file_path")
        self.file_content = args.get("file_content")
        self.old_string = args.get("old_string")
        self.new_string = args.get("new_string")
        self.replace_all = bool(args.get("replace_all", False))
        self.absorbed_into = args.get("absorbed_into")

    def abs_dir(self, record: SkillRecord) -> str:
        return "/".join(skill_location(record, self.root, self.roots))

    def places(self, record: SkillRecord, path: str) -> list[str]:
        """Every absolute path a file of the skill will have: in the tree and, once
        archived, under the archive."""
        archived = msgspec.structs.replace(record, state="archived")
        return [f"{self.abs_dir(r)}/{path}" for r in (record, archived)]

    def read_guard(self, record: SkillRecord, path: str, label: str) -> ManageOutcome | None:
        """Background actors must have viewed the exact current text they change."""
        if not is_background(self.actor):
            return None
        text = record.file(path) or ""
        if (record.name, path, text_digest(text)) in self.viewed:
            return None
        refusal = Refusal("read_before_write", (
            f"Refusing background curator {self.action} for skill '{record.name}': the "
            f"current {label} content has not been loaded in this review turn. Call "
            "skill_view(name) for SKILL.md, or skill_view(name, file_path=...) for a "
            "supporting file, then retry the write using the content just returned."
        ))
        return _refuse(record.name, str(self.action), refusal, _read_before_write_required=True)

    # -- actions ------------------------------------------------------------------------------

    def create(self) -> ManageOutcome:
        if not self.content:
            return _fail("content is required for 'create'. Provide the full SKILL.md text "
                         "(frontmatter + body).")
        name = self.name
        problem = check_name(name) or check_category(self.category)
        if problem:
            return _fail(problem)
        category = self.category.strip() if isinstance(self.category, str) else None
        category = category or None
        problem = check_skill_md(self.content, name)
        if problem:
            return _fail(problem)
        skills = self.state.skills.skills
        existing = skills.get(name)
        archived_as = None
        if existing is not None and existing.archived:
            # As in Hermes, an archived skill does not hold its name: it is kept under
            # the name with its archive time appended.
            archived_as = archive_key(self.state, existing)
        elif existing is not None:
            return _fail(f"A skill named '{name}' already exists at "
                         f"{self.abs_dir(existing)}.")
        clash = layout_clash(self.state, name, category)
        if clash:
            return _fail(clash)
        problem = path_length_problem(
            self.places(SkillRecord(name=name, category=category), SKILL_FILE))
        if problem:
            return _fail(problem)
        # Hermes's provenance rule (spec §3.5): only a background actor's skill belongs
        # to the agent (and so to the curator); one the agent writes while a person is
        # there, at their request, belongs to the person — unless the home gives those
        # to the agent too (``agent_owns``: docs/skills.md, "Who owns a skill").
        provenance: Provenance = "user" if self.actor == "user" else "agent"
        owner = "agent" if is_background(self.actor) or (
            self.agent_owns and self.actor != "user") else "user"
        event = SkillCreated(name=name, category=category, content=self.content,
                             provenance=provenance, protected=name in PROTECTED_SKILLS,
                             created_by=owner, archived_as=archived_as)
        rel = f"{category}/{name}" if category else name
        result: dict[str, Any] = {
            "success": True,
            "message": f"Skill '{name}' created.",
            "path": rel,
            "skill_md": f"{self.root}/{rel}/{SKILL_FILE}",
            "_change": {"description": _description(self.content)},
        }
        if category:
            result["category"] = category
        result["hint"] = (
            "Add references, templates or scripts with skill_manage(action='write_file', "
            f"name='{name}', file_path='references/example.md', file_content='...')."
        )
        return ManageOutcome(result, [event])

    def edit(self) -> ManageOutcome:
        if not self.content:
            return _fail("content is required for 'edit'. Provide the full updated SKILL.md "
                         "text.")
        problem = check_skill_md(self.content, self.name)
        if problem:
            return _fail(problem)
        record = self.state.skills.live(self.name)
        if record is None:
            return _not_found(self.state, self.name)
        guard = self.read_guard(record, SKILL_FILE, SKILL_FILE)
        if guard:
            return guard
        event = SkillContentSet(name=self.name, content=self.content, previous=record.content)
        return ManageOutcome({
            "success": True,
            "message": f"Skill '{self.name}' updated (full rewrite).",
            "path": self.abs_dir(record),
            "_change": {"description": _description(self.content)},
        }, [event])

    def patch(self) -> ManageOutcome:
        old, new = self.old_string, self.new_string
        if not old or not isinstance(old, str):
            return _fail("old_string is required for 'patch'. Provide the text to find.")
        if new is None or not isinstance(new, str):
            return _fail("new_string is required for 'patch'. Use empty string to delete "
                         "matched text.")
        record = self.state.skills.live(self.name)
        if record is None:
            return _not_found(self.state, self.name)
        path = SKILL_FILE
        label = SKILL_FILE
        if self.file_path:
            canonical, problem = canonical_file_path(self.file_path, self.name)
            if problem or canonical is None:
                return _fail(problem or "bad file_path")
            path, label = canonical, str(self.file_path)
        current = record.file(path)
        if current is None:
            return _fail(f"File not found: {path}")
        guard = self.read_guard(record, path, label)
        if guard:
            return guard
        outcome = find_and_replace(current, old, new, self.replace_all)
        if outcome.error is not None:
            message = outcome.error
            if outcome.error == NOT_FOUND:
                hint = closest_lines(old, current)
                if hint:
                    message += "\n\nDid you mean one of these sections?\n" + hint
            return _fail(message, file_preview=current[:500] + ("..." if len(current) > 500
                                                                  else ""))
        if path == SKILL_FILE:
            problem = check_skill_md(outcome.content, self.name)
            if problem:
                return _fail(f"Patch would break SKILL.md structure: {problem}")
        else:
            problem = check_file_content(outcome.content, label)
            if problem:
                return _fail(problem)
        k = outcome.count
        event = SkillPatched(name=self.name, file=path, content=outcome.content,
                             previous=current, old_string=old, new_string=new, replacements=k)
        return ManageOutcome({
            "success": True,
            "message": (f"Patched {label} in skill '{self.name}' "
                        f"({k} replacement{'s' if k > 1 else ''})."),
            "_change": {"old": _clip(old), "new": _clip(new)},
        }, [event])

    def delete(self) -> ManageOutcome:
        name = self.name
        record = self.state.skills.live(name)
        if record is None:
            return _not_found(self.state, name)
        umbrella = self.absorbed_into.strip() if isinstance(self.absorbed_into, str) else ""
        background = is_background(self.actor)
        if background and not umbrella:
            return _refuse(name, "delete", Refusal("consolidation", (
                f"Refusing background curator delete of skill '{name}': the consolidation "
                "pass may only archive a skill it has absorbed into an umbrella. Pass "
                "absorbed_into=<umbrella> (the umbrella must already exist) to record a "
                "verified consolidation. Pruning a skill with no forwarding target is not "
                "permitted here — the deterministic inactivity prune handles staleness "
                f"archival separately. Keeping '{name}' active."
            )), _fail_closed=True)
        if record.pinned:
            return _refuse(name, "delete", pinned_refusal(record, "delete").refusal)
        if umbrella:
            problem = check_absorbed_into(self.state, name, umbrella)
            if problem:
                return _fail(problem)
        absorbed = f" Content absorbed into '{umbrella}'." if umbrella else ""
        try:
            if background:
                events = archive_events(self.state, name, actor=self.actor,
                                        absorbed_into=umbrella)
                where = f"{self.root}/.archive/" + skill_dir(record)[len(SKILLS_DIR) + 1:]
                return ManageOutcome({
                    "success": True,
                    "message": f"Skill '{name}' archived (archived to {where}).{absorbed}",
                    "_archived": True,
                }, events)
            events = delete_events(self.state, name, actor=self.actor,
                                   absorbed_into=umbrella or None)
        except GuardRefusal as refusal:
            return _refuse(name, "delete", refusal.refusal)
        return ManageOutcome({"success": True, "message": f"Skill '{name}' deleted.{absorbed}"},
                             events)

    def write_file(self) -> ManageOutcome:
        if not self.file_path:
            return _fail("file_path is required for 'write_file'. Example: "
                         "'references/api-guide.md'")
        if self.file_content is None or not isinstance(self.file_content, str):
            return _fail("file_content is required for 'write_file'.")
        path, problem = canonical_file_path(self.file_path, self.name)
        if problem or path is None:
            return _fail(problem or "bad file_path")
        label = str(self.file_path)
        problem = check_file_content(self.file_content, label)
        if problem:
            return _fail(problem)
        record = self.state.skills.live(self.name)
        if record is None:
            return _not_found(self.state, self.name, " Create it first with action='create'.")
        problem = (file_layout_problem(path, [SKILL_FILE, *record.files])
                   or path_length_problem(self.places(record, path)))
        if problem:
            return _fail(problem)
        event: Payload
        if path == SKILL_FILE:
            problem = check_skill_md(self.file_content, self.name)
            if problem:
                return _fail(problem)
            event = SkillContentSet(name=self.name, content=self.file_content,
                                    previous=record.content)
        else:
            event = SkillFileWritten(name=self.name, file=path, content=self.file_content,
                                     previous=record.files.get(path))
        if record.file(path) is not None:
            guard = self.read_guard(record, path, label)
            if guard:
                return guard
        return ManageOutcome({
            "success": True,
            "message": f"File '{label}' written to skill '{self.name}'.",
            "path": f"{self.abs_dir(record)}/{path}",
        }, [event])

    def remove_file(self) -> ManageOutcome:
        if not self.file_path:
            return _fail("file_path is required for 'remove_file'.")
        path, problem = canonical_file_path(self.file_path, self.name)
        if problem or path is None:
            return _fail(problem or "bad file_path")
        if path == SKILL_FILE:
            return _fail("SKILL.md cannot be removed; delete the skill instead.")
        record = self.state.skills.live(self.name)
        if record is None:
            return _not_found(self.state, self.name)
        label = str(self.file_path)
        if path not in record.files:
            available = sorted(f for f in record.files if f.split("/")[0] in ALLOWED_SUBDIRS)
            return _fail(f"File '{label}' not found in skill '{self.name}'.",
                         available_files=available or None)
        guard = self.read_guard(record, path, label)
        if guard:
            return guard
        event = SkillFileRemoved(name=self.name, file=path, previous=record.files[path])
        return ManageOutcome({
            "success": True,
            "message": f"File '{label}' removed from skill '{self.name}'.",
        }, [event])


def archive_key(state: State, record: SkillRecord) -> str:
    """The name an archived skill is kept under when its own is taken again:
    ``<name>-<archived at, YYYYMMDDHHMMSS>`` (Hermes's suffix), unique."""
    stamp = "".join(ch for ch in (record.archived_at or "")[:19] if ch.isdigit())
    key = f"{record.name}-{stamp.ljust(14, '0')}"
    n = 1
    while key in state.skills.skills:
        n += 1
        key = f"{record.name}-{stamp.ljust(14, '0')}-{n}"
    return key


def layout_clash(state: State, name: str, category: str | None) -> str | None:
    """A new skill's folder must not nest in, or hold, another skill's folder."""
    for other in state.skills.skills.values():
        if other.archived:
            continue  # under skills/.archive/, out of the tree's way
        if category is not None and other.category is None and other.name == category:
            return (f"Category '{category}' is the name of an uncategorised skill; choose "
                    "another category.")
        if category is None and other.category == name:
            return (f"'{name}' is already a category folder (it holds '{other.name}'); "
                    "choose another name or give a category.")
    return None


def decide_manage(
    state: State,
    args: Mapping[str, Any],
    *,
    actor: str,
    root: str = SKILLS_DIR,
    viewed: Collection[ReadMark] = (),
    scan: bool | None = None,
    agent_owns: bool = False,
    roots: Mapping[str, str] | None = None,
) -> ManageOutcome:
    """Decide one ``skill_manage`` call by ``actor``.

    ``root`` is how result paths begin (the skills folder's absolute path, for the
    agent), ``roots`` the same for each usable entry of ``skills.external_dirs``;
    ``viewed`` holds the files the actor was shown by ``skill_view``.
    ``scan``: threat-scan the text the call writes (spec §3.7); the default scans the
    writes of background actors (reviewers, the curator) always, a foreground agent's
    only when the caller asks (``skills.guard_agent_created``).  ``agent_owns``: a
    skill the agent creates in a conversation is the agent's (else the person's, as
    Hermes has it: ``skills.agent_owns_conversation_skills``).
    """
    outcome = _decide(state, args, actor=actor, root=root, viewed=viewed,
                      agent_owns=agent_owns, roots=roots or {})
    if scan is None:
        scan = is_background(actor)
    if scan and outcome.success:
        name = str(args.get("name", ""))
        for text in _written_texts(outcome.events):
            threat = first_threat_id(text)
            if threat is not None:
                return _refuse(name, str(args.get("action")), Refusal("threat", (
                    f"Refusing to write skill '{name}': its text matches threat pattern "
                    f"'{threat}'. Skills are read into the agent's context, so they may not "
                    "carry instructions aimed at the agent or commands that leak data.")))
            kinds = find_credentials(text)
            if kinds:
                return _refuse(name, str(args.get("action")), Refusal(
                    "secret", f"Refusing to write skill '{name}': "
                              f"{credential_message(kinds).removeprefix('Blocked: ')}"))
    return outcome


def _written_texts(events: Sequence[Payload]) -> list[str]:
    """What a write brings that the skill did not hold: a new skill's files whole; of a
    changed file, its paragraphs that are not in the file as it was (a patch to a long
    page is judged by what it adds, not by the page the home already held; a paragraph
    edited, a negation taken out included)."""
    texts: list[str] = []
    for event in events:
        if isinstance(event, SkillCreated):
            texts += [event.content, *event.files.values()]
        elif isinstance(event, SkillContentSet | SkillPatched | SkillFileWritten):
            texts.append(event.content if event.previous is None else
                         _added(event.previous, event.content))
    return [text for text in texts if text]


_BLANK_LINE = lazyre.compile(r"\n[ \t]*\n")


def _added(before: str, after: str) -> str:
    held = {p.strip() for p in _BLANK_LINE.split(before)}
    return "\n\n".join(p for p in _BLANK_LINE.split(after) if p.strip() not in held)


def _decide(state: State, args: Mapping[str, Any], *, actor: str, root: str,
            viewed: Collection[ReadMark], agent_owns: bool = False,
            roots: Mapping[str, str]) -> ManageOutcome:
    call = _Call(state, args, actor, root, viewed, roots)
    call.agent_owns = agent_owns
    action = call.action
    live = state.skills.live(call.name)
    if action in WRITES and live is not None:
        refusal = background_refusal(state, actor, call.name, str(action))
        if refusal is not None:
            return _refuse(call.name, str(action), refusal)
        if action != "create" and live.root is not None and live.root not in roots:
            return _fail(
                f"Skill '{call.name}' lives in the external folder '{live.root}', which "
                "skills.external_dirs of this home does not name (or names a folder that "
                "is missing); add it there to change the skill from here.")
    handler = {
        "create": call.create, "edit": call.edit, "patch": call.patch, "delete": call.delete,
        "write_file": call.write_file, "remove_file": call.remove_file,
    }.get(action if isinstance(action, str) else "")
    if handler is None:
        return _fail(f"Unknown action '{action}'. Use: create, edit, patch, delete, "
                     "write_file, remove_file")
    return handler()


def person_skill_problem(name: str, category: str | None, content: str) -> str | None:
    """Why a skill a person writes (``memoir skills create``, the web view's editor)
    cannot be created as given: the name, category and SKILL.md rules, and a
    frontmatter name that disagrees with the skill's.  None: it can."""
    problem = check_name(name) or check_category(category) or check_skill_md(content, name)
    if problem:
        return problem
    said = parse_frontmatter(content)[0].get("name")
    if isinstance(said, str) and said.strip() and said.strip() != name:
        return (f"its frontmatter names the skill {said.strip()!r}, not {name!r}; make "
                f"them agree (or create it as {said.strip()!r})")
    return None


def person_create_events(state: State, name: str, category: str | None,
                         content: str) -> list[Payload]:
    """The ``skill.created`` of a person's skill (provenance ``user``), checked against
    the state: the name free, the folder clear of other skills' (raises MemoirError)."""
    category = (category or "").strip() or None
    existing = state.skills.skills.get(name)
    if existing is not None:
        raise MemoirError(f"a skill named '{name}' already exists at {skill_dir(existing)}")
    clash = layout_clash(state, name, category)
    if clash:
        raise MemoirError(clash)
    return [SkillCreated(name=name, category=category, content=content, provenance="user",
                         protected=name in PROTECTED_SKILLS)]
