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


def _hermes_python(given: str | None) -> str:
    """Hermes's interpreter: --hermes-python, else the one the `hermes` command runs
    with (its #! line), else this one."""
    import shutil
    import sys

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
    return sys.executable


def _check_import(python: str) -> tuple[bool, str]:
    """Whether ``python`` imports memoir, run from an empty folder (a memoir checkout,
    or a memoir home named ``memoir``, in the current folder would be found by this
    check and not by Hermes)."""
    import subprocess
    import tempfile

    code = ("import memoir, memoir.integrations.hermes_provider as p; "
            "print(memoir.__version__)")
    try:
        with tempfile.TemporaryDirectory(prefix="memoir-check-") as empty:
            done = subprocess.run([python, "-c", code], capture_output=True, text=True,
                                  timeout=120, check=False, cwd=empty)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    if done.returncode != 0:
        return False, (done.stderr.strip().splitlines() or ["(no output)"])[-1]
    return True, done.stdout.strip()


@hermes_group.command("install")
@json_option
@click.option("--hermes-home", type=click.Path(file_okay=False, path_type=Path),
              default=None, envvar="HERMES_HOME", show_envvar=True,
              help="The Hermes home (default: $HERMES_HOME, else ~/.hermes).")
@click.option("--memoir-home", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="The memoir home it writes to (default: HERMES_HOME/memoir).")
@click.option("--hermes-python", default=None, metavar="PATH",
              help="The Python Hermes runs with (default: the `hermes` command's).")
@click.option("--no-check", is_flag=True,
              help="Install even when Hermes's Python cannot import memoir (yet).")
def hermes_install(hermes_home: Path | None, memoir_home: Path | None,
                   hermes_python: str | None, no_check: bool) -> None:
    """Install memoir as a memory provider of the Hermes home: a plugin in
    HERMES_HOME/plugins/memoir/, and a memoir home (HERMES_HOME/memoir unless
    --memoir-home) that mirrors Hermes's memory. First checks that Hermes's Python
    can import memoir, and says how to fix it when it cannot. Then set
    `memory.provider: memoir` in Hermes's config.yaml."""
    from memoir.integrations.hermes_install import install

    home = (hermes_home or Path("~/.hermes")).expanduser().absolute()
    if not home.is_dir():
        raise UserError(f"no Hermes home at {home} (give --hermes-home)", exit=Exit.NOT_FOUND)
    python = _hermes_python(hermes_python)
    ok, said = _check_import(python)
    if not ok and not no_check:
        raise UserError(
            f"Hermes's Python ({python}) cannot import memoir: {said}. Install memoir into "
            f"it first (`{python} -m pip install memoir`, or `-e` with this checkout), "
            "give the right one with --hermes-python, or --no-check to install anyway",
            exit=Exit.REFUSED)
    import memoir

    report = install(home, (memoir_home or home / "memoir").expanduser().absolute(),
                     version=memoir.__version__)
    report["python"] = python
    report["import_check"] = said if ok else f"failed: {said}"
    if is_json():
        echo_json(report)
        return
    click.echo(f"installed the memoir memory provider in {report['plugin']}")
    click.echo(f"memoir home: {report['memoir_home']} (mirrors {home})")
    click.echo(f"Hermes's Python {python}: " + (f"imports memoir {said}" if ok else
                                                 f"cannot import memoir yet ({said})"))
    if report["active"]:
        click.echo("Hermes's config.yaml already says memory.provider: memoir")
    else:
        click.echo(f"now set, in {home / 'config.yaml'}:\n  memory:\n    provider: memoir")


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
