"""``memoir log``: the journal, filtered.

Kept apart from the other home commands so that ``memoir log -n 3`` loads only the
journal: it reads the journal's end and never folds it, unless a filter needs the
folded state (an actor, a run, session or entry prefix to check).
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import msgspec

from memoir.clock import format_ts, parse_moment
from memoir.commands.base import (
    complete_runs,
    complete_sessions,
    complete_types,
    event_json,
    home_option,
    home_path,
    is_json,
    open_home,
)
from memoir.errors import NotFoundError
from memoir.events.catalog import REGISTRY
from memoir.events.present import detail
from memoir.events.types import Event
from memoir.journal import Notices
from memoir.lookup import did_you_mean, resolve

if TYPE_CHECKING:
    from memoir.projections.state import State

__all__ = ["log"]

TARGETS = ("memory", "user")



_ACTORS = ("agent", "user", "system", "curator")


def _bound(text: str | None, name: str, now: dt.datetime) -> int | str | None:
    """A --since/--until value: a seq (digits) or a moment (as its timestamp text)."""
    if text is None:
        return None
    if text.strip().isdigit():
        return int(text)
    try:
        moment = parse_moment(text, now)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint=name) from None
    return format_ts(moment)


def _check_types(types: tuple[str, ...]) -> None:
    for t in types:
        known = any(k.startswith(t[:-1]) for k in REGISTRY) if t.endswith("*") else t in REGISTRY
        if not known:
            families = sorted({k.split(".")[0] + ".*" for k in REGISTRY})
            raise click.BadParameter(
                f"no event type {t!r}{did_you_mean(t, [*REGISTRY, *families])}; "
                f"the families are {', '.join(families)}", param_hint="--type")


def _check_actor(actor: str, state: State) -> None:
    seen = {*_ACTORS, *(r.actor for r in state.runs.values()),
            *(s.actor for s in state.sessions.values())}
    if actor in seen or actor.startswith("reviewer."):
        return
    raise click.BadParameter(f"no actor {actor!r}{did_you_mean(actor, seen)}; actors: "
                             f"{', '.join(sorted(seen))}", param_hint="--actor")


def _data(event: Event) -> dict[str, Any]:
    data = msgspec.to_builtins(event.data)
    return data if isinstance(data, dict) else {}


@click.command()
@home_option
@click.option("--type", "types", multiple=True, shell_complete=complete_types,
              help="Event type, exact or with a trailing * (repeatable).")
@click.option("--actor", default=None, help="Only events by this actor (agent, user, …).")
@click.option("--run", default=None, shell_complete=complete_runs,
              help="Only events of this run (a unique prefix will do).")
@click.option("--session", default=None, shell_complete=complete_sessions,
              help="Only events of this session (a unique prefix will do).")
@click.option("--entry", "entry", default=None,
              help="Only events on this memory entry (its id or a prefix of it).")
@click.option("--target", type=click.Choice(TARGETS), default=None,
              help="Only memory events on this target.")
@click.option("--grep", "pattern", default=None,
              help="Only events whose type, actor or data match this regular expression.")
@click.option("-i", "--ignore-case", is_flag=True, help="--grep ignores case.")
@click.option("--since", "since", default=None, metavar="SEQ|DATE",
              help="From this seq, or this date or time ago (2026-11-01, '2 days ago').")
@click.option("--until", "until", default=None, metavar="SEQ|DATE",
              help="Up to this seq, or this date or time ago (inclusive).")
@click.option("--limit", "-n", type=click.IntRange(min=0), default=None,
              help="Only the last N matching events (read from the journal's end).")
@click.option("--newest-first/--oldest-first", "newest", default=None,
              help="Order (default: newest first on a terminal, oldest first when piped).")
@click.option("--no-pager", is_flag=True, help="Never page the output on a terminal.")
@click.option("--follow", "-f", is_flag=True,
              help="Then wait for new events and show them as they are journaled, until "
                   "interrupted (oldest first; -n 0 shows only new ones).")
@click.pass_context
def log(ctx: click.Context, types: tuple[str, ...], actor: str | None, run: str | None,
        session: str | None, entry: str | None, target: str | None, pattern: str | None,
        ignore_case: bool, since: str | None, until: str | None, limit: int | None,
        newest: bool | None, no_pager: bool, follow: bool) -> None:
    """Show journal events, filtered by type, actor, run, session, entry, target, text,
    seq and date.

    For example `memoir log --type 'memory.*' --actor user --since '2 days ago'`.
    On a terminal the newest events come first, in a pager; piped (or with --json,
    one event per line) the oldest come first, so scripts read the journal in order.
    With --follow, memoir keeps reading: each event is shown as soon as its append is
    complete (with --json, one line each, flushed), until Ctrl-C.
    """
    _check_types(types)
    if follow and (until is not None or newest):
        raise click.UsageError("--follow shows events as they come, oldest first: it takes "
                               "no --until and no --newest-first")
    now = dt.datetime.now(dt.UTC)
    low, high = _bound(since, "--since", now), _bound(until, "--until", now)
    if isinstance(low, int) and isinstance(high, int) and low > high:
        raise click.BadParameter(f"--since {low} is after --until {high}: nothing is "
                                 "between them", param_hint="--since")
    if isinstance(low, str) and isinstance(high, str) and low > high:
        raise click.BadParameter(f"--since {since!r} is after --until {until!r}",
                                 param_hint="--since")
    # The folded state only when a filter needs it: `log -n 3` reads the journal's end.
    if actor or run or session or entry:
        handle = open_home(ctx, readonly=True, lazy=True)
        events = handle.events
    else:
        events = _journal_events(ctx)
    if actor is not None:
        _check_actor(actor, handle.state)
    if run is not None:
        run = resolve(run, handle.state.runs, "run", hint="`memoir runs` lists them")
    if session is not None:
        session = resolve(session, handle.state.sessions, "session")
    if entry is not None:
        live = [e.id for t in TARGETS for e in handle.state.memory.target(t).entries]
        if any(i.startswith(entry) for i in live):
            entry = resolve(entry, live, "entry", hint="`memoir memory list` lists them")
    try:
        regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0) if pattern else None
    except re.error as exc:
        raise click.BadParameter(f"{pattern!r} is not a regular expression: {exc}",
                                 param_hint="--grep") from None

    def where(event: Event) -> bool:
        if isinstance(low, str) and event.ts[:26] < low[:26]:
            return False
        if isinstance(high, str) and event.ts[:26] > high[:26]:
            return False
        if entry is not None or target is not None:
            data = _data(event)
            if entry is not None and not str(data.get("entry_id", "")).startswith(entry):
                return False
            if target is not None and data.get("target") != target:
                return False
        if regex is not None:
            text = f"{event.type} {event.actor} {msgspec.json.encode(event.data).decode()}"
            if event.meta:
                text += " " + " ".join(f"{k}={v}" for k, v in event.meta.items())
            if not regex.search(text):
                return False
        return True

    tty = sys.stdout.isatty() and not is_json()
    newest_first = tty if newest is None else newest
    followed = None
    if follow:
        # Where following starts is fixed before the events so far are read, so none is
        # missed or shown twice.
        newest_first, followed = False, _follow_journal(ctx)
        position = followed.end()
        high = position.seq if not isinstance(high, int) else min(high, position.seq)
    found = events(
        types=types, actor=actor, run=run, session=session,
        after=(low - 1) if isinstance(low, int) and low > 0 else 0,
        until=high if isinstance(high, int) else None,
        reverse=newest_first or limit is not None, where=where)
    if limit is not None:
        found = itertools.islice(found, limit)
        if not newest_first:
            found = reversed(list(found))
    if followed is not None:
        of_types = _of_types(types)

        def wanted(event: Event) -> bool:
            return (of_types(event.type) and (actor is None or event.actor == actor)
                    and (run is None or event.run == run)
                    and (session is None or event.session == session) and where(event))

        _stream(found, followed, position, wanted)
        return
    if is_json():
        for event in found:
            click.echo(event_json(event))
        return
    lines = (_summary_line(event) + "\n" for event in found)
    if tty and not no_pager:
        click.echo_via_pager(lines)
    else:
        for line in lines:
            click.echo(line, nl=False)


#: How often --follow looks at the end of the journal, in seconds.
FOLLOW_POLL = 0.2


def _show(event: Event) -> None:
    click.echo(event_json(event) if is_json() else _summary_line(event))


def _stream(found: Iterable[Event], journal: Any, position: Any,
            wanted: Callable[[Event], bool]) -> None:
    """Show ``found``, then each new event ``wanted`` as its append completes (each
    batch flushed, for a pipe), until interrupted."""
    try:
        for event in found:
            _show(event)
        sys.stdout.flush()
        # The readiness signal: from here on, every append after this seq is shown
        # (a script that starts a follower waits for this line on stderr).
        seq = position.seq
        click.echo(json.dumps({"log": {"level": "info", "event": "log.following",
                                       "seq": seq, "message": f"following from seq {seq}"}})
                   if is_json() else f"memoir: following from seq {seq} (Ctrl-C stops)",
                   err=True)
        while True:
            new, position = journal.read_since(position)
            for event in new:
                if wanted(event):
                    _show(event)
            if new:
                sys.stdout.flush()
            elif isinstance(journal, Notices):
                journal.wait_for_append(1.0)  # told of another machine's commit (or polls)
            else:
                time.sleep(FOLLOW_POLL)
    except KeyboardInterrupt:
        return  # Ctrl-C is how following ends


def _of_types(types: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether an event type is one of ``types`` (exact, or a prefix ending in ``*``);
    everything matches when none are given."""
    exact = {t for t in types if not t.endswith("*")}
    prefixes = tuple(t[:-1] for t in types if t.endswith("*"))

    def matches(kind: str) -> bool:
        return not types or kind in exact or (bool(prefixes) and kind.startswith(prefixes))

    return matches


def _open_journal(ctx: click.Context) -> Any:
    """The home's journal file opened read-only (nothing folded), closed with the
    command; None for a home whose journal is gone (opening the home says what was
    lost)."""
    from memoir.journal.home import home_journal
    from memoir.layout import default_home, no_home_message

    home = Path(home_path(ctx) or default_home()).expanduser()
    journal = home_journal(home, scan=False)
    if journal is None:
        if (home / ".memoir").is_dir():
            return None
        raise NotFoundError(no_home_message(home))
    ctx.call_on_close(journal.close)
    return journal


def _follow_journal(ctx: click.Context) -> Any:
    """The journal to follow; a home without one is an error here too."""
    journal = _open_journal(ctx)
    if journal is None:
        open_home(ctx, readonly=True, lazy=True)  # raises, naming what was lost
        raise NotFoundError("the home has no journal to follow")
    return journal


def _journal_events(ctx: click.Context) -> Any:
    """``Memoir.events`` over the home's journal file alone (nothing folded)."""
    journal = _open_journal(ctx)
    if journal is None:
        return open_home(ctx, readonly=True, lazy=True).events
    journal.tail_seq()  # reports an incomplete append at the end, as opening does

    def events(*, types: tuple[str, ...], actor: None, run: None, session: None, after: int,
               until: int | None, reverse: bool, where: Any) -> Iterator[Event]:
        of_types = _of_types(types)
        read = journal.read_reverse if reverse else journal.read
        for event in read(after=after, until=until):
            if of_types(event.type) and where(event):
                yield event

    return events


def _summary_line(event: Event) -> str:
    where = " ".join(f"{k}={v}" for k, v in (("run", event.run), ("session", event.session),
                                             *sorted((event.meta or {}).items())) if v)
    return (f"{event.seq:>6}  {event.ts[:19]}  {event.actor:<14} {event.type:<24} "
            f"{detail(event.data, width=90)}") + (f"  ({where})" if where else "")


