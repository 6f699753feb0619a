"""``memoir sessions import`` and ``memoir review``: learn from recorded conversations."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import click

from memoir.api import Memoir
from memoir.clock import format_ts, parse_moment
from memoir.commands.base import (
    Exit,
    UserError,
    complete_sessions,
    echo_json,
    home_option,
    is_json,
    open_home,
    write_json,
)
from memoir.errors import ValidationError
from memoir.lookup import resolve
from memoir.reading import read_text
from memoir.turns import check_messages

__all__ = ["review", "sessions_group"]

#: The largest conversation file read (the messages' own limits apply after).
MAX_FILE_BYTES = 64 << 20


@click.group("sessions")
@home_option
def sessions_group() -> None:
    """Conversations: import them so memoir learns from them."""


def _files(paths: tuple[Path, ...]) -> list[Path]:
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.suffix in (".json", ".jsonl")
                           and p.is_file())
            if not found:
                raise UserError(f"{path}: no .json or .jsonl conversation in it",
                                exit=Exit.NOT_FOUND)
            out += found
        else:
            out.append(path)
    return out


def _messages(path: Path) -> Any:
    """A conversation file: a JSON array of messages (or ``{"messages": [...]}``), or
    JSONL with one message per line."""
    text = read_text(path, limit=MAX_FILE_BYTES, what="conversation file")
    try:
        if path.suffix == ".jsonl":
            messages = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            messages = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"{path}: not valid JSON (line {exc.lineno}, column "
                              f"{exc.colno}): {exc.msg}") from None
    if isinstance(messages, dict) and isinstance(messages.get("messages"), list):
        messages = messages["messages"]
    return messages


def _import_one(handle: Memoir, path: Path, at: str | None) -> dict[str, Any]:
    messages = _messages(path)
    checked = check_messages(messages)  # before the session exists: bad input records nothing
    start = at or next((m["at"] for m in checked if m.get("at")), None)
    session = handle.start_session(platform="import", started_at=start, actor="agent")
    try:
        recorded = handle.learning.record(session.id, session.actor, session.tools.names,
                                          checked, review=False)
    except BaseException:
        session.end("import failed")
        raise
    session.end("imported")  # the end review covers every turn
    handle.learning.queue.make_room()  # a thousand files: every review runs
    return {"file": str(path), "session": session.id, "turns": len(recorded.turns)}


@sessions_group.command("import")
@home_option
@click.argument("paths", nargs=-1, required=True,
                type=click.Path(exists=True, path_type=Path))
@click.option("--at", "at_text", default=None, metavar="ISO",
              help="When the conversation began (default: its first message's "
                   "timestamp, else now). With several files, each starts then.")
@click.pass_context
def import_command(ctx: click.Context, paths: tuple[Path, ...], at_text: str | None) -> None:
    """Import conversations (OpenAI chat-completions messages: a JSON array, or JSONL one
    message per line; a folder: every .json/.jsonl in it), one session each, and review
    them as the configuration says (reviewers.*). Prints each session's id."""
    at = None
    if at_text is not None:
        try:
            at = format_ts(parse_moment(at_text, dt.datetime.now(dt.UTC)))
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--at") from None
    handle = open_home(ctx)
    rows = []
    for path in _files(paths):
        try:
            rows.append(_import_one(handle, path, at))
        except ValidationError as exc:
            raise UserError(f"{path}: {exc}" if str(path) not in str(exc) else str(exc),
                            exit=Exit.REFUSED, details={"imported": [r["session"]
                                                                      for r in rows]}) from None
    handle.flush()  # the reviews are done before their runs are listed
    state = handle.state
    for row in rows:
        row["runs"] = sorted((r.id for r in state.runs.values()
                              if r.kind == "review" and r.session == row["session"]),
                             key=lambda rid: state.runs[rid].first_seq)
        if is_json():
            click.echo(json.dumps(row, ensure_ascii=False))
        else:
            runs = f"; reviewed as {', '.join(row['runs'])}" if row["runs"] else ""
            click.echo(f"{row['session']}  {row['turns']} turn(s) from {row['file']}{runs}")


@click.command("review")
@home_option
@click.option("--session", "session_id", required=True, shell_complete=complete_sessions,
              help="The session to review (a unique prefix will do).")
@click.option("--from-turn", type=click.IntRange(min=1), default=1, show_default=True,
              help="Review from this turn on.")
@click.option("--kind", "kinds", multiple=True, type=click.Choice(["memory", "skills"]),
              help="What to review (default: both).")
@click.pass_context
def review(ctx: click.Context, session_id: str, from_turn: int,
           kinds: tuple[str, ...]) -> None:
    """Review a session's recorded turns now, with the configured reviewer, as one run
    (`memoir revert RUN` undoes it)."""
    handle = open_home(ctx)
    session_id = resolve(session_id, handle.state.sessions, "session")
    events = handle.learning.review_now(session_id, from_turn=from_turn,
                                        kinds=kinds or ("memory", "skills"))
    close = events[-1]
    data: Any = close.data
    if is_json():
        echo_json(write_json(close.run, events, outcome=close.type.split(".")[1],
                             summary=getattr(data, "summary", ""),
                             reason=getattr(data, "reason", None)))
    elif close.type == "review.failed":
        raise UserError(f"review run {close.run} failed: {data.reason}", exit=Exit.ERROR)
    else:
        click.echo(f"review run {close.run}: {data.changes} change(s)"
                   + (f": {data.summary}" if data.summary else "")
                   + (f"; `memoir revert {close.run}` undoes it" if data.changes else ""))
