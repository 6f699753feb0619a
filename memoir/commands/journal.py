"""``memoir journal copy``, ``upgrade`` and ``quarantine``: moving a journal between a
file and PostgreSQL, record for record, bringing a database's schema up to date, and
listing the records the fold leaves out."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

from memoir.commands.base import (
    Exit,
    UserError,
    echo_json,
    home_option,
    home_path,
    is_json,
)
from memoir.engine.seals import SEALS_FILE, seal_lines
from memoir.journal import (
    Journal,
    LineAccess,
    Loading,
    Schema,
    is_database,
    open_journal,
    redact_url,
)
from memoir.journal.home import home_journal
from memoir.journal.postgres import SCHEMA_VERSION
from memoir.layout import default_home, no_home_message

__all__ = ["journal_group"]


@click.group("journal")
@home_option
def journal_group() -> None:
    """The journal itself: copy, upgrade, attach to a database, list quarantined records."""


def _home(ctx: click.Context) -> Path:
    return Path(home_path(ctx) or default_home()).expanduser()


def _source(ctx: click.Context, *, upgrade: bool = False) -> Journal:
    home = _home(ctx)
    journal = home_journal(home, upgrade=upgrade)
    if journal is None:
        raise UserError(no_home_message(home), exit=Exit.NOT_FOUND)
    ctx.call_on_close(journal.close)
    return journal


@journal_group.command("copy")
@home_option
@click.argument("dest")
@click.pass_context
def copy(ctx: click.Context, dest: str) -> None:
    """Copy this home's journal to DEST — an empty PostgreSQL database
    (postgresql://USER@HOST:PORT/DB) or a new file — every record, hash and byte
    unchanged, then verify the copy. The seals of a home with a key go along: into the
    database, or into .memoir/seals.jsonl beside a file (where a home whose journal it
    is reads them). The home keeps using its own journal: point journal.url at the
    database (or back at nothing, for a file) to switch."""
    source = _source(ctx)
    if not isinstance(source, LineAccess):
        raise UserError("this journal cannot be copied", exit=Exit.REFUSED)
    head = source.head()
    seals = seal_lines(_home(ctx), head, source).splitlines()
    lines = (line for _seq, _offset, line in source.read_lines(until=head))
    if is_database(dest):  # a journal that takes lines as they are
        target = open_journal(dest, create=True)
        try:
            if not isinstance(target, Loading):
                raise UserError(f"{redact_url(dest)}: this journal cannot take a copy",
                                exit=Exit.REFUSED)
            count = target.load_lines(lines, seals=seals)
            report = target.verify()
        finally:
            target.close()
        where = redact_url(dest)
    else:
        path = Path(dest).expanduser()
        if path.exists() and (not path.is_file() or path.stat().st_size):
            raise UserError(f"{path} already exists; copy into a new file", exit=Exit.REFUSED)
        seals_path = path.parent / SEALS_FILE
        if seals and seals_path.exists() and (not seals_path.is_file() or
                                              seals_path.stat().st_size):
            raise UserError(f"{seals_path} already exists; copy into a new folder",
                            exit=Exit.REFUSED)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        count = 0
        try:
            with os.fdopen(fd, "wb") as out:
                for line in lines:
                    out.write(line + b"\n")
                    count += 1
                out.flush()
                os.fsync(out.fileno())
            with open_journal(Path(tmp), readonly=True) as written:
                report = written.verify()
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        if seals:
            seals_path.parent.mkdir(exist_ok=True)
            seals_path.write_bytes(b"".join(line + b"\n" for line in seals))
        where = str(path)
    if report.records != count or report.head_hash != source.head_hash():
        raise UserError(f"the copy at {where} does not match the journal "
                        f"({report.records} of {count} records)", exit=Exit.DAMAGED)
    if is_json():
        echo_json({"dest": where, "records": count, "head_hash": report.head_hash,
                   "bytes": report.bytes, "seals": len(seals)})
        return
    sealed = f" and {len(seals)} seal(s)" if seals else ""
    click.echo(f"copied {count} record(s){sealed} to {where}; verified, head hash "
               f"{report.head_hash or '-'}")


@journal_group.command("upgrade")
@home_option
@click.pass_context
def upgrade(ctx: click.Context) -> None:
    """Bring the PostgreSQL journal's schema to this memoir's version: add the tables a
    database made by an older memoir lacks (run it as a role that may create tables; a
    file journal has no schema to upgrade)."""
    journal = _source(ctx, upgrade=True)
    if not isinstance(journal, Schema):
        if is_json():
            echo_json({"schema_version": None, "current": SCHEMA_VERSION, "upgraded": False,
                       "from": None})
        else:
            click.echo("a file journal has no schema to upgrade")
        return
    version = journal.schema_version()
    before = journal.upgraded_from
    if is_json():
        echo_json({"schema_version": version, "current": SCHEMA_VERSION,
                   "upgraded": before is not None, "from": before})
        return
    if before is not None:
        click.echo(f"upgraded the schema from version {before} to {version}")
    else:
        click.echo(f"already at schema version {version}: memoir's tables are all there")


@journal_group.command("quarantine")
@home_option
@click.pass_context
def quarantine(ctx: click.Context) -> None:
    """List the records of the journal that memoir does not fold: rows that chain but
    that no memoir writes (unreadable, of an unknown type, over the limits in force),
    with their seq, writer and reason.  They stay in the journal (it is append-only);
    every home leaves them out."""
    from memoir.api import Memoir

    home = _home(ctx)
    if not home.is_dir():
        raise UserError(no_home_message(home), exit=Exit.NOT_FOUND)
    handle = Memoir(home, readonly=True)
    ctx.call_on_close(handle.close)
    state = handle.state
    rows = []
    for seq, why in sorted(state.quarantined.items()):
        event = handle.record(seq)
        rows.append({"seq": seq, "type": event.type if event else "?",
                     "actor": event.actor if event else "?", "reason": why})
    if is_json():
        echo_json({"count": state.quarantine_count, "records": rows})
        return
    if not rows:
        click.echo("no record is quarantined: every record of the journal is folded")
        return
    for row in rows:
        click.echo(f"{row['seq']:>8}  {row['type']:<24} {row['actor']:<10} {row['reason']}")
    more = state.quarantine_count - len(rows)
    click.echo(f"{state.quarantine_count} record(s) quarantined"
               + (f" ({more} more not listed)" if more > 0 else ""))


@journal_group.command("attach")
@home_option
@click.pass_context
def attach_command(ctx: click.Context) -> None:
    """Let this home connect to the database its config.yaml names (your say-so: a
    folder copied from elsewhere, a restored backup or a hand-edited config.yaml is
    never connected to without it; `memoir init --journal` attaches by itself)."""
    from memoir.config import load_config
    from memoir.journal.home import attach, is_attached

    home = _home(ctx)
    if not home.is_dir():
        raise UserError(no_home_message(home), exit=Exit.NOT_FOUND)
    config = load_config(home)
    url = config.journal.url
    if not url:
        raise UserError(f"{home / 'config.yaml'} names no database journal (journal.url); "
                        "there is nothing to attach", exit=Exit.NOT_FOUND)
    already = is_attached(home, url)
    attach(home, url)
    if is_json():
        echo_json({"url": redact_url(url), "attached": True, "already": already})
    elif already:
        click.echo(f"already attached to {redact_url(url)}")
    else:
        click.echo(f"attached to {redact_url(url)}: this home connects to it from now on")
