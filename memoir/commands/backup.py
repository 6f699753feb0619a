"""``memoir backup`` and ``memoir restore``: one archive of what a home cannot rebuild
(see :mod:`memoir.engine.backup`)."""

from __future__ import annotations

from pathlib import Path

import click

from memoir.commands.base import echo_json, home_option, home_path, is_json, open_home


@click.command()
@home_option
@click.argument("archive", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--with-key", is_flag=True,
              help="Put this home's signing key in the archive too (mode 0600 there and "
                   "when restored): the restored home signs as this one. Without it a "
                   "restored home reads and verifies, and writes once its own key is "
                   "trusted.")
@click.pass_context
def backup(ctx: click.Context, archive: Path, with_key: bool) -> None:
    """Write ARCHIVE (a .tar.gz) holding the journal, the transcript store, config.yaml,
    the owner key this home pinned and a manifest (head seq, chain hash, a SHA-256 per
    file). Safe while agents write: the archive holds every append complete when it
    started."""
    from memoir.engine.backup import backup_home

    handle = open_home(ctx, readonly=True, lazy=True)
    info = backup_home(handle, archive, with_key=with_key)
    if is_json():
        echo_json({"archive": str(archive), **info.as_json()})
        return
    summary = info.as_json()
    click.echo(f"backed up {info.head} records ({summary['files']} files, "
               f"{summary['bytes']:,} bytes) to {archive}; `memoir restore {archive} "
               "--home NEW` checks and restores it")
    if info.forgotten_through is not None:
        click.echo(f"it holds every forget up to seq {info.forgotten_through} (memoir "
                   "forget); archives made before a forget still hold what it removed")
    if with_key:
        click.echo(f"it holds this home's private signing key: whoever has {archive} "
                   "signs as this home; keep it as you keep the key")


@click.command()
@home_option
@click.argument("archive", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--with-config", is_flag=True,
              help="Use the archive's config.yaml as the new home's (default: it is put "
                   "aside as config.yaml.restored, since a configuration from elsewhere "
                   "could send conversations to another server).")
@click.pass_context
def restore(ctx: click.Context, archive: Path, with_config: bool) -> None:
    """Restore ARCHIVE into a new home (--home, which must not exist or be empty): the
    manifest, every file's digest, the whole hash chain and every record (no name or
    path that leaves the home) are checked before anything is written there; then
    every projection is rebuilt."""
    from memoir.engine.backup import restore_archive
    from memoir.engine.forget.carry import settle_restored
    from memoir.layout import default_home

    target = Path(home_path(ctx) or default_home()).expanduser()
    restored = restore_archive(archive, target, with_config=with_config)
    info = restored.info
    handle = open_home(ctx)
    written = handle.rebuild()
    handle.flush()
    settle_restored(handle)  # forgets the archive's home had carried out are done here
    if is_json():
        echo_json({"home": str(target), "rewrote": list(written), **info.as_json(),
                   "config": restored.config, "config_keys": restored.config_keys})
        return
    click.echo(f"restored {info.head} records into {target} (chain verified to "
               f"{info.hash[:12]}…); its files are written from the journal")
    if info.as_json()["with_key"]:
        click.echo("it held the backed-up home's signing key: this home signs as that one "
                   "(let one of the two write, or `memoir journal revoke` the old key)")
    if restored.config is not None:
        keys = ", ".join(restored.config_keys) or "none"
        if restored.config == "config.yaml":
            click.echo(f"its config.yaml is in use (keys that differ from the defaults: "
                       f"{keys})")
        else:
            click.echo(f"its config.yaml was put aside as {restored.config} (keys that "
                       f"differ from the defaults: {keys}); read it, then rename it to "
                       "config.yaml to use it, or restore again with --with-config")
