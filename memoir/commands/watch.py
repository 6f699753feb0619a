"""``memoir watch``: a long-running process that keeps a home in order.

It adopts hand edits of MEMORY.md, USER.md and the skills tree as they are saved, writes
projected files again when they are deleted, and runs the scheduled passes (the curator
when due, the error pipeline's maintenance) every ``--tick`` — the scheduler people would
otherwise build with cron.  Each thing it does is one line on stdout (one JSON object
with ``--json``), flushed; a problem is reported on stderr and watching goes on.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memoir.commands.base import (
    UserError,
    home_option,
    is_json,
    open_home,
    report_error,
    user_error,
)
from memoir.errors import MemoirError

if TYPE_CHECKING:
    from memoir.api import Memoir

#: Files under the home that are memoir's projections a person may edit.
_MEMORY_FILES = ("MEMORY.md", "USER.md")


def _mine(home: Path, path: str) -> bool:
    """A change worth looking at: a memory file or a file of the skills tree, not one of
    memoir's temporary files or backups."""
    try:
        rel = Path(path).resolve().relative_to(home)
    except ValueError:
        return False
    name = rel.name
    if rel.parts == ("skills", ".usage.json"):
        return True  # Hermes's usage records, adopted as usage events
    if name.startswith(".") or ".bak." in name or name.endswith(".tmp"):
        return False  # memoir's temporary files are dot files; backups are .bak.<time>
    parts = rel.parts
    if parts[:1] == ("memories",):
        return len(parts) == 2 and name in _MEMORY_FILES
    return parts[:1] == ("skills",) and not any(p.startswith(".") for p in parts)


def _say(action: str, text: str, **fields: Any) -> None:
    if is_json():
        click.echo(json.dumps({"action": action, **fields}, ensure_ascii=False))
    else:
        click.echo(text)
    sys.stdout.flush()


def _problem(what: str, exc: BaseException) -> None:
    """Report a failure as any command reports one (JSON under ``--json``); watching goes
    on: the next save or tick tries again."""
    error = user_error(exc)
    report_error(error.status, f"{what}: {error.message}", error.details)


def _settle(paths: set[str], wait: float, most: float = 5.0) -> None:
    """Wait until these files stop changing (an editor that truncates, then writes, is
    read once it is done, not in between), at most ``most`` seconds."""

    def look() -> list[tuple[int, int] | None]:
        seen: list[tuple[int, int] | None] = []
        for path in sorted(paths):
            try:
                st = os.stat(path)
                seen.append((st.st_size, st.st_mtime_ns))
            except OSError:
                seen.append(None)
        return seen

    deadline = time.monotonic() + most
    before = look()
    while time.monotonic() < deadline:
        time.sleep(max(wait, 0.05))
        now = look()
        if now == before:
            return
        before = now


def _adopt(handle: Memoir) -> None:
    try:
        run, events = handle.adopt()
    except (MemoirError, OSError) as exc:
        _problem("could not adopt the hand edits", exc)
        return
    changes = sum(1 for e in events if e.type != "run.started")
    if changes:
        _say("adopted", f"adopted {changes} change(s) as run {run} "
                        f"(seq {events[0].seq}-{events[-1].seq})",
             run=run, changes=changes, first_seq=events[0].seq, last_seq=events[-1].seq)


def _heal(handle: Memoir, home: Path, deleted: set[str] | None) -> None:
    """Write again the projected files that are missing (a deletion is not an edit).
    ``deleted``: the files seen deleted and still missing before adoption (which may
    have written them already); None on starting, when anything may be missing."""
    if deleted is not None and not deleted:
        return  # a save, not a deletion: nothing to rewrite
    try:
        written = set(handle.rebuild(from_scratch=False))
        handle.flush()
    except (MemoirError, OSError) as exc:
        _problem("could not write the projected files", exc)
        return
    back = sorted(written | {rel for rel in deleted or () if (home / rel).exists()})
    if back:
        _say("rewrote", f"rewrote {', '.join(back)}", files=back)


def _tick(handle: Memoir) -> None:
    from memoir.curator.schedule import maybe_run
    from memoir.insights.pipeline import maintain

    try:
        for sid in handle.learning.end_idle():
            _say("ended", f"ended idle session {sid} (reviewed)", session=sid)
        maintained, events = maintain(handle)
        if maintained is not None:
            _say("maintain", f"maintain: run {maintained}", run=maintained,
                 events=len(events))
        result = maybe_run(handle)
        if result is not None:
            _say("curator", f"curator: run {result.run_id}: {result.summary}",
                 run=result.run_id, changes=len(result.changes))
    except (MemoirError, OSError) as exc:
        _problem("a scheduled pass failed", exc)


@click.command()
@home_option
@click.option("--tick", type=click.FloatRange(min=0.1), default=60.0, show_default=True,
              help="Seconds between checks of the schedule (curator, maintenance).")
@click.option("--debounce-ms", type=click.IntRange(min=0), default=400, show_default=True,
              help="Wait this long after a save for the editor to finish before reading.")
@click.pass_context
def watch(ctx: click.Context, tick: float, debounce_ms: int) -> None:
    """Keep the home in order while it runs: adopt hand edits of MEMORY.md, USER.md and
    skills as they are saved, write deleted files again, run the curator when due, end
    and review sessions idle for sessions.idle_timeout_minutes.

    Adoption is three-way, as `memoir adopt` does it: writes journaled since the file
    was last written are kept; an edit that conflicts with them is reported on stderr
    and left for `memoir adopt --force`. Runs until Ctrl-C or SIGTERM (exit 0).
    """
    try:
        from watchfiles import Change
        from watchfiles import watch as watch_files
    except ImportError as exc:
        from memoir.install import extra_hint

        raise UserError(f"{extra_hint('watch', 'memoir watch')} ({exc})") from None

    handle = open_home(ctx)
    home = Path(handle.home).resolve()
    stop = threading.Event()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
    ready = False
    last_tick = time.monotonic()
    seen_head = handle.head
    try:
        # The first yield comes once the watch is in place (after at most a second):
        # the first passes run then, so an edit saved while starting is never missed.
        for changes in watch_files(home, stop_event=stop, debounce=debounce_ms,
                                   rust_timeout=int(min(tick, 1.0) * 1000),
                                   yield_on_timeout=True, raise_interrupt=True,
                                   watch_filter=lambda _change, path: _mine(home, path)):
            if not ready:
                _adopt(handle)
                _heal(handle, home, None)
                _tick(handle)
                last_tick = time.monotonic()
                _say("watching", f"watching {home} (Ctrl-C stops)", home=str(home))
                ready = True
            # Records another process or machine appended (a shared PostgreSQL journal,
            # or another writer of this file): fold them and write what they change, so
            # this folder's files follow within a second.
            head = handle.head
            if head != seen_head:
                handle.flush()
                seen_head = head
            if changes:
                _settle({path for _change, path in changes}, debounce_ms / 1000)
                # Missing now, not merely reported deleted: a file replaced by a rename
                # (how every writer saves it) is reported deleted too.
                deleted = {rel for change, path in changes if change == Change.deleted
                           if not (home / (rel := Path(path).resolve().relative_to(home)
                                           .as_posix())).exists()}
                _adopt(handle)
                _heal(handle, home, deleted)
            if time.monotonic() - last_tick >= tick:
                _tick(handle)
                last_tick = time.monotonic()
    except KeyboardInterrupt:
        pass
    handle.flush()
