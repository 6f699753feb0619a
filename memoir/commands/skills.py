"""``memoir skills …``: list, read, audit and change skills as a person (actor ``user``).

Every command that changes something is one run (a ``run.started`` of kind ``cli``
first), so ``memoir revert RUN`` can undo it.  The group is added to the root by
:mod:`memoir.cli`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from memoir.api import Memoir
from memoir.commands.base import (
    Exit,
    UserError,
    complete_skills,
    confirm,
    echo_json,
    home_option,
    is_json,
    open_home,
    styled,
    table,
    write_json,
    yes_option,
)
from memoir.engine.commit import Caller, Decision
from memoir.errors import NotFoundError
from memoir.events.types import Event, Payload
from memoir.fs.outside import read_text
from memoir.ids import short_id
from memoir.lookup import did_you_mean
from memoir.projections.skills import SKILL_FILE, skill_dir
from memoir.projections.state import State
from memoir.skills.adopt import adopt_skills
from memoir.skills.guards import delete_events
from memoir.skills.history import skill_at, skill_history, skill_row
from memoir.skills.importer import PROVENANCES, import_skills
from memoir.skills.manage import person_create_events, person_skill_problem
from memoir.skills.model import (
    MAX_FILE_BYTES,
)
from memoir.skills.tools import change_lifecycle, unjournaled_skill_records

__all__ = ["skills_group"]


@click.group("skills")
@home_option
def skills_group() -> None:
    """List, read, audit and change skills (as actor `user`)."""


def skill_run(
    handle: Memoir, summary: str, build: Callable[[State], list[Payload]]
) -> tuple[str, list[Event]]:
    """Commit what ``build`` decides as one CLI run; returns the run id and its events."""
    run = short_id("cli-")

    events, _ = handle.commit(lambda state: Decision(events=build(state)),
                              by=Caller(actor="user", run=run, run_kind="cli",
                                        run_summary=summary))
    return run, events


def lifecycle_run(handle: Memoir, action: str, name: str, **options: Any
                  ) -> tuple[str, list[Event]]:
    """Pin, unpin, archive or restore ``name`` as one CLI run (a folder placed or edited
    by hand adopted first); returns the run id and its events."""
    run = short_id("cli-")
    events = change_lifecycle(handle, action, name, by=Caller(
        actor="user", run=run, run_kind="cli", run_summary=f"{action} skill {name}"),
        **options)
    return run, events


def _json(run: str, events: list[Event], **extra: Any) -> bool:
    """Print a write's JSON under --json; True when it did."""
    if is_json():
        echo_json(write_json(run, events, **extra))
    return is_json()


@skills_group.command("list")
@home_option
@click.option("--all", "show_all", is_flag=True, help="Include archived skills.")
@click.option("--at", "at_seq", type=int, default=None, help="As of this seq.")
@click.pass_context
def list_command(ctx: click.Context, show_all: bool, at_seq: int | None) -> None:
    """List skills with their state, provenance, owner and usage."""
    handle = open_home(ctx, readonly=True)
    state = handle.view(at_seq)
    records = sorted(state.skills.skills.values(), key=lambda r: (r.category or "", r.name))
    rows = [skill_row(r) for r in records if show_all or not r.archived]
    if at_seq is None:  # skills on disk (placed by hand, external) not journaled yet
        rows += [skill_row(r, journaled=False) for r in unjournaled_skill_records(handle)]
    if is_json():
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if not rows:
        click.echo("no skills" + ("" if show_all else " (archived ones: --all)"))
        return
    table(["NAME", "CATEGORY", "STATE", "PROVENANCE", "OWNER", "PIN", "USE", "VIEW", "PATCH",
           "LAST ACTIVITY"],
          [[row["name"], row["category"], row["state"], row["provenance"], row["created_by"],
            "yes" if row["pinned"] else "-", row["use_count"], row["view_count"],
            row["patch_count"], (row["last_activity_at"] or "-")[:19]] for row in rows],
          flex=0, right=[6, 7, 8])


@skills_group.command("show")
@home_option
@click.argument("name", shell_complete=complete_skills)
@click.option("--at", "at_seq", type=int, default=None, help="As of this seq.")
@click.option("--file", "file_path", default=None,
              help="A support file (e.g. references/api.md) instead of SKILL.md.")
@click.pass_context
def show_command(ctx: click.Context, name: str, at_seq: int | None,
                 file_path: str | None) -> None:
    """Print a skill's SKILL.md (or one of its files) as of now or of seq --at."""
    handle = open_home(ctx, readonly=True)
    record = skill_at(handle, name, at_seq)
    when = f"at seq {at_seq}" if at_seq is not None else "now"
    if record is None:
        known = handle.view(at_seq).skills.skills
        raise NotFoundError(f"no skill named '{name}' {when}{did_you_mean(name, known)} "
                            f"(`memoir skills history {name}` lists its versions)")
    text = record.file(file_path or SKILL_FILE)
    if text is None:
        files = ", ".join(sorted(record.files)) or "none"
        raise NotFoundError(f"skill '{name}' has no file '{file_path}' {when} "
                            f"(support files: {files})")
    if is_json():
        echo_json({"name": name, "file": file_path or SKILL_FILE, "text": text,
                   "archived": record.archived, "seq": at_seq, "path": skill_dir(record)})
        return
    if record.archived:
        click.echo(f"# skill '{name}' is archived {when} ({record.archive_reason})", err=True)
    click.echo(text, nl=not text.endswith("\n"))


@skills_group.command("history")
@home_option
@click.argument("name", shell_complete=complete_skills)
@click.option("--all", "telemetry", is_flag=True, help="Include views, uses and refusals.")
@click.option("-p", "--patch", is_flag=True, help="Show each change as a unified diff.")
@click.pass_context
def history_command(ctx: click.Context, name: str, telemetry: bool, patch: bool) -> None:
    """Every version of a skill: seq, time, actor, run, event type and what changed."""
    handle = open_home(ctx, readonly=True)
    versions = skill_history(handle, name, telemetry=telemetry, patches=patch)
    if is_json():
        click.echo(json.dumps([v.__dict__ for v in versions], ensure_ascii=False, indent=2))
        return
    for v in versions:
        click.echo(f"{v.seq:>6}  {v.ts[:19]}  {v.actor:<16} {v.run or '-':<18} "
                   f"{v.type:<22} {v.summary}")
        if patch and v.patch:
            for line in v.patch.splitlines():
                colour = ("green" if line.startswith("+") and not line.startswith("+++") else
                          "red" if line.startswith("-") and not line.startswith("---") else
                          "cyan" if line.startswith("@@") else None)
                click.echo("    " + (styled(line, fg=colour) if colour else line))


@skills_group.command("pin")
@home_option
@click.argument("name", shell_complete=complete_skills)
@click.pass_context
def pin_command(ctx: click.Context, name: str) -> None:
    """Pin a skill: background actors leave it alone and nobody deletes or archives it."""
    run, events = lifecycle_run(open_home(ctx), "pin", name)
    if _json(run, events, name=name, pinned=True):
        return
    click.echo(f"pinned '{name}' (run {run})" if events else f"'{name}' was already pinned")


@skills_group.command("unpin")
@home_option
@click.argument("name", shell_complete=complete_skills)
@click.pass_context
def unpin_command(ctx: click.Context, name: str) -> None:
    """Unpin a skill."""
    run, events = lifecycle_run(open_home(ctx), "unpin", name)
    if _json(run, events, name=name, pinned=False):
        return
    click.echo(f"unpinned '{name}' (run {run})" if events else f"'{name}' was not pinned")


@skills_group.command("archive")
@home_option
@click.argument("name", shell_complete=complete_skills)
@click.option("--reason", default="archived by the user", show_default=True,
              help="Why (kept with the archive).")
@click.option("--absorbed-into", default=None, help="The umbrella skill that took it over.")
@click.pass_context
def archive_command(ctx: click.Context, name: str, reason: str,
                    absorbed_into: str | None) -> None:
    """Move a skill to skills/.archive/ (keeping its category path)."""
    run, events = lifecycle_run(open_home(ctx), "archive", name, reason=reason,
                                absorbed_into=absorbed_into)
    if _json(run, events, name=name):
        return
    click.echo(f"archived '{name}' (run {run}); `memoir skills restore {name}` brings it back")


@skills_group.command("restore")
@home_option
@click.argument("name", shell_complete=complete_skills)
@click.pass_context
def restore_command(ctx: click.Context, name: str) -> None:
    """Bring an archived skill back to its original path."""
    run, events = lifecycle_run(open_home(ctx), "restore", name)
    if _json(run, events, name=name):
        return
    click.echo(f"restored '{name}' (run {run})")


@skills_group.command("delete")
@home_option
@click.argument("name", shell_complete=complete_skills)
@yes_option
@click.pass_context
def delete_command(ctx: click.Context, name: str, yes: bool) -> None:
    """Delete a skill (its versions stay readable in the journal). Asks first, unless -y."""
    handle = open_home(ctx)
    known = handle.state.skills.skills
    if name not in known:
        raise NotFoundError(f"no skill named '{name}'{did_you_mean(name, known)}")
    confirm(f"Delete skill '{name}'?", yes)
    run, events = skill_run(handle, f"delete skill {name}",
                            lambda s: delete_events(s, name, actor="user"))
    if _json(run, events, name=name):
        return
    before = events[0].seq - 1
    click.echo(f"deleted '{name}' (run {run}); its last version: "
               f"`memoir skills show {name} --at {before}`")


@skills_group.command("create")
@home_option
@click.argument("name", shell_complete=complete_skills)
@click.option("--file", "source", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The SKILL.md to add.")
@click.option("--category", default=None, help="A category folder for the skill.")
@click.pass_context
def create_command(ctx: click.Context, name: str, source: Path, category: str | None) -> None:
    """Add a skill written by a person (provenance `user`)."""
    content = read_text(source, limit=MAX_FILE_BYTES, what="SKILL.md")
    problem = person_skill_problem(name, category, content)
    if problem:
        raise UserError(f"{source}: {problem}", exit=Exit.REFUSED)
    category = (category or "").strip() or None

    def build(state: State) -> list[Payload]:
        return person_create_events(state, name, category, content)

    run, events = skill_run(open_home(ctx), f"create skill {name}", build)
    where = f"skills/{category}/{name}" if category else f"skills/{name}"
    if _json(run, events, name=name, path=where):
        return
    click.echo(f"created '{name}' at {where} (run {run})")


@skills_group.command("import")
@home_option
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--provenance", type=click.Choice(["bundled", "hub", "import"]),
              default="import", show_default=True,
              help="Where the skills came from (Hermes's .bundled_manifest and .hub/lock.json "
                   "in FOLDER take precedence).")
@click.pass_context
def import_command(ctx: click.Context, folder: Path, provenance: str) -> None:
    """Import a skills tree (e.g. a Hermes skills/ folder) as one run."""
    assert provenance in PROVENANCES
    report = import_skills(open_home(ctx), folder, provenance=provenance, actor="user",
                               run=short_id("cli-"))
    if is_json():
        echo_json({"run": report.run if report.imported else None,
                   "imported": list(report.imported), "skipped": dict(report.skipped)})
        return
    for path, why in sorted(report.skipped.items()):
        click.echo(f"skipped {path}: {why}", err=True)
    if report.imported:
        click.echo(f"imported {len(report.imported)} skill(s) as run {report.run}: "
                   + ", ".join(report.imported))
    else:
        click.echo("nothing imported")


@skills_group.command("adopt")
@home_option
@click.option("--force", is_flag=True,
              help="Keep a hand edit of a file that memoir changed too since (default: "
                   "refuse and name it).")
@click.pass_context
def adopt_command(ctx: click.Context, force: bool) -> None:
    """Record hand edits of the skills tree in the journal, as `user` events."""
    report = adopt_skills(open_home(ctx), force=force)
    if is_json():
        echo_json({**write_json(report.run, report.events), "adopted": list(report.adopted),
                   "ignored": dict(report.ignored)})
        return
    for path, why in sorted(report.ignored.items()):
        click.echo(f"ignored {path}: {why}", err=True)
    if not report.events:
        click.echo("nothing to adopt: no skill file was edited by hand")
        return
    click.echo(f"adopted {len(report.adopted)} file(s) as run {report.run}; "
               f"`memoir revert {report.run}` undoes it")
