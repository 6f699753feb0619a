"""``memoir journal copy``, ``upgrade`` and ``quarantine``: moving a journal between a
file and PostgreSQL, record for record, bringing a database's schema up to date, and
listing the records the fold leaves out."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

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
from memoir.errors import ValidationError
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

T = TypeVar("T")


@click.group("journal")
@home_option
def journal_group() -> None:
    """The journal itself: copy, upgrade, attach to a database, its signing keys, the
    quarantined records."""


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
@click.option("--sign/--no-sign", default=True, show_default=True,
              help="Turn signing on (this home's key becomes the owner's) when it is not.")
@click.pass_context
def upgrade(ctx: click.Context, sign: bool) -> None:
    """Bring the journal up to this memoir's version: a PostgreSQL journal's schema (the
    tables an older memoir lacks; run it as a role that may create tables) and, unless
    --no-sign, signed appends — this home's key (made in .memoir/signing.key if missing)
    becomes the owner's, and from then on every home folds only appends signed by a key
    the owner trusts (`memoir journal trust`).  What was written before stays as it is."""
    journal = _source(ctx, upgrade=True)
    schema: dict[str, object] = {"schema_version": None, "current": SCHEMA_VERSION,
                                 "upgraded": False, "from": None}
    if isinstance(journal, Schema):
        schema = {"schema_version": journal.schema_version(), "current": SCHEMA_VERSION,
                  "upgraded": journal.upgraded_from is not None,
                  "from": journal.upgraded_from}
    journal.close()
    signing = _start_signing(ctx) if sign else None
    if is_json():
        echo_json({**schema, **({"signing": signing} if signing is not None else {})})
        return
    if schema["schema_version"] is None:
        click.echo("a file journal has no schema to upgrade")
    elif schema["upgraded"]:
        click.echo(f"upgraded the schema from version {schema['from']} to "
                   f"{schema['schema_version']}")
    else:
        click.echo(f"already at schema version {schema['schema_version']}: memoir's tables "
                   "are all there (their guards made again when this role owns them)")
    if signing is not None:
        _echo_signing(signing)


def _start_signing(ctx: click.Context) -> dict[str, object]:
    from memoir.commands.base import open_home
    from memoir.engine.signing import home_signer, start_signing

    handle = open_home(ctx)
    started, keys = start_signing(handle, label=_label())
    signer = home_signer(handle.home)
    assert signer is not None
    return {"on": True, "started": started, "since": keys.since, "owner": keys.owner,
            "key": signer.key, "trusted": keys.trusted_at(signer.key, handle.head + 1)
            is not None}


def _echo_signing(info: dict[str, object]) -> None:
    from memoir.engine.signing import trust_line
    from memoir.signatures import short

    owner, key = str(info["owner"]), str(info["key"])
    if info["started"]:
        click.echo(f"signing is on from seq {info['since']}: this home's key {short(key)} is "
                   "the owner's; every append is signed, and homes fold only what trusted "
                   "keys signed")
        return
    click.echo(f"signing is already on (since seq {info['since']}, owner {short(owner)})")
    if not info["trusted"]:
        click.echo(f"this home's key {short(key)} is not trusted yet; the owner runs:\n  "
                   f"{trust_line(key, _label())}")
        click.echo("if nobody you trust turned signing on, claim the journal for the homes "
                   f"that pin your key: `memoir journal owner --pin {key}`, then upgrade "
                   "again (the other owner record is then quarantined in those homes)")


def _label() -> str:
    from memoir.engine.signing import host_label

    return host_label()


@journal_group.command("key")
@home_option
@click.pass_context
def key_command(ctx: click.Context) -> None:
    """Show this home's signing key (made in .memoir/signing.key, mode 0600, if missing)
    and whether the journal trusts it; prints the line the journal's owner runs to let
    this home write."""
    from memoir.commands.base import open_home
    from memoir.engine.signing import home_signer, trust_line

    handle = open_home(ctx)
    signer = home_signer(handle.home, create=True)
    assert signer is not None
    keys = handle.state.keys
    info = keys.keys.get(signer.key)
    trusted = keys.trusted_at(signer.key, handle.head + 1) is not None
    if is_json():
        echo_json({"key": signer.key, "signing": keys.signing, "owner": keys.owner or None,
                   "trusted": trusted, "revoked": bool(info and info.until),
                   "may": info.may if info else [], "trust_line": trust_line(signer.key,
                                                                              _label())})
        return
    click.echo(f"key      {signer.key}")
    if not keys.signing:
        click.echo("signing  off on this journal (`memoir journal upgrade` turns it on, with "
                   "this key as the owner's)")
    elif trusted:
        owner = " (the owner)" if signer.key == keys.owner else ""
        may = ", ".join(info.may) if info and info.may else "append"
        click.echo(f"trusted  yes{owner}: may {may}")
    else:
        click.echo(f"trusted  no; the journal's owner runs:\n  {trust_line(signer.key, _label())}")


@journal_group.command("owner")
@home_option
@click.option("--pin", "pin_key", default=None, metavar="KEY",
              help="Pin KEY as the journal's owner (after checking it with the owner: "
                   "`memoir journal owner` on the owner's home prints it); the journal is "
                   "folded again by it.")
@click.pass_context
def owner_command(ctx: click.Context, pin_key: str | None) -> None:
    """Show the journal's owner (the key that turned signing on, and the owner now) and
    the owner this home pinned; with --pin, pin another.  A home folds no record that
    turns signing on with a key other than the pinned one, and writes nothing to a
    journal not rooted in it."""
    from memoir.commands.base import open_home
    from memoir.engine.signing import pin

    handle = open_home(ctx)
    if pin_key is not None:
        try:
            pin(handle, pin_key)
        except ValidationError as exc:
            raise click.BadParameter(str(exc), param_hint="--pin") from None
        handle.flush()
    keys = handle.state.keys
    holds = not keys.pinned or keys.root == keys.pinned
    if is_json():
        echo_json({"signing": keys.signing, "root": keys.root or None,
                   "owner": keys.owner or None, "pinned": keys.pinned or None,
                   "holds": holds})
        return
    if keys.signing:
        click.echo(f"root     {keys.root} (turned signing on at seq {keys.since})")
        if keys.owner != keys.root:
            click.echo(f"owner    {keys.owner} (the owner now, appointed by the root)")
    else:
        click.echo("signing  off on this journal (`memoir journal upgrade` turns it on)")
    if not keys.pinned:
        click.echo("pinned   none: this home pins the owner it first meets when it writes")
    elif holds:
        click.echo(f"pinned   {keys.pinned}: the journal is rooted in it")
    else:
        click.echo(f"pinned   {keys.pinned}: the journal is NOT rooted in it; this home "
                   "writes nothing to it.  If the owner really changed, check the new key "
                   "with them and run `memoir journal owner --pin KEY`")


@journal_group.command("trust")
@home_option
@click.argument("key")
@click.option("--may", "may", multiple=True, type=click.Choice(["forget", "revert", "trust"]),
              help="A right beyond appending (repeatable): forget, revert another key's "
                   "runs, change the registry.")
@click.option("--label", default="", help="A name to tell the key apart by.")
@click.pass_context
def trust_command(ctx: click.Context, key: str, may: tuple[str, ...], label: str) -> None:
    """Let KEY (a home's public key: `memoir journal key` there prints it) sign appends
    to this journal; run by the owner (a signed registry record)."""
    from memoir.commands.base import open_home
    from memoir.engine.signing import change_registry
    from memoir.events.keys import KeyTrusted

    handle = open_home(ctx)
    payload = _registry_payload(lambda: KeyTrusted(key=key.strip().lower(), may=list(may),
                                                   label=label))
    change_registry(handle, payload)
    if is_json():
        echo_json({"key": payload.key, "trusted": True, "may": sorted(set(may)),
                   "seq": handle.head})
    else:
        click.echo(f"trusted {payload.key[:16]} from seq {handle.head}"
                   + (f" (may {', '.join(sorted(set(may)))})" if may else ""))


@journal_group.command("revoke")
@home_option
@click.argument("key")
@click.option("--reason", default="", help="Why (kept in the journal).")
@click.pass_context
def revoke_command(ctx: click.Context, key: str, reason: str) -> None:
    """Stop KEY from signing: appends it signs after this record are quarantined by
    every home (what it signed before stands); run by the owner."""
    from memoir.commands.base import open_home
    from memoir.engine.signing import change_registry
    from memoir.events.keys import KeyRevoked

    handle = open_home(ctx)
    payload = _registry_payload(lambda: KeyRevoked(key=key.strip().lower(), reason=reason))
    change_registry(handle, payload)
    if is_json():
        echo_json({"key": payload.key, "revoked": True, "seq": handle.head})
    else:
        click.echo(f"revoked {payload.key[:16]} at seq {handle.head}")


def _registry_payload(make: Callable[[], T]) -> T:
    try:
        return make()
    except (ValueError, TypeError) as exc:
        raise click.BadParameter(str(exc), param_hint="KEY") from None


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


@journal_group.command("check")
@home_option
@click.pass_context
def check_command(ctx: click.Context) -> None:
    """Check a PostgreSQL journal's database: memoir's tables and columns, the triggers
    that keep records and seals append-only (present, enabled, unchanged), and that no
    role but the tables' owner may change a record, a seal or the schema's version.
    Each problem comes with the statement or command that fixes it; nothing is changed.
    Exit 6 when something fails."""
    from memoir.journal.postgres.check import check_database

    journal = _source(ctx)
    findings = check_database(journal)
    if findings is None:
        raise UserError(f"{journal.where()} is a {journal.kind} journal: `memoir journal "
                        "check` checks a PostgreSQL journal's database (`memoir verify` "
                        "checks every journal's records)", exit=Exit.USAGE)
    failed = [f for f in findings if f.status == "fail"]
    if is_json():
        echo_json({"where": journal.where(), "ok": not failed,
                   "checks": [f.as_json() for f in findings]})
    else:
        for f in findings:
            click.echo(f"{f.status:<5} {f.check}: {f.detail}" + (f"\n      fix: {f.fix}"
                                                                   if f.fix else ""))
    if failed:
        raise UserError(f"{len(failed)} check(s) failed on {journal.where()}",
                        exit=Exit.DAMAGED)


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
