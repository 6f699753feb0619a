"""``memoir memory …``: read and edit MEMORY.md / USER.md as a person (actor ``user``).

Every write is one run (``run.started`` of kind ``cli`` first), so ``memoir revert RUN``
undoes it.
"""

from __future__ import annotations

from typing import Any

import click

from memoir.commands.base import UserError, echo_json, home_option, open_home
from memoir.ids import short_id
from memoir.memory.commands import memory_call
from memoir.projections.memory import TARGETS

__all__ = ["memory"]


@click.group()
def memory() -> None:
    """Read and edit MEMORY.md / USER.md as a person (actor `user`)."""


def _memory_write(ctx: click.Context, args: dict[str, Any]) -> None:
    handle = open_home(ctx)
    run = short_id("cli-")
    result, _ = memory_call(handle, args, actor="user", run=run, run_kind="cli")
    if not result.get("success"):
        message = str(result.get("error"))
        if result.get("matches"):
            message += " Matches: " + "; ".join(repr(m) for m in result["matches"])
        if result.get("drift_backup"):
            message += (" (`memoir adopt` keeps the file as it reads; `memoir rebuild --force` "
                        "discards the edit.)")
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
    handle = open_home(ctx, readonly=True)
    state = handle.view(at_seq)
    targets = [target] if target else list(TARGETS)
    if as_json:
        echo_json({t: [{"id": e.id, "text": e.text} for e in state.memory.target(t).entries]
                    for t in targets})
        return
    for t in targets:
        entries = state.memory.target(t).entries
        click.echo(f"[{t}] {len(entries)} entries")
        for e in entries:
            first, *rest = e.text.split("\n")
            click.echo(f"  {e.id}  {first}" + (f"  (+{len(rest)} lines)" if rest else ""))
