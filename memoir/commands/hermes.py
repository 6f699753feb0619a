"""``memoir import hermes``, ``memoir export hermes`` and ``memoir hermes …``: memoir
and Hermes Agent homes (see :mod:`memoir.integrations.hermes_home` and
:mod:`memoir.integrations.hermes_provider`)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from memoir.commands.base import (
    Exit,
    UserError,
    echo_json,
    home_option,
    is_json,
    json_option,
    open_home,
    write_json,
)


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


@click.group("hermes")
def hermes_group() -> None:
    """memoir as Hermes Agent's memory provider."""


def _hermes_python(given: str | None) -> str | None:
    """Hermes's interpreter: --hermes-python, else the one the `hermes` command runs
    with (its #! line); None when there is no `hermes` on PATH to ask."""
    import shutil

    if given:
        # A relative path is taken from here, as the shell would.
        return str(Path(given).absolute()) if os.sep in given else given
    found = shutil.which("hermes")
    if found:
        try:
            with open(found, "rb") as script:
                first = script.readline(4096).decode("utf-8", "replace").strip()
        except OSError:
            first = ""
        if first.startswith("#!") and "python" in first:
            return first[2:].strip().split()[0]
    return None


@hermes_group.command("install")
@json_option
@click.option("--hermes-home", type=click.Path(file_okay=False, path_type=Path),
              default=None, envvar="HERMES_HOME", show_envvar=True,
              help="The Hermes home (default: $HERMES_HOME, else ~/.hermes).")
@click.option("--memoir-home", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="The memoir home it writes to (default: HERMES_HOME/memoir).")
@click.option("--hermes-python", default=None, metavar="PATH",
              help="The Python Hermes runs with (default: the `hermes` command's; "
                   "required when `hermes` is not on PATH).")
@click.option("--no-check", is_flag=True,
              help="Install without checking that Hermes's Python imports memoir.")
@click.option("--enable", is_flag=True,
              help="Also set memory.provider: memoir in Hermes's config.yaml.")
def hermes_install(hermes_home: Path | None, memoir_home: Path | None,
                   hermes_python: str | None, no_check: bool, enable: bool) -> None:
    """Install memoir as a memory provider of the Hermes home: a plugin in
    HERMES_HOME/plugins/memoir/, and a memoir home (HERMES_HOME/memoir unless
    --memoir-home) that mirrors Hermes's memory. First checks that Hermes's Python
    imports memoir and Hermes's memory-provider modules, and says how to fix it when it
    cannot. --enable then sets `memory.provider: memoir` in Hermes's config.yaml."""
    from memoir.install import pip_line
    from memoir.integrations.hermes_install import check_python, enable_provider, install

    home = (hermes_home or Path("~/.hermes")).expanduser().absolute()
    if not home.is_dir():
        raise UserError(f"no Hermes home at {home} (give --hermes-home)", exit=Exit.NOT_FOUND)
    python = _hermes_python(hermes_python)
    said = "not checked (--no-check)"
    if python is None and not no_check:
        raise UserError("no `hermes` command on PATH, so memoir cannot tell which Python "
                        "Hermes runs with: give --hermes-python PATH (the python of "
                        "Hermes's environment), or --no-check to install without checking",
                        exit=Exit.USAGE)
    if python is not None and not no_check:
        problem, said = check_python(python)
        if problem is not None:
            raise UserError(f"Hermes's Python ({python}): {problem}", exit=Exit.REFUSED)
    import memoir

    report = install(home, (memoir_home or home / "memoir").expanduser().absolute(),
                     version=memoir.__version__,
                     install_line=pip_line(python or "python3"))
    if enable and not report["active"]:
        enable_provider(home)
        report["active"] = True
        report["enabled"] = True
    report["python"] = python
    report["import_check"] = said
    if is_json():
        echo_json(report)
        return
    click.echo(f"installed the memoir memory provider in {report['plugin']}")
    click.echo(f"memoir home: {report['memoir_home']} (mirrors {home})")
    click.echo(f"Hermes's Python {python or '(unknown)'}: {said}")
    if report.get("enabled"):
        click.echo(f"set memory.provider: memoir in {home / 'config.yaml'}")
    elif report["active"]:
        click.echo("Hermes's config.yaml already says memory.provider: memoir")
    else:
        click.echo(f"now set, in {home / 'config.yaml'} (or run again with --enable):\n"
                   "  memory:\n    provider: memoir")


@hermes_group.command("push")
@home_option
@click.pass_context
def hermes_push(ctx: click.Context) -> None:
    """Write the journal's memory into the mirrored Hermes home's MEMORY.md and USER.md
    (under Hermes's locks, with its drift check): after a revert whose write was
    refused because Hermes's file needed fixing first."""
    from memoir.integrations.hermes_mirror import push

    handle = open_home(ctx)
    mirrored = handle.config.hermes.home
    if not mirrored:
        raise UserError(f"{handle.home} mirrors no Hermes home (hermes.home is not set; "
                        "`memoir hermes install` sets it)", exit=Exit.NOT_FOUND)
    done = push(handle, Path(mirrored).expanduser())
    written = done.written if done else []
    refused = done.refused if done else {}
    if is_json():
        echo_json({"hermes_home": mirrored, "written": written, "refused": refused})
    else:
        for target, backup in refused.items():
            click.echo(f"left Hermes's {target} file alone: it fails Hermes's drift check "
                       f"(copied to {backup})", err=True)
        click.echo(f"wrote {', '.join(written)}" if written else
                   "Hermes's memory files already hold what the journal says")
    if refused:
        raise UserError("some of Hermes's files need fixing first", exit=Exit.REFUSED)
