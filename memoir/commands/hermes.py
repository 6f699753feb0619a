"""``memoir import hermes``, ``memoir export hermes`` and ``memoir hermes …``: memoir
and Hermes Agent homes (see :mod:`memoir.integrations.hermes_home` and
:mod:`memoir.integrations.hermes_provider`)."""

from __future__ import annotations

from pathlib import Path

import click

from memoir.commands.base import echo_json, home_option, is_json, open_home, write_json


@click.group("import")
def import_group() -> None:
    """Bring another program's memory into this home."""


@import_group.command("hermes")
@home_option
@click.argument("source", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.pass_context
def import_hermes_command(ctx: click.Context, source: Path) -> None:
    """Import the Hermes home SOURCE in one run: MEMORY.md and USER.md entries, skills
    with their files, provenance, pins, usage counts, dates and states, archived skills,
    .bundled_manifest, .hub/lock.json, .curator_suppressed and .curator_state. What the
    journal already holds is left alone: importing twice changes nothing."""
    from memoir.integrations.hermes_home import import_hermes

    handle = open_home(ctx)
    report = import_hermes(handle, source)
    handle.flush()
    if is_json():
        echo_json({**write_json(report.run, report.events), **report.as_json()})
        return
    for path, why in sorted(report.skipped.items()):
        click.echo(f"skipped {path}: {why}", err=True)
    if not report.events:
        click.echo(f"nothing to import: {source} holds nothing the journal lacks")
        return
    memory = ", ".join(f"{n} {t}" for t, n in report.memory.items()) or "none"
    click.echo(f"imported {source} as run {report.run} (seq {report.events[0].seq}-"
               f"{report.events[-1].seq}): memory entries {memory}; {len(report.skills)} "
               f"skill(s), {len(report.archived)} archived, usage of {len(report.usage)}"
               f"{', sources' if report.sources else ''}"
               f"{', curator state' if report.curator else ''}; `memoir revert "
               f"{report.run}` undoes it")


@click.group("export")
def export_group() -> None:
    """Write this home in another program's format."""


@export_group.command("hermes")
@home_option
@click.argument("dest", type=click.Path(path_type=Path))
@click.pass_context
def export_hermes_command(ctx: click.Context, dest: Path) -> None:
    """Write this home as a Hermes home into DEST (a new or empty folder): memories/,
    the skills tree with its flat .archive/, .usage.json, .curator_state, the curator
    reports and the imported sources files."""
    from memoir.integrations.hermes_home import export_hermes

    report = export_hermes(open_home(ctx, readonly=True), dest)
    if is_json():
        echo_json(report.as_json())
        return
    click.echo(f"exported {len(report.files)} file(s) as of seq {report.head} to {dest}; "
               f"HERMES_HOME={dest} hermes uses it")
