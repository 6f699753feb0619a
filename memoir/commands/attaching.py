"""A home's journal in a PostgreSQL database: what ``memoir init --journal`` writes into
config.yaml before the home is opened."""

from __future__ import annotations

import json
from pathlib import Path

import click
import yaml

from memoir.clock import SystemClock
from memoir.commands.base import Exit, UserError
from memoir.config import Config, load_config
from memoir.layout import JOURNAL_FILE

__all__ = ["DEFAULT_CONFIG", "shared_config"]


def shared_config(home: Path, url: str, password_env: str | None) -> None:
    """Make the database at ``url`` ``home``'s journal (tables made if none, journal.url)."""
    from memoir.config import password_variable_problem
    from memoir.journal import is_database, redact_url
    from memoir.journal.home import attach, shared_journal
    from memoir.journal.urls import has_password

    if not is_database(url):
        raise click.BadParameter(f"{url!r} is not a PostgreSQL URL "
                                 "(postgresql://USER@HOST:PORT/DB)", param_hint="--journal")
    if has_password(url):
        raise click.BadParameter(
            f"{redact_url(url)}: a password never goes into config.yaml; give it through "
            "PGPASSWORD, ~/.pgpass or --password-env VAR", param_hint="--journal")
    if password_env and (problem := password_variable_problem(password_env)):
        raise click.BadParameter(problem, param_hint="--password-env")
    journal_file = home / JOURNAL_FILE
    if journal_file.is_file() and journal_file.stat().st_size:
        raise UserError(f"{home} already has a file journal: `memoir --home {home} journal "
                        f"copy {redact_url(url)}` copies it into the database, then set "
                        "journal.url", exit=Exit.REFUSED)
    config_file = home / "config.yaml"
    cfg = load_config(home) if home.is_dir() else Config()
    said = _journal_url_in(config_file)
    if said and said != url:
        raise UserError(f"{config_file} already names the journal {redact_url(said)}",
                        exit=Exit.REFUSED)
    cfg.journal.url, cfg.journal.password_env = url, password_env
    shared_journal(cfg, SystemClock(), create=True).close()
    home.mkdir(parents=True, exist_ok=True)
    if not config_file.exists():
        config_file.write_text(DEFAULT_CONFIG, encoding="utf-8")
    if said != url:
        text = config_file.read_text(encoding="utf-8")
        extra = f"  url: {json.dumps(url)}\n" + (
            f"  password_env: {json.dumps(password_env)}\n" if password_env else "")
        lines = text.splitlines(keepends=True)
        top = next((i for i, line in enumerate(lines) if line.rstrip() == "journal:"), None)
        if top is None:
            text = text.rstrip("\n") + "\njournal:\n" + extra
        else:
            lines.insert(top + 1, extra)
            text = "".join(lines)
        config_file.write_text(text, encoding="utf-8")
        if _journal_url_in(config_file) != url:
            raise UserError(f"{config_file}: could not add journal.url without changing its "
                            f"meaning; add `journal: {{url: {json.dumps(url)}}}` by hand",
                            exit=Exit.ERROR)
    attach(home, url)  # the person's say-so: this home connects to it from now on
    if journal_file.is_file():
        journal_file.unlink()  # an empty file journal: the database is the journal now


def _journal_url_in(config_file: Path) -> str | None:
    """``journal.url`` as config.yaml itself says it (not $MEMOIR_JOURNAL_URL)."""
    try:
        data = yaml.safe_load(config_file.read_text("utf-8")) if config_file.exists() else None
    except yaml.YAMLError:
        return None
    section = data.get("journal") if isinstance(data, dict) else None
    return str(section["url"]) if isinstance(section, dict) and section.get("url") else None


DEFAULT_CONFIG = (
    "# memoir configuration; keys follow Hermes's config.yaml where they mean the same.\n"
    "memory:\n  memory_char_limit: 2200\n  user_char_limit: 1375\n"
    "journal:\n  durability: always\n"
    "projections:\n  mode: background\n  coalesce_ms: 20\n")
