"""``memoir demo``: the guided tour on a fresh home (see :mod:`memoir.commands.tour`)."""

from __future__ import annotations

from pathlib import Path

import click

from memoir.commands.base import echo_json, home_path, is_json, json_option
from memoir.commands.tour import run_demo

__all__ = ["demo"]


@click.command()
@click.option("--home", "home", type=click.Path(file_okay=False), default=None,
              help="Run in this (new or empty) home instead of a fresh temporary one.")
@json_option
@click.pass_context
def demo(ctx: click.Context, home: str | None) -> None:
    """Walk through memoir on a fresh home, offline: write, pin, replay, audit, adopt,
    write skills, curate them and revert the pass.

    The demo needs an empty home, so it ignores $MEMOIR_HOME and makes a temporary one
    unless --home names a new or empty folder.
    """
    chosen = home or home_path(ctx)
    if is_json():  # the tour's text would not be JSON: say where it ran, and its steps
        steps: list[str] = []
        where = run_demo(Path(chosen) if chosen else None, echo=steps.append)
        echo_json({"home": str(where), "output": [line for line in steps if line]})
        return
    run_demo(Path(chosen) if chosen else None, echo=click.echo)
