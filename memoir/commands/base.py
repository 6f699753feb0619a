"""What every ``memoir`` command shares: ``--home`` and ``--json``, opening the home,
errors and their exit statuses, and output (JSON, tables, confirmation).

**Errors.** A command that fails prints one line on stderr, ``memoir: error: …`` (with
``--json``: ``{"error": {"code": …, "message": …}}``), and exits with the status of
:class:`Exit` for what went wrong; never a traceback.  memoir's own exceptions are
mapped by :func:`user_error`, so a command raises them as they come.

**Output.** With ``--json`` (before or after the command name) every command prints
JSON on stdout: one document, or one object per line for ``log``.  Numbers are
numbers.  Without it, text: tables fit the terminal's width on a TTY and are plain
when piped; colour only on a TTY and never with ``NO_COLOR`` set.
"""

from __future__ import annotations

import enum
import json
import logging
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
import click.shell_completion

if TYPE_CHECKING:
    from memoir.api import Memoir
    from memoir.clock import Clock
    from memoir.events.types import Event

__all__ = [
    "Exit",
    "StderrProgress",
    "UserError",
    "complete_runs",
    "complete_sessions",
    "complete_skills",
    "complete_types",
    "confirm",
    "echo_json",
    "event_json",
    "event_row",
    "home_option",
    "home_path",
    "is_json",
    "is_quiet",
    "json_option",
    "open_home",
    "quiet_option",
    "report_error",
    "resolve_run",
    "set_json",
    "set_quiet",
    "styled",
    "table",
    "user_error",
    "write_json",
    "yes_option",
]

F = TypeVar("F", bound=Callable[..., Any])


def resolve_run(handle: Memoir, text: str) -> str:
    """The run ``text`` names: its id or a unique prefix, or, as git says it, ``HEAD``
    (the newest run) and ``HEAD~N`` (the Nth before it)."""
    import re

    from memoir.errors import NotFoundError
    from memoir.lookup import resolve

    runs = handle.state.runs
    back = re.fullmatch(r"HEAD(?:~(\d+))?", text)
    if back is None:
        return resolve(text, runs, "run", hint="`memoir runs` lists them")
    steps = int(back.group(1) or 0)
    newest = sorted(runs.values(), key=lambda r: r.first_seq, reverse=True)
    if steps >= len(newest):
        raise NotFoundError(f"no run {text}: the journal holds {len(newest)} run(s)")
    return newest[steps].id


class Exit(enum.IntEnum):
    """memoir's exit statuses, the same for every command (docs/cli.md has the table)."""

    OK = 0
    ERROR = 1  # anything else: a config file that cannot be used, a disk error, aborted
    USAGE = 2  # unknown command or option, bad option value, ambiguous id prefix
    NOT_FOUND = 3  # no home, no such run, session, seq, entry, skill or file
    REFUSED = 4  # a rule said no: threat scan, budget, guard, a hand edit in the way
    CONFLICT = 5  # later changes in the way: a revert or adoption conflict
    DAMAGED = 6  # the journal or the home is damaged: verify found problems, lost records

    @property
    def code(self) -> str:
        """The name used in JSON errors (``not_found``, ``refused`` …)."""
        return self.name.lower()


class UserError(click.ClickException):
    """An error for the person at the terminal: one line on stderr, the status of ``exit``.

    ``details`` go into the JSON error object beside ``code`` and ``message`` (and,
    as ``  key: value`` lines, after the message in text).
    """

    def __init__(self, message: str, *, exit: Exit = Exit.ERROR,
                 details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = exit
        # Click reads the status from the class; each error here carries its own.
        setattr(self, "exit_code", int(exit))  # noqa: B010
        self.details = details or {}

    def show(self, file: Any = None) -> None:
        report_error(self.status, self.format_message(), self.details)


def report_error(status: Exit, message: str, details: dict[str, Any] | None = None) -> None:
    """Print an error on stderr, as JSON under ``--json``."""
    message = " ".join(message.split())  # one line, whatever the exception said
    if is_json():
        click.echo(json.dumps({"error": {"code": status.code, "message": message,
                                         **(details or {})}}, ensure_ascii=False), err=True)
        return
    click.echo(f"memoir: error: {message}", err=True)
    for key, value in (details or {}).items():
        for item in value if isinstance(value, list) else [value]:
            click.echo(f"  {key}: {item}", err=True)


def user_error(exc: BaseException) -> UserError:
    """The :class:`UserError` for one of memoir's exceptions (or an ``OSError``)."""
    from memoir import errors

    if isinstance(exc, UserError):
        return exc
    status = Exit.ERROR
    details: dict[str, Any] = {}
    if isinstance(exc, errors.AmbiguousError):
        status = Exit.USAGE
        details = {"candidates": list(exc.candidates)}
    elif isinstance(exc, errors.NotFoundError):
        status = Exit.NOT_FOUND
    elif isinstance(exc, errors.ConflictError):
        status = Exit.CONFLICT
    elif isinstance(exc, errors.JournalUnavailable):  # a server down: nothing damaged
        status = Exit.ERROR
    elif isinstance(exc, errors.JournalError):  # corrupted, lost, unknown record type
        status = Exit.DAMAGED
    elif isinstance(exc, errors.ConfigError):
        status = Exit.ERROR
        if len(exc.problems) > 1:
            return UserError(f"the configuration has {len(exc.problems)} problems (each "
                             "below); nothing was done", exit=status,
                             details={"problem": list(exc.problems)})
    elif isinstance(exc, errors.ValidationError | errors.DriftError):
        status = Exit.REFUSED
    elif isinstance(exc, FileNotFoundError):
        status = Exit.NOT_FOUND
    return UserError(str(exc), exit=status, details=details)


# --- options ---------------------------------------------------------------------------

_json_mode = [False]


def is_json() -> bool:
    """Whether ``--json`` was given (anywhere on the command line)."""
    return _json_mode[0]


def set_json(value: bool) -> None:
    _json_mode[0] = value


_quiet_mode = [False]


def is_quiet() -> bool:
    """Whether ``-q/--quiet`` was given (before or after the command name)."""
    return _quiet_mode[0]


def set_quiet(value: bool) -> None:
    _quiet_mode[0] = value
    if value:  # given after the command name: the notices' handler is in place already
        logging.getLogger("memoir").setLevel(logging.WARNING)


def quiet_option(fn: F) -> F:
    """``-q/--quiet`` on a command (also accepted before the command name)."""

    def remember(_ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
        if value:
            set_quiet(True)
        return value

    return click.option("-q", "--quiet", "quiet", is_flag=True, expose_value=False,
                        callback=remember, is_eager=True,
                        help="Print only warnings and errors on stderr, not memoir's "
                             "notices.")(fn)


def json_option(fn: F) -> F:
    """``--json`` on a command (it is also accepted before the command name)."""

    def remember(_ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
        if value:
            set_json(True)
        return value

    return click.option("--json", "as_json", is_flag=True, expose_value=False,
                        callback=remember, is_eager=True,
                        help="Print JSON (errors too, on stderr).")(fn)


def yes_option(fn: F) -> F:
    """``-y/--yes``: do not ask before a destructive change."""
    return click.option("-y", "--yes", "yes", is_flag=True,
                        help="Do not ask for confirmation.")(fn)


def confirm(question: str, yes: bool) -> None:
    """Ask (on stderr, the answer read from stdin) before a destructive change unless
    ``--yes``.  Under ``--json`` nothing is asked: a script must say ``--yes``.  No
    answer, or an answer other than yes, changes nothing (exit status 1)."""
    if yes:
        return
    if is_json():
        raise UserError(f"{question} Not confirmed: give --yes (-y) with --json",
                        exit=Exit.USAGE)
    if not click.confirm(question, default=False, err=True):
        raise UserError("not confirmed; nothing was changed", exit=Exit.ERROR)


def home_path(ctx: click.Context) -> str | None:
    """The ``--home`` given on the command line, before or after the command name (the
    context object is shared down the command chain); None for the default."""
    home = ctx.obj.get("home") if ctx.obj else None
    return str(home) if home is not None else None


class StderrProgress:
    """Progress of a long read, on stderr, on a terminal only, once it has taken more
    than ``delay`` seconds (``$MEMOIR_PROGRESS_DELAY``, default 1): one line, rewritten
    in place, cleared by :meth:`finish`."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        try:
            self.delay = float(os.environ.get("MEMOIR_PROGRESS_DELAY", "1"))
        except ValueError:
            self.delay = 1.0
        self.shown: bool | None = False  # None once finished
        self.enabled = sys.stderr.isatty() and not is_json()

    def __call__(self, phase: str, done: int, total: int | None) -> None:
        if not self.enabled or time.monotonic() - self.start < self.delay:
            return
        if phase == "checking" and self.shown is None:
            return  # finished: a later catch-up of a few records shows nothing
        if total:
            text = f"memoir: {phase} the journal: {done:,} of {total:,} events " \
                   f"({min(100, done * 100 // total)}%)"
        elif done:
            text = f"memoir: {phase} the journal: {done:,} events"
        else:
            text = f"memoir: {phase} the journal…"
        sys.stderr.write("\r" + text.ljust(72))
        sys.stderr.flush()
        self.shown = True

    def finish(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 72 + "\r")
            sys.stderr.flush()
        self.shown = None


def open_home(ctx: click.Context, *, readonly: bool = False, create: bool = False,
              lazy: bool = False, clock: Clock | None = None) -> Memoir:
    """Open the home of ``--home`` (default ``$MEMOIR_HOME``, else ``~/.memoir``); it is
    closed — its owed files written — when the command ends.

    Only ``init`` (and ``demo``) create a home: a mistyped ``--home`` is an error, not
    a new empty home.  ``readonly``: for commands that only read (nothing in the home
    is created or written).  ``clock``: the time the command acts at (``--now``).
    """
    # Imported here: the root imports this module, and `memoir --version` or a
    # usage error must not load the engine.
    from memoir.api import Memoir

    progress = StderrProgress()
    try:
        handle = Memoir(home_path(ctx), readonly=readonly, create=create, lazy=lazy,
                        progress=progress, clock=clock)
    finally:
        if not lazy:
            progress.finish()
    ctx.call_on_close(handle.close)
    if lazy:  # the fold comes later, if at all
        ctx.call_on_close(progress.finish)
    return handle


def home_option(fn: F) -> F:
    """``--home`` on every command (also accepted before the command name)."""

    def remember(ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
        if value is not None:
            ctx.ensure_object(dict)
            ctx.obj["home"] = value
        return value

    return quiet_option(json_option(click.option(
        "--home", type=click.Path(file_okay=False, path_type=str), expose_value=False,
        callback=remember, is_eager=True,
        help="The memoir home (default: $MEMOIR_HOME, else ~/.memoir).",
    )(fn)))


# --- shell completion ------------------------------------------------------------------


def _complete(ctx: click.Context, incomplete: str, names: Callable[[Memoir], Iterable[str]]
              ) -> list[click.shell_completion.CompletionItem]:
    """Completion from the home (read-only; nothing at all when it cannot be opened)."""
    from memoir.api import Memoir

    try:
        handle = Memoir(home_path(ctx), readonly=True)
    except Exception:
        return []
    try:
        return [click.shell_completion.CompletionItem(n)
                for n in sorted(set(names(handle))) if n.startswith(incomplete)]
    except Exception:
        return []
    finally:
        handle.close()


def complete_runs(ctx: click.Context, _param: click.Parameter,
                  incomplete: str) -> list[click.shell_completion.CompletionItem]:
    return _complete(ctx, incomplete, lambda h: h.state.runs)


def complete_sessions(ctx: click.Context, _param: click.Parameter,
                      incomplete: str) -> list[click.shell_completion.CompletionItem]:
    return _complete(ctx, incomplete, lambda h: h.state.sessions)


def complete_skills(ctx: click.Context, _param: click.Parameter,
                    incomplete: str) -> list[click.shell_completion.CompletionItem]:
    return _complete(ctx, incomplete, lambda h: h.state.skills.skills)


def complete_types(_ctx: click.Context, _param: click.Parameter,
                   incomplete: str) -> list[click.shell_completion.CompletionItem]:
    from memoir.events.catalog import REGISTRY

    families = {t.split(".")[0] + ".*" for t in REGISTRY}
    return [click.shell_completion.CompletionItem(t)
            for t in sorted({*REGISTRY, *families}) if t.startswith(incomplete)]


# --- output ----------------------------------------------------------------------------


def echo_json(value: Any) -> None:
    """One JSON document on stdout."""
    click.echo(json.dumps(value, ensure_ascii=False, indent=2, default=_jsonable))


def _jsonable(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    import msgspec

    return msgspec.to_builtins(value)


def event_json(event: Event) -> str:
    import msgspec

    return msgspec.json.encode(event).decode()


def event_row(event: Event) -> dict[str, Any]:
    """An event as plain JSON values, with its summary (:mod:`memoir.events.present`)."""
    from memoir.events.present import event_row as row

    return row(event)


def write_json(run: str | None, events: Sequence[Event], **extra: Any) -> dict[str, Any]:
    """What a write command prints under ``--json`` (:func:`memoir.events.present.write_result`)."""
    from memoir.events.present import write_result

    return write_result(run, events, **extra)


def color() -> bool:
    """Colour only on a terminal, and never with ``NO_COLOR`` set (no-color.org)."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def styled(text: str, **style: Any) -> str:
    return click.style(text, **style) if color() else text


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *,
          flex: int = -1, right: Iterable[int] = ()) -> None:
    """Print rows under headers, columns aligned.  On a terminal, column ``flex`` (the
    last by default) is cut to fit its width; piped, nothing is cut."""
    cells = [[("-" if v is None else str(v)).replace("\n", " ⏎ ") for v in row]
             for row in rows]
    if not cells:
        return
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    flex %= len(headers)
    if sys.stdout.isatty():
        room = shutil.get_terminal_size((100, 24)).columns
        fixed = sum(w for i, w in enumerate(widths) if i != flex) + 2 * (len(widths) - 1)
        widths[flex] = max(min(widths[flex], room - fixed), len(headers[flex]), 8)
    aligned = set(right)

    def line(values: Sequence[str]) -> str:
        out = []
        for i, (value, width) in enumerate(zip(values, widths, strict=True)):
            if len(value) > width:
                value = value[: max(width - 1, 0)] + "…"
            last = i == len(values) - 1
            out.append(value.rjust(width) if i in aligned else
                       value if last else value.ljust(width))
        return "  ".join(out).rstrip()

    click.echo(styled(line(list(headers)), bold=True))
    for row in cells:
        click.echo(line(row))
