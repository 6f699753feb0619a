"""``memoir pending …``: the writes held for approval (``memory.write_approval``,
``skills.write_approval``) — list, show, approve, reject."""

from __future__ import annotations

import click

from memoir.commands.base import Exit, UserError, echo_json, home_option, is_json, open_home
from memoir.errors import ValidationError
from memoir.oversight.approvals import approve, check_ids, pending, pending_row, reject, show

__all__ = ["pending_group"]


@click.group("pending", invoke_without_command=True)
@home_option
@click.pass_context
def pending_group(ctx: click.Context) -> None:
    """Writes of agents and reviews held for your approval, oldest first.

    With memory.write_approval or skills.write_approval on in config.yaml, the memory
    and skill_manage tools hold every write an agent or a review makes (yours are
    never held): `memoir pending show ID` shows one, `approve` makes it (replaying the
    call against the memory as it is now) and `reject` drops it. Both are journaled
    (write.approved, write.rejected), so `memoir log` says who approved what.
    """
    if ctx.invoked_subcommand is not None:
        return
    handle = open_home(ctx, readonly=True)
    held = pending(handle)
    if is_json():
        echo_json([pending_row(w) for w in held])
        return
    config = handle.config
    click.echo(f"write approval: memory {'on' if config.memory.write_approval else 'off'}, "
               f"skills {'on' if config.skills.write_approval else 'off'}")
    if not held:
        click.echo("nothing pending")
    for w in held:
        auto = " [auto]" if w.origin == "background_review" else ""
        first = w.summary.split("\n")[0]
        click.echo(f"{w.id}  {w.staged_at[:19]}  {w.subsystem:<6} {w.actor:<16} "
                   f"{first}{auto}")


@pending_group.command("show")
@home_option
@click.argument("pending_id")
@click.pass_context
def show_command(ctx: click.Context, pending_id: str) -> None:
    """One pending write in full, and what approving it now would change."""
    info = show(open_home(ctx, readonly=True), pending_id)
    if is_json():
        echo_json(info)
        return
    click.echo(f"{info['id']}: {info['subsystem']} {info['action']} proposed by "
               f"{info['proposed_by']} ({info['origin']}) at seq {info['staged_seq']}")
    click.echo(info["summary"])
    if "diff" in info:
        click.echo(info["diff"].rstrip("\n"))
    for key, values in info.get("would", {}).items():
        for value in values if isinstance(values, list) else [values]:
            click.echo(f"  would {key}: {value}")


def _ids(ids: tuple[str, ...], everything: bool) -> list[str] | None:
    try:
        chosen = check_ids(ids, everything)
    except ValidationError as exc:
        raise click.UsageError(str(exc)) from None
    return None if chosen is None else list(chosen)


@pending_group.command("approve")
@home_option
@click.argument("ids", nargs=-1)
@click.option("--all", "everything", is_flag=True, help="Approve every pending write.")
@click.pass_context
def approve_command(ctx: click.Context, ids: tuple[str, ...], everything: bool) -> None:
    """Approve pending writes: each is made now, in the order it was proposed."""
    results = approve(open_home(ctx), _ids(ids, everything))
    if is_json():
        echo_json([{"pending_id": r.pending_id, "approved": r.success, "result": r.result}
                    for r in results])
    failed = 0
    for r in results:
        if not r.success:
            failed += 1
        if is_json():
            continue
        if r.success:
            click.echo(f"approved {r.pending_id}: {r.result.get('message', '')}")
        else:
            click.echo(f"not approved {r.pending_id} (still pending): {r.result.get('error')}")
    if not results and not is_json():
        click.echo("nothing pending")
    if failed:
        raise UserError(f"{failed} of {len(results)} pending write(s) could not be made",
                        exit=Exit.REFUSED)


@pending_group.command("reject")
@home_option
@click.argument("ids", nargs=-1)
@click.option("--all", "everything", is_flag=True, help="Reject every pending write.")
@click.option("--reason", default="", help="Why (kept with the rejection).")
@click.pass_context
def reject_command(ctx: click.Context, ids: tuple[str, ...], everything: bool,
                   reason: str) -> None:
    """Reject pending writes: nothing is written."""
    done = reject(open_home(ctx), _ids(ids, everything), reason=reason)
    if is_json():
        echo_json({"rejected": done})
        return
    click.echo(f"rejected {', '.join(done)}" if done else "nothing pending")
