"""The ``memoir`` command line: the root group.

Every command takes ``--home PATH`` (default ``$MEMOIR_HOME``, else ``~/.memoir``).
A user error prints one line, ``memoir: error: …``, and exits with status 1 (2 for a
usage error); never a traceback.

The root lists every command explicitly (:data:`COMMANDS`: name → where it is
defined in :mod:`memoir.commands`) and imports a command's module only when that
command runs, so ``memoir --version`` or ``memoir log`` load only what they need.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from typing import Any

import click

import memoir
from memoir.commands.base import UserError, home_option
from memoir.errors import MemoirError

__all__ = ["COMMANDS", "cli", "main"]

#: Every top-level command: name → "module:attribute" of its click command or group.
COMMANDS: dict[str, str] = {
    "init": "memoir.commands.home:init",
    "status": "memoir.commands.home:status",
    "memory": "memoir.commands.memory:memory",
    "log": "memoir.commands.home:log",
    "show": "memoir.commands.home:show",
    "prompt": "memoir.commands.home:prompt",
    "rebuild": "memoir.commands.home:rebuild",
    "adopt": "memoir.commands.home:adopt",
    "verify": "memoir.commands.home:verify",
    "repair": "memoir.commands.home:repair",
    "skills": "memoir.commands.skills:skills_group",
    "curator": "memoir.commands.curator:curator",
    "runs": "memoir.commands.curator:runs",
    "revert": "memoir.commands.curator:revert",
    "pending": "memoir.commands.pending:pending_group",
    "demo": "memoir.commands.demo:demo",
}


class _Root(click.Group):
    """The top-level group: loads each command on first use and turns memoir's own
    errors into one-line user errors."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        where = COMMANDS.get(name)
        if where is None:
            return None
        module, _, attribute = where.partition(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise  # the reader went away (`memoir log | head`); main() ends quietly
        except (MemoirError, OSError) as exc:
            # One line, whatever the message: a YAML error, for one, spans several.
            raise UserError(" ".join(str(exc).split())) from None


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
    _log_to_stderr()


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a record comes (tests swap it)."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter("memoir: %(levelname)s: %(message)s"))

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass


def _log_to_stderr() -> None:
    # Warnings such as a torn tail being cut are for the person, but must not mix
    # with output that may be piped (`memoir log --json | jq`).  memoir logs through
    # the standard library (memoir.logs); the command, not the library, says where to.
    logger = logging.getLogger("memoir")
    if not any(isinstance(h, _Stderr) for h in logger.handlers):
        logger.addHandler(_Stderr())
        logger.setLevel(logging.INFO)
        logger.propagate = False


def main() -> Any:
    """Console-script entry point."""
    try:
        return cli.main(prog_name="memoir", standalone_mode=True)
    except BrokenPipeError:
        # The reader went away (`memoir log | head`): that is not an error.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)
    except (MemoirError, OSError) as exc:
        click.echo(f"memoir: error: {exc}", err=True)
        sys.exit(1)
