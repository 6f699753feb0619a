"""The ``memoir`` command line: the root group.

Every command takes ``--home PATH`` (default ``$MEMOIR_HOME``, else ``~/.memoir``) and
``--json``.  An error prints one line on stderr, ``memoir: error: …`` (JSON under
``--json``), and exits with a status of :class:`memoir.commands.base.Exit`; never a
traceback.

The root lists every command explicitly (:data:`COMMANDS`: name → where it is
defined in :mod:`memoir.commands`) and imports a command's module only when that
command runs, so ``memoir --version`` or ``memoir log`` load only what they need.
"""

from __future__ import annotations

import difflib
import importlib
import json
import logging
import os
import sys
from typing import Any

import click

import memoir
from memoir.commands.base import (
    Exit,
    home_option,
    is_json,
    is_quiet,
    report_error,
    set_json,
    set_quiet,
    user_error,
)
from memoir.errors import MemoirError

__all__ = ["COMMANDS", "SUMMARIES", "cli", "main"]

#: Every top-level command: name → "module:attribute" of its click command or group.
COMMANDS: dict[str, str] = {
    "init": "memoir.commands.home:init",
    "status": "memoir.commands.home:status",
    "memory": "memoir.commands.memory:memory",
    "log": "memoir.commands.log:log",
    "show": "memoir.commands.home:show",
    "prompt": "memoir.commands.home:prompt",
    "rebuild": "memoir.commands.home:rebuild",
    "adopt": "memoir.commands.home:adopt",
    "verify": "memoir.commands.home:verify",
    "repair": "memoir.commands.home:repair",
    "skills": "memoir.commands.skills:skills_group",
    "curator": "memoir.commands.curator:curator",
    "runs": "memoir.commands.runs:runs",
    "revert": "memoir.commands.runs:revert",
    "pending": "memoir.commands.pending:pending_group",
    "sessions": "memoir.commands.sessions:sessions_group",
    "review": "memoir.commands.sessions:review",
    "insights": "memoir.commands.insights:insights_group",
    "candidates": "memoir.commands.insights:candidates_group",
    "maintain": "memoir.commands.insights:maintain_command",
    "config": "memoir.commands.config:config_group",
    "demo": "memoir.commands.demo:demo",
    "diff": "memoir.commands.audit:diff",
    "doctor": "memoir.commands.doctor:doctor",
    "blame": "memoir.commands.audit:blame",
    "watch": "memoir.commands.watch:watch",
    "backup": "memoir.commands.backup:backup",
    "restore": "memoir.commands.backup:restore",
    "mcp": "memoir.commands.mcp:mcp",
    "ui": "memoir.commands.ui:ui",
    "import": "memoir.commands.hermes:import_group",
    "export": "memoir.commands.hermes:export_group",
    "hermes": "memoir.commands.hermes:hermes_group",
    "journal": "memoir.commands.journal:journal_group",
    "forget": "memoir.commands.forget:forget_command",
}


#: Every command's one-line help, as `memoir --help` lists it without importing the
#: commands (a test holds it equal to each command's own help).
SUMMARIES: dict[str, str] = {
    "adopt": (
        'Keep hand edits of MEMORY.md / USER.md and the skills tree by recording them in '
        'the journal.'
    ),
    "backup": (
        'Write ARCHIVE (a .tar.gz) holding the journal, the transcript store, config.yaml, '
        'the owner key this home pinned and a manifest (head seq, chain hash, a SHA-256 per '
        'file).'
    ),
    "blame": (
        "Which event wrote each entry of MEMORY.md / USER.md, or each line of a skill's "
        'file: seq, time, actor, run and session.'
    ),
    "candidates": 'Skills proposed from insights used often: list, accept, reject.',
    "config": 'The configuration (config.yaml in the home, and $MEMOIR_* overrides).',
    "curator": 'Skill lifecycle, consolidation passes, their schedule and their reports.',
    "demo": (
        'Walk through memoir on a fresh home, offline: write, pin, replay, audit, adopt, '
        'write skills, curate them and revert the pass.'
    ),
    "diff": 'What changed in MEMORY.md, USER.md and the skills between two points.',
    "doctor": (
        'Check the install and the home in one go: the memoir that runs and its extras, '
        'config.yaml, the journal (as verify), the projected files (as status), the Hermes '
        'plugin when this home mirrors a Hermes home, and the command an MCP client runs.'
    ),
    "export": "Write this home in another program's format.",
    "forget": (
        'Remove content for good: its records keep their place and hash in the journal (a '
        "tombstone holds the payload's digest), so `memoir verify` still passes; the "
        'recorded messages that held it, the caches and every other file under the home '
        'lose it too.'
    ),
    "hermes": "memoir as Hermes Agent's memory provider.",
    "import": "Bring another program's memory into this home.",
    "init": 'Create a home (journal, config.yaml, memories/) if it does not exist.',
    "insights": 'Tool-error signatures memoir counts: `memoir insights list`.',
    "journal": (
        'The journal itself: copy, upgrade, attach to a database, its signing keys, the '
        'quarantined records.'
    ),
    "log": (
        'Show journal events, filtered by type, actor, run, session, entry, target, text, '
        'seq and date.'
    ),
    "maintain": (
        'The scheduled pass: end sessions idle for sessions.idle_timeout_minutes (their '
        'summary and end review follow), expire tool-error signatures seen once and not '
        'within insights.expire_days, demote insights unused for insights.demote_days.'
    ),
    "mcp": (
        'Serve this home to an MCP client: on stdin/stdout (the default), or over '
        'streamable HTTP with --http.'
    ),
    "memory": 'Read and edit MEMORY.md / USER.md as a person (actor `user`).',
    "pending": 'Writes of agents and reviews held for your approval, oldest first.',
    "prompt": (
        'Print the MEMORY and USER prompt blocks: by default what a session started now '
        'would see; with --session, what that session saw; with --at, as of a seq; with '
        "--message, the full prompt of a turn (that session's, or a new session's)."
    ),
    "rebuild": 'Regenerate every projected file from the journal.',
    "repair": 'Cut a damaged record out of the journal (the cut bytes are kept beside it).',
    "restore": (
        'Restore ARCHIVE into a new home (--home, which must not exist or be empty): the '
        "manifest, every file's digest, the whole hash chain and every record (no name or "
        'path that leaves the home) are checked before anything is written there; then '
        'every projection is rebuilt.'
    ),
    "revert": (
        'Undo run RUN (its id, or a unique prefix of it; HEAD is the newest run, HEAD~1 '
        'the one before, --last the same as HEAD) with compensating events (itself a run '
        'you can revert).'
    ),
    "review": (
        "Review a session's recorded turns now, with the configured reviewer, as one run "
        '(`memoir revert RUN` undoes it).'
    ),
    "runs": 'List runs: who, when, what kind, what they did, and whether they were reverted.',
    "sessions": 'Conversations: import, list, search, show and export them.',
    "show": (
        'Print one event in full (SEQ), or one run (its id, a prefix, HEAD or HEAD~N) as '
        '`git show` prints a commit: who, when, what kind, its events, and what it changed '
        'in the projected files.'
    ),
    "skills": 'List, read, audit and change skills (as actor `user`).',
    "status": 'Head, entries and usage per target, sessions, runs, and drift.',
    "ui": (
        'Serve a web page that shows what the agent learned: the timeline of runs and '
        'their diffs, MEMORY.md and USER.md with blame at any point, skills and curator '
        'passes, sessions, insights and pending writes; revert a run, pin a skill, accept '
        'a candidate or approve a write as yourself.'
    ),
    "verify": 'Read the whole journal and check every record and the hash chain.',
    "watch": (
        'Keep the home in order while it runs: adopt hand edits of MEMORY.md, USER.md and '
        'skills as they are saved, write deleted files again, run the curator when due, '
        'end and review sessions idle for sessions.idle_timeout_minutes.'
    ),
}


class _Root(click.Group):
    """The top-level group: loads each command on first use and turns memoir's own
    errors into one-line user errors."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from :data:`SUMMARIES`: ``memoir --help`` imports none of
        the commands."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, click.Command(name, help=SUMMARIES[name]).get_short_help_str(limit))
                for name in sorted(COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        where = COMMANDS.get(name)
        if where is None:
            return None
        module, _, attribute = where.partition(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if args and self.get_command(ctx, name) is None and not name.startswith("-"):
            close = difflib.get_close_matches(name, COMMANDS, n=3, cutoff=0.6)
            hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            raise click.UsageError(f"No such command {name!r}.{hint} (`memoir --help` lists "
                                   "them all)", ctx)
        return super().resolve_command(ctx, args)

    def main(self, args: Any = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        """Run a command line; every outcome becomes an exit status of :class:`Exit`
        (raised as SystemExit in standalone mode, the default, else returned)."""
        argv = list(sys.argv[1:] if args is None else args)
        # Errors are JSON whenever --json was asked for, even a usage error found before
        # any option was parsed.
        set_json("--json" in (argv[: argv.index("--")] if "--" in argv else argv))
        set_quiet(False)  # until a -q/--quiet says otherwise
        status: int = Exit.OK
        try:
            result = super().main(argv, prog_name=prog_name, complete_var=complete_var,
                                  standalone_mode=False, **extra)
            if isinstance(result, int):
                status = result
        except BrokenPipeError:
            # The reader went away (`memoir log | head`): that is not an error.
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
            except (OSError, ValueError):
                pass  # a stdout without a descriptor (a test runner's buffer)
        except click.exceptions.Abort:
            report_error(Exit.ERROR, "aborted; nothing was changed")
            status = Exit.ERROR
        except click.UsageError as exc:
            if is_json():
                report_error(Exit.USAGE, exc.format_message())
            else:
                exc.show()
            status = Exit.USAGE
        except click.ClickException as exc:
            exc.show()
            status = exc.exit_code
        except (MemoirError, OSError) as exc:
            error = user_error(exc)
            error.show()
            status = error.exit_code
        except Exception as exc:
            # A bug in memoir, not a mistake of the user's: still one line (the
            # traceback with MEMOIR_DEBUG=1), and the status of a failure.
            if os.environ.get("MEMOIR_DEBUG"):
                raise
            report_error(Exit.ERROR, f"internal error ({type(exc).__name__}: {exc}); this "
                         "is a bug in memoir: run again with MEMOIR_DEBUG=1 for the "
                         "traceback and report it")
            status = Exit.ERROR
        if standalone_mode:
            sys.exit(int(status))
        return int(status)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise  # the reader went away (`memoir log | head`); main() ends quietly
        except (MemoirError, OSError) as exc:
            raise user_error(exc) from None


@click.group(cls=_Root, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(memoir.__version__, prog_name="memoir")
@home_option
@click.pass_context
def cli(ctx: click.Context) -> None:
    """memoir: event-sourced memory for AI agents.

    Every memory change is an event in an append-only journal; MEMORY.md and USER.md
    are projections of it that you can audit, replay and undo.
    """
    ctx.ensure_object(dict)
    _log_to_stderr(logging.WARNING if is_quiet() else logging.INFO)


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a record comes (tests swap it)."""

    def format(self, record: logging.LogRecord) -> str:
        fields = getattr(record, "memoir", None)
        level = record.levelname.lower()
        if is_json():  # stderr stays parseable: one JSON object per line
            shown: dict[str, Any] = {"level": level, "message": record.getMessage()}
            if isinstance(fields, dict):
                shown.update({k: v for k, v in fields.items() if k not in shown})
            return json.dumps({"log": shown}, ensure_ascii=False, default=str)
        text = _sentence(fields) if isinstance(fields, dict) else record.getMessage()
        return f"memoir: {text}" if level == "info" else f"memoir: {level}: {text}"

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass


def _sentence(fields: dict[str, Any]) -> str:
    """A structured notice as a person reads it: ``projection.restored`` with ``files``
    and ``why`` reads "projection restored: memories/MEMORY.md — deleted by hand…"."""
    rest = dict(fields)
    subject, _, verb = str(rest.pop("event", "")).partition(".")
    text = f"{subject} {verb.replace('_', ' ')}".strip()

    def shown(value: Any) -> str:
        if isinstance(value, list | tuple | set):
            return ", ".join(str(v) for v in value)
        return str(value)

    for key in ("files", "file", "path", "home"):
        if key in rest:
            text += f": {shown(rest.pop(key))}"
            break
    reason = next((rest.pop(k) for k in ("why", "reason", "error") if k in rest), None)
    if rest:
        text += " (" + ", ".join(f"{k.replace('_', ' ')} {shown(v)}"
                                 for k, v in rest.items()) + ")"
    if reason is not None:
        text += f" — {shown(reason)}"
    return text


def _log_to_stderr(level: int) -> None:
    # Warnings such as a torn tail being cut are for the person, but must not mix
    # with output that may be piped (`memoir log --json | jq`).  memoir logs through
    # the standard library (memoir.logs); the command, not the library, says where to.
    logger = logging.getLogger("memoir")
    if not any(isinstance(h, _Stderr) for h in logger.handlers):
        logger.addHandler(_Stderr())
        logger.propagate = False
    logger.setLevel(level)


def main(args: list[str] | None = None) -> Any:
    """Console-script entry point: runs the command and exits with its status."""
    return cli.main(args, prog_name="memoir")
