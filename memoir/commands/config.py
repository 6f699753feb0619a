"""``memoir config show|check``: the configuration in effect, and every problem with it."""

from __future__ import annotations

from pathlib import Path

import click
import yaml

from memoir.commands.base import (
    Exit,
    UserError,
    echo_json,
    home_option,
    home_path,
    is_json,
    json_option,
)
from memoir.config import check_config
from memoir.journal import redact_url
from memoir.layout import default_home

__all__ = ["config_group"]


def _home(ctx: click.Context) -> Path:
    return Path(home_path(ctx) or default_home()).expanduser()


@click.group("config")
@home_option
def config_group() -> None:
    """The configuration (config.yaml in the home, and $MEMOIR_* overrides)."""


@config_group.command("check")
@json_option
@click.pass_context
def config_check(ctx: click.Context) -> None:
    """Check config.yaml: every problem at once (file and line, did-you-mean for unknown
    keys), and the keys of Hermes's config memoir accepts but does not use."""
    report = check_config(_home(ctx))
    if is_json():
        echo_json({"file": str(report.path), "exists": report.path.exists(),
                   "ok": report.config is not None, "problems": report.problems,
                   "ignored": report.ignored, "warnings": report.warnings})
    else:
        for key in report.ignored:
            click.echo(f"ignored: {key} (a Hermes setting memoir does not use)")
        for warning in report.warnings:
            click.echo(f"warning: {warning}")
        if report.config is not None:
            where = report.path if report.path.exists() else f"{report.path} (absent: defaults)"
            click.echo(f"ok: {where}")
    if report.config is None:
        raise UserError(f"{report.path} has {len(report.problems)} problem(s)",
                        exit=Exit.ERROR, details={"problem": report.problems})


@config_group.command("show")
@json_option
@click.pass_context
def config_show(ctx: click.Context) -> None:
    """The configuration in effect: every key with its value (defaults included) and,
    for those set, where (config.yaml:LINE or $VARIABLE)."""
    report = check_config(_home(ctx))
    if report.config is None:
        raise UserError(f"{report.path} has {len(report.problems)} problem(s); "
                        "`memoir config check` lists them", exit=Exit.ERROR,
                        details={"problem": report.problems})
    values = report.config.model_dump(mode="json", exclude={"extra"})
    if values["journal"].get("url"):  # a password given in $MEMOIR_JOURNAL_URL stays unsaid
        values["journal"]["url"] = redact_url(values["journal"]["url"])
    if is_json():
        echo_json({"config": values, "sources": report.sources, "ignored": report.ignored})
        return
    for section, keys in values.items():
        click.echo(f"{section}:")
        for key, value in keys.items():
            shown = yaml.safe_dump(value, default_flow_style=True).strip()
            shown = shown.removesuffix("\n...").removesuffix(" ...")
            source = report.sources.get(f"{section}.{key}")
            click.echo(f"  {key}: {shown}" + (f"  # {source}" if source else ""))
