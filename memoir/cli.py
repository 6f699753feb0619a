"""The ``memoir`` command line.

Every command takes ``--home PATH`` (default ``$MEMOIR_HOME``, else ``~/.memoir``).
A user error prints one line, ``memoir: error: …``, and exits with status 1 (2 for a
usage error); never a traceback.  Other modules add their command groups to
:data:`cli` (``cli.add_command``) and get the same error handling.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
import msgspec

import memoir
from memoir.errors import DriftError, MemoirError
from memoir.events.types import Event
from memoir.home import Memoir
from memoir.ids import short_id
from memoir.projections.memory import TARGETS

__all__ = ["COMMAND_MODULES", "UserError", "cli", "main"]

F = TypeVar("F", bound=Callable[..., Any])


class UserError(click.ClickException):
    """A user error: printed as one ``memoir: error: …`` line, exit status 1."""

    def show(self, file: Any = None) -> None:
        click.echo(f"memoir: error: {self.format_message()}", err=True, file=file)


class _Commands(click.Group):
    """The top-level group: turns memoir's own errors into one-line user errors."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise  # the reader went away (`memoir log | head`); main() ends quietly
        except (MemoirError, OSError) as exc:
            # One line, whatever the message: a YAML error, for one, spans several.
            raise UserError(" ".join(str(exc).split())) from None


def _open(ctx: click.Context) -> Memoir:
    home = ctx.obj.get("home") if ctx.obj else None
    handle = memoir.open(home)
    ctx.call_on_close(handle.close)
    return handle


def home_option(fn: F) -> F:
    """``--home`` on every command (also accepted before the command name)."""

    def remember(ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
        if value is not None:
            ctx.ensure_object(dict)
            ctx.obj["home"] = value
        return value

    return click.option(
        "--home", type=click.Path(file_okay=False, path_type=str), expose_value=False,
        callback=remember, is_eager=True,
        help="The memoir home (default: $MEMOIR_HOME, else ~/.memoir).",
    )(fn)


def _echo_json(value: Any) -> None:
    click.echo(json.dumps(value, ensure_ascii=False, indent=2))


def _event_json(event: Event) -> str:
    return msgspec.json.encode(event).decode()


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(memoir.__version__, prog_name="memoir")
@home_option
@click.pass_context
def cli(ctx: click.Context) -> None:
    """memoir: event-sourced memory for AI agents.

    Every memory change is an event in an append-only journal; MEMORY.md and USER.md
    are projections of it that you can audit, replay and undo.
    """
    ctx.ensure_object(dict)


@cli.command()
@home_option
@click.pass_context
def init(ctx: click.Context) -> None:
    """Create a home (journal, config.yaml, memories/) if it does not exist."""
    handle = _open(ctx)
    config = handle.home / "config.yaml"
    if not config.exists():
        config.write_text(
            "# memoir configuration; keys follow Hermes's config.yaml where they mean the same.\n"
            "memory:\n  memory_char_limit: 2200\n  user_char_limit: 1375\n"
            "journal:\n  durability: always\n"
            "projections:\n  mode: background\n  coalesce_ms: 20\n",
            encoding="utf-8",
        )
    (handle.home / "memories").mkdir(exist_ok=True)
    handle.ensure_limits()
    click.echo(f"memoir home ready at {handle.home} (head {handle.head})")


@cli.command()
@home_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def status(ctx: click.Context, as_json: bool) -> None:
    """Head, entries and usage per target, sessions, runs, and drift."""
    info = _open(ctx).status()
    if as_json:
        _echo_json(info)
        return
    click.echo(f"home     {info['home']}")
    click.echo(f"head     {info['head']}  ({info['head_hash'] or 'empty'})")
    for target, t in info["memory"].items():
        click.echo(f"{target:<8} {t['entries']} entries, {t['usage']}")
    click.echo(f"sessions {info['sessions']}   runs {info['runs']}")
    if info["drift"]:
        for path in info["drift"]:
            click.echo(f"drift    {path} was edited by hand: `memoir adopt` keeps the edit, "
                       "`memoir rebuild --force` discards it")
    else:
        click.echo("drift    none")


@cli.group()
def memory() -> None:
    """Read and edit MEMORY.md / USER.md as a person (actor `user`)."""


def _memory_write(ctx: click.Context, args: dict[str, Any]) -> None:
    from memoir.session import memory_call

    handle = _open(ctx)
    run = short_id("cli-")
    result, _ = memory_call(handle, args, actor="user", run=run, run_kind="cli")
    if not result.get("success"):
        message = str(result.get("error"))
        if result.get("matches"):
            message += " Matches: " + "; ".join(repr(m) for m in result["matches"])
        raise UserError(message)
    recorded = run in handle.state.runs
    click.echo(f"{result['message']} {result['target']}: {result['usage']}"
               + (f" (run {run})" if recorded else ""))


target_option = click.option(
    "--target", "-t", type=click.Choice(TARGETS), default="memory", show_default=True,
    help="memory (MEMORY.md) or user (USER.md).",
)


@memory.command("add")
@home_option
@target_option
@click.argument("text")
@click.pass_context
def memory_add(ctx: click.Context, target: str, text: str) -> None:
    """Add an entry."""
    _memory_write(ctx, {"action": "add", "target": target, "content": text})


@memory.command("replace")
@home_option
@target_option
@click.argument("old_text")
@click.argument("text")
@click.pass_context
def memory_replace(ctx: click.Context, target: str, old_text: str, text: str) -> None:
    """Replace the entry containing OLD_TEXT with TEXT."""
    _memory_write(ctx, {"action": "replace", "target": target, "old_text": old_text,
                        "content": text})


@memory.command("remove")
@home_option
@target_option
@click.argument("old_text")
@click.pass_context
def memory_remove(ctx: click.Context, target: str, old_text: str) -> None:
    """Remove the entry containing OLD_TEXT."""
    _memory_write(ctx, {"action": "remove", "target": target, "old_text": old_text})


@memory.command("list")
@home_option
@click.option("--target", "-t", type=click.Choice(TARGETS), default=None,
              help="Only this target (default: both).")
@click.option("--at", "at_seq", type=int, default=None, help="As of this seq.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def memory_list(ctx: click.Context, target: str | None, at_seq: int | None,
                as_json: bool) -> None:
    """List entries with their ids."""
    handle = _open(ctx)
    state = handle.view(at_seq)
    targets = [target] if target else list(TARGETS)
    if as_json:
        _echo_json({t: [{"id": e.id, "text": e.text} for e in state.memory.target(t).entries]
                    for t in targets})
        return
    for t in targets:
        entries = state.memory.target(t).entries
        click.echo(f"[{t}] {len(entries)} entries")
        for e in entries:
            first, *rest = e.text.split("\n")
            click.echo(f"  {e.id}  {first}" + (f"  (+{len(rest)} lines)" if rest else ""))


@cli.command()
@home_option
@click.option("--type", "types", multiple=True,
              help="Event type, exact or with a trailing * (repeatable).")
@click.option("--actor", default=None, help="Only events by this actor (agent, user, …).")
@click.option("--run", default=None, help="Only events of this run.")
@click.option("--session", default=None, help="Only events of this session.")
@click.option("--since", "since", type=int, default=None, help="From this seq (inclusive).")
@click.option("--until", "until", type=int, default=None, help="Up to this seq (inclusive).")
@click.option("--limit", type=int, default=None, help="Only the last N matching events.")
@click.option("--json", "as_json", is_flag=True, help="One event per line, as JSON.")
@click.pass_context
def log(ctx: click.Context, types: tuple[str, ...], actor: str | None, run: str | None,
        session: str | None, since: int | None, until: int | None, limit: int | None,
        as_json: bool) -> None:
    """Show journal events, filtered by type, actor, run, session and seq.

    For example `memoir log --type 'memory.*' --actor user --json`.
    """
    if limit is not None and limit < 0:
        raise UserError(f"--limit must be 0 or more, not {limit}")
    handle = _open(ctx)
    found = handle.events(types=types, actor=actor, run=run, session=session,
                          after=(since - 1) if since else 0, until=until)
    if limit is not None:
        from collections import deque

        found = iter(deque(found, maxlen=limit))
    for event in found:
        click.echo(_event_json(event) if as_json else _summary_line(event))


def _summary_line(event: Event) -> str:
    data = msgspec.to_builtins(event.data)
    detail = ""
    if isinstance(data, dict):
        for key in ("text", "previous", "session_id", "summary", "name", "reason"):
            if data.get(key):
                value = str(data[key]).replace("\n", " ⏎ ")
                detail = value if len(value) <= 70 else value[:67] + "..."
                break
        if "target" in data:
            detail = f"[{data['target']}] {detail}"
    where = " ".join(f"{k}={v}" for k, v in (("run", event.run), ("session", event.session)) if v)
    return f"{event.seq:>6}  {event.ts[:19]}  {event.actor:<14} {event.type:<24} {detail}" + (
        f"  ({where})" if where else "")


@cli.command()
@home_option
@click.argument("seq", type=int)
@click.pass_context
def show(ctx: click.Context, seq: int) -> None:
    """Print one event in full."""
    event = _open(ctx).event(seq)
    _echo_json(msgspec.to_builtins(event))


@cli.command()
@home_option
@click.option("--session", "session_id", default=None, help="The session's pinned prompt.")
@click.option("--at", "at_seq", type=int, default=None, help="The prompt as of this seq.")
@click.pass_context
def prompt(ctx: click.Context, session_id: str | None, at_seq: int | None) -> None:
    """Print the MEMORY and USER prompt blocks for a session or a seq."""
    if (session_id is None) == (at_seq is None):
        raise click.UsageError("give exactly one of --session ID or --at SEQ")
    handle = _open(ctx)
    blocks = handle.session(session_id).prompt_blocks() if session_id else \
        handle.prompt_blocks(at_seq)
    parts = [b for b in (blocks["memory"], blocks["user"]) if b]
    click.echo("\n\n".join(parts) if parts else "(no memory blocks: both stores are empty)")


@cli.command()
@home_option
@click.option("--force", is_flag=True,
              help="Overwrite files edited by hand (each is copied to <file>.bak.<time>).")
@click.pass_context
def rebuild(ctx: click.Context, force: bool) -> None:
    """Regenerate every projected file from the journal."""
    handle = _open(ctx)
    written = handle.rebuild(force=force)
    click.echo(f"rebuilt from {handle.head} events; "
               + (f"rewrote {', '.join(written)}" if written else "every file was up to date"))


@cli.command()
@home_option
@click.pass_context
def adopt(ctx: click.Context) -> None:
    """Keep hand edits of MEMORY.md / USER.md by recording them in the journal.

    memoir never overwrites a memory file edited by hand: until the edit is adopted
    (or discarded with `memoir rebuild --force`, which keeps a .bak copy), agent writes
    to that file are refused and `memoir status` reports the drift.

    Adopting reads the edited file as Hermes reads it (entries split on the line
    holding only §, stripped, empty and duplicate entries dropped) and records the
    difference as `user` events of one run, so `memoir log --run RUN` shows it and
    `memoir revert RUN` undoes it. An entry edited in place becomes a replace and keeps
    its id; a moved entry keeps its id. The edit must pass the checks every write
    passes (no threat pattern in a new or changed entry, the character limit);
    otherwise nothing is recorded and the error names the entry to fix.

    A deleted file is not an edit: it is written again from the journal.
    """
    from memoir.home import memory_file

    handle = _open(ctx)
    missing = [memory_file(t) for t in TARGETS if not (handle.home / memory_file(t)).exists()]
    run, events = handle.adopt()  # also writes back projected files deleted by hand
    restored = [rel for rel in missing if (handle.home / rel).exists()]
    if restored:
        click.echo(f"restored {', '.join(restored)} from the journal (deleted files "
                   "are rewritten, not adopted as empty)")
    if not events:
        click.echo("nothing to adopt: no file was edited by hand")
        return
    changes = sum(1 for e in events if e.type != "run.started")
    click.echo(f"adopted {changes} change(s) as run {run} "
               f"(seq {events[0].seq}-{events[-1].seq}); `memoir log --run {run}` shows them, "
               f"`memoir revert {run}` undoes them")


@cli.command()
@home_option
@click.pass_context
def verify(ctx: click.Context) -> None:
    """Read the whole journal and check every record and the hash chain."""
    report = _open(ctx).verify()
    click.echo(f"ok: {report.records} records, {report.bytes:,} bytes, head hash "
               f"{report.head_hash or '-'}")


@cli.command()
@home_option
@click.pass_context
def repair(ctx: click.Context) -> None:
    """Cut a damaged record out of the journal (the cut bytes are kept beside it)."""
    home = ctx.obj.get("home") if ctx.obj else None
    from memoir.events.journal import FileJournal
    from memoir.home import JOURNAL_FILE, default_home

    path = Path(home).expanduser() if home else default_home()
    journal = FileJournal(path / JOURNAL_FILE, recover=False)
    try:
        report = journal.repair()
    finally:
        journal.close()
    if report is None:
        click.echo("journal is sound; nothing to repair")
        return
    click.echo(f"cut {report.cut_bytes:,} bytes after seq {report.kept_head}; saved to "
               f"{report.saved_to}")
    if report.reappended:
        click.echo(f"re-appended {len(report.reappended)} valid record(s) that followed the "
                   f"damage as seq {report.reappended[0]}-{report.reappended[-1]}")
    if report.skipped:
        shown = ", ".join(map(str, report.skipped[:20]))
        more = f" and {len(report.skipped) - 20} more" if len(report.skipped) > 20 else ""
        click.echo(f"not re-appended (damaged, or part of an append that lost a record): "
                   f"original seq {shown}{more}; their bytes are in the saved file")
    # Checkpoints folded from the cut records must go, and the projected files must
    # show the journal as it now is.
    handle = memoir.open(path)
    try:
        handle.checkpoints.clear()
        try:
            written = handle.rebuild()
        except DriftError as exc:
            click.echo(f"projected files not rewritten: {exc}")
        else:
            if written:
                click.echo(f"rewrote {', '.join(written)} from the repaired journal")
    finally:
        handle.close()


@cli.command()
@click.option("--home", "home", type=click.Path(file_okay=False), default=None,
              help="Run in this (new or empty) home instead of a fresh temporary one.")
@click.pass_context
def demo(ctx: click.Context, home: str | None) -> None:
    """Walk through memoir on a fresh home, offline: write, pin, replay, audit, adopt,
    write skills, curate them and revert the pass.

    The demo needs an empty home, so it ignores $MEMOIR_HOME and makes a temporary one
    unless --home names a new or empty folder.
    """
    from memoir.demo import run_demo

    chosen = home or (ctx.obj.get("home") if ctx.obj else None)
    run_demo(Path(chosen) if chosen else None, echo=click.echo)


#: Modules that add their commands to :data:`cli` when imported (``cli.add_command``).
#: A module missing from this installation is skipped.
COMMAND_MODULES: tuple[str, ...] = ("memoir.skills.cli", "memoir.curator.cli")


def _load_command_modules() -> None:
    for name in COMMAND_MODULES:
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)


def _friendly(fn: Callable[[], Any]) -> Callable[[], Any]:
    @functools.wraps(fn)
    def wrapper() -> Any:
        try:
            return fn()
        except MemoirError as exc:
            click.echo(f"memoir: error: {exc}", err=True)
            sys.exit(1)
        except OSError as exc:
            click.echo(f"memoir: error: {exc}", err=True)
            sys.exit(1)

    return wrapper


def _log_to_stderr() -> None:
    # Warnings such as a torn tail being cut are for the person, but must not mix
    # with output that may be piped (`memoir log --json | jq`).
    import logging

    import structlog

    structlog.configure(
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        wrapper_class=structlog.make_filtering_bound_logger(logging.INFO),
    )


@_friendly
def main() -> Any:
    """Console-script entry point."""
    _log_to_stderr()
    try:
        return cli.main(prog_name="memoir", standalone_mode=True)
    except BrokenPipeError:
        # The reader went away (`memoir log | head`): that is not an error.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)


# Last, because those modules import this one for `cli`, `home_option` and `_open`.
_load_command_modules()
