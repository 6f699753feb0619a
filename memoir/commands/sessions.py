"""``memoir sessions import`` and ``memoir review``: learn from recorded conversations."""

from __future__ import annotations

import datetime as dt
import errno
import hashlib
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
    table,
    write_json,
)
from memoir.errors import ValidationError
from memoir.fs.outside import read_text
from memoir.journal.transcripts import TranscriptStore
from memoir.lookup import resolve
from memoir.recall.index import SearchIndex
from memoir.recall.tool import read_session
from memoir.reviewers.loop import backend_in_effect
from memoir.sessions.turns import check_messages

__all__ = ["review", "sessions_group"]

#: The largest conversation file read (the messages' own limits apply after).
MAX_FILE_BYTES = 64 << 20


@click.group("sessions")
@home_option
def sessions_group() -> None:
    """Conversations: import, list, search, show and export them."""


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


#: The ``meta`` key of an imported session's records: a digest of its messages, by
#: which the same conversation is recognised when imported again (from any path).
DIGEST_KEY = "import_sha256"


def _digest(checked: list[dict[str, Any]]) -> str:
    canonical = json.dumps(checked, sort_keys=True, ensure_ascii=False,
                           separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _imported(handle: Memoir) -> dict[str, str]:
    """The digest of every conversation imported before → its session."""
    found: dict[str, str] = {}
    for event in handle.events(types=["session.started"]):
        digest = (event.meta or {}).get(DIGEST_KEY)
        if digest and event.session:
            found.setdefault(digest, event.session)
    return found


def _import_one(handle: Memoir, path: Path, at: str | None,
                known: dict[str, str]) -> dict[str, Any]:
    messages = _messages(path)
    checked = check_messages(messages)  # before the session exists: bad input records nothing
    digest = _digest(checked)
    if digest in known:
        return {"file": str(path), "session": known[digest], "turns": 0,
                "already_imported": True}
    start = at or next((m["at"] for m in checked if m.get("at")), None)
    session = handle.start_session(platform="import", started_at=start, actor="agent",
                                   meta={DIGEST_KEY: digest})
    known[digest] = session.id  # the same file twice in one command: once
    try:
        recorded = handle.learning.record(session.id, session.actor, session.tools.names,
                                          checked, review=False, at=start)
    except BaseException:
        session.end("import failed")
        raise
    # The end review covers every turn; the session ended with its last message.
    session.end("imported", at=next((m["at"] for m in reversed(checked) if m.get("at")),
                                    None) or start)
    handle.learning.queue.make_room()  # a thousand files: every review runs
    return {"file": str(path), "session": session.id, "turns": len(recorded.turns),
            "already_imported": False}


def _saved(handle: Memoir, runs: list[str]) -> int:
    """How many events the review runs ``runs`` journaled (beyond their bookkeeping)."""
    wanted = set(runs)
    return sum(1 for e in handle.events(types=["memory.*", "skill.*"])
               if e.run in wanted)


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
    them as the configuration says (reviewers.*). Prints each session's id.

    It can be run again: a conversation already imported (the same messages, from any
    path) is skipped with the session it became. Every file is read; each bad one is
    reported, and the command exits 4 at the end when any was."""
    at = None
    if at_text is not None:
        try:
            at = format_ts(parse_moment(at_text, dt.datetime.now(dt.UTC)))
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--at") from None
    handle = open_home(ctx)
    known = _imported(handle)
    rows: list[dict[str, Any]] = []
    refused: dict[str, str] = {}
    for path in _files(paths):
        try:
            rows.append(_import_one(handle, path, at, known))
        except ValidationError as exc:
            refused[str(path)] = str(exc).removeprefix(f"{path}: ")
    handle.flush()  # the reviews are done before their runs are listed
    state = handle.state
    imported = [r for r in rows if not r["already_imported"]]
    for row in imported:
        row["runs"] = sorted((r.id for r in state.runs.values()
                              if r.kind == "review" and r.session == row["session"]),
                             key=lambda rid: state.runs[rid].first_seq)
    saved = _saved(handle, [run for row in imported for run in row["runs"]])
    summary = {"imported": len(imported), "already_imported": len(rows) - len(imported),
               "refused": len(refused), "saved": saved}
    if is_json():
        for row in rows:
            click.echo(json.dumps(row, ensure_ascii=False))
        for where, why in refused.items():
            click.echo(json.dumps({"file": where, "error": why}, ensure_ascii=False))
    else:
        for row in rows:
            if row["already_imported"]:
                click.echo(f"{row['session']}  already imported, from {row['file']}")
                continue
            runs = f"; reviewed as {', '.join(row['runs'])}" if row["runs"] else ""
            click.echo(f"{row['session']}  {row['turns']} turn(s) from {row['file']}{runs}")
        for where, why in refused.items():
            click.echo(f"refused {where}: {why}", err=True)
        click.echo(f"imported {summary['imported']} conversation(s); "
                   f"{summary['already_imported']} already imported, skipped; "
                   f"{summary['refused']} refused; the reviews saved {saved} change(s)")
        backend = backend_in_effect(handle.config)
        if any(row["runs"] for row in imported) and not saved and backend != "llm":
            name = "rule" if backend == "rules" else backend
            click.echo(f"the offline {name} reviewer found nothing worth saving in them; a "
                       "model reads more: set `reviewers.backend: llm` in config.yaml "
                       "(docs/reviewers.md), then `memoir review --session ID`", err=True)
    if refused:
        raise UserError(f"{len(refused)} of {len(refused) + len(rows)} file(s) refused "
                        "(listed above); fix them and run the same command again: what "
                        "was imported is skipped", exit=Exit.REFUSED,
                        details={"refused": refused, **summary})


def _reading(ctx: click.Context) -> Memoir:
    """The home for a command that only reads conversations: opened for writing (so the
    search index catches up with the journal), else, on a home this process may not
    write (read-only files or file system), read-only with a notice: the index is
    searched as it was last written."""
    try:
        return open_home(ctx)
    except PermissionError:
        pass
    except OSError as exc:
        if exc.errno != errno.EROFS:
            raise
    handle = open_home(ctx, readonly=True)
    click.echo(f"memoir: {handle.home} cannot be written here: reading it as it is (the "
               "search uses a private copy of the index)", err=True)
    return handle


def _index(handle: Memoir) -> SearchIndex:
    if handle.readonly:  # a home this process may not write: a private, current copy
        index = SearchIndex(handle, TranscriptStore.of(handle, readonly=True),
                            scratch=True)
        click.get_current_context().call_on_close(index.close)
        return index
    return SearchIndex(handle, handle.learning.transcripts)


@sessions_group.command("list")
@home_option
@click.option("--limit", "-n", type=click.IntRange(min=1), default=20, show_default=True)
@click.pass_context
def list_command(ctx: click.Context, limit: int) -> None:
    """Sessions with recorded turns or a summary, most recently active first."""
    rows = _index(_reading(ctx)).sessions(limit=limit)
    if is_json():
        echo_json(rows)
        return
    if not rows:
        click.echo("no sessions recorded (session.record_turn or memoir sessions import)")
        return
    table(["SESSION", "LAST ACTIVE", "TURNS", "PLATFORM", "TITLE"],
          [[r["session"], r["last_active"][:19], r["turns"], r["platform"], r["title"]]
           for r in rows], right=[2])


@sessions_group.command("search")
@home_option
@click.argument("query")
@click.option("--limit", "-n", type=click.IntRange(min=1, max=100), default=None,
              help="How many sessions (default: episodic.max_results).")
@click.pass_context
def search_command(ctx: click.Context, query: str, limit: int | None) -> None:
    """Past sessions matching QUERY, best first (BM25 times recency)."""
    handle = _reading(ctx)
    hits = _index(handle).search(query, limit=limit or handle.config.episodic.max_results)
    if is_json():
        echo_json([h.as_json() for h in hits])
        return
    if not hits:
        click.echo("no session matches")
        return
    for h in hits:
        where = f"turn {h.turn}" if h.kind == "turn" else "summary"
        click.echo(f"{h.session}  {h.score:.3f}  {h.last_active[:19]}  {h.title}")
        click.echo(f"    {where}: {' '.join(h.snippet.split())}")


@sessions_group.command("show")
@home_option
@click.argument("session_id", shell_complete=complete_sessions)
@click.pass_context
def show_command(ctx: click.Context, session_id: str) -> None:
    """A session: when, its summary, and its messages (first 20 and last 10)."""
    handle = _reading(ctx)
    session_id = resolve(session_id, handle.state.sessions, "session")
    info = read_session(handle, session_id, tools=True)
    if is_json():
        echo_json(info)
        return
    click.echo(f"session {session_id}  {info['platform']}  started {info['started_at'][:19]}"
               + (f"  ended {info['ended_at'][:19]}" if info["ended_at"] else "")
               + f"  {info['turns']} turn(s)")
    if info["summary"]:
        click.echo("")
        click.echo(info["summary"])
    click.echo("")
    for i, m in enumerate(info["messages"]):
        if info["truncated"] and i == 20:
            click.echo(f"… {info['message_count'] - 30} message(s) not shown …")
        click.echo(_said(m))


def _said(message: dict[str, Any]) -> str:
    """One message of a session as a person reads it: what was said, each tool call
    with its arguments, each tool result with the call it answers."""
    content = message.get("content")
    text = content if isinstance(content, str) else \
        "" if content is None else json.dumps(content, ensure_ascii=False)
    head = f"[{message['turn']}] {message['role']}"
    if message["role"] == "tool":
        call = message.get("tool_call_id")
        return f"{head}{f' ({call})' if call else ''}: {text}"
    lines = [f"{head}: {text}"] if text else []
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            lines.append(f"{head} calls {function.get('name')}({function.get('arguments') or ''})"
                         + (f" [{call.get('id')}]" if call.get("id") else ""))
    return "\n".join(lines) or f"{head}: (nothing)"


@sessions_group.command("export")
@home_option
@click.argument("session_ids", nargs=-1, shell_complete=complete_sessions)
@click.pass_context
def export_command(ctx: click.Context, session_ids: tuple[str, ...]) -> None:
    """Sessions as JSON (all, or those named): metadata, summary, tags and every
    message, one JSON document on stdout (like `hermes session export`)."""
    handle = _reading(ctx)
    state = handle.state
    wanted = [resolve(s, state.sessions, "session") for s in session_ids] or [
        s.id for s in sorted(state.sessions.values(), key=lambda s: s.started_at)
        if s.turns]
    out = []
    for sid in wanted:
        info = state.sessions[sid]
        messages: list[dict[str, Any]] = []
        summary, tags = "", []
        for event in handle.events(session=sid, types=["session.turn_recorded",
                                                       "session.summarized"]):
            data: Any = event.data
            if event.type == "session.summarized":
                summary, tags = data.summary, list(data.tags)
                continue
            for ref, body in zip(data.messages, handle.learning.transcripts.get_many(
                    [m.ref for m in data.messages]), strict=True):
                messages.append({"turn": data.turn, **body,
                                 **({"timestamp": ref.at} if ref.at else {})})
        out.append({"session_id": sid, "platform": info.platform, "started_at": info.started_at,
                    "ended_at": info.ended_at, "turns": info.turns, "summary": summary,
                    "tags": tags, "messages": messages})
    click.echo(json.dumps(out, ensure_ascii=False, indent=2))


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
