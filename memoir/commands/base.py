"""What every ``memoir`` command shares: the ``--home`` option, opening the home, the
one-line user error and JSON output.

A command that fails because of the user prints one line, ``memoir: error: …``, and
exits with status 1 (2 for a usage error); never a traceback.  The root group
(:mod:`memoir.cli`) turns memoir's own errors into such a line for every command.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from memoir.api import Memoir
    from memoir.events.types import Event

__all__ = ["UserError", "echo_json", "event_json", "home_option", "home_path", "open_home"]

F = TypeVar("F", bound=Callable[..., Any])


class UserError(click.ClickException):
    """A user error: printed as one ``memoir: error: …`` line, exit status 1."""

    def show(self, file: Any = None) -> None:
        click.echo(f"memoir: error: {self.format_message()}", err=True, file=file)


def home_path(ctx: click.Context) -> str | None:
    """The ``--home`` given on the command line, before or after the command name (the
    context object is shared down the command chain); None for the default."""
    home = ctx.obj.get("home") if ctx.obj else None
    return str(home) if home is not None else None


def open_home(ctx: click.Context, *, readonly: bool = False) -> Memoir:
    """Open the home of ``--home`` (default ``$MEMOIR_HOME``, else ``~/.memoir``); it is
    closed — its owed files written — when the command ends.  ``readonly``: for commands
    that only read (the home must exist, and nothing in it is created or written)."""
    # Imported here: the root imports this module, and `memoir --version` or a
    # usage error must not load the engine.
    from memoir.api import Memoir

    handle = Memoir(home_path(ctx), readonly=readonly)
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


def echo_json(value: Any) -> None:
    click.echo(json.dumps(value, ensure_ascii=False, indent=2))


def event_json(event: Event) -> str:
    import msgspec

    return msgspec.json.encode(event).decode()
