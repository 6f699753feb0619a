"""A home's journal opened by itself (nothing folded, no engine): what reading commands
such as ``memoir log`` need.  A home whose ``config.yaml`` names no database is read
without loading the configuration's schema (pydantic) at all; one that names a database
loads it, as the connection needs ``journal.password_env`` and the lock timeout."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from memoir.clock import Clock, SystemClock
from memoir.errors import ConfigError
from memoir.journal.choose import open_journal
from memoir.journal.file import FileJournal
from memoir.journal.interface import Journal
from memoir.journal.urls import redact_url
from memoir.layout import JOURNAL_FILE

if TYPE_CHECKING:
    from memoir.config import Config

__all__ = ["ATTACHED", "attach", "home_journal", "is_attached", "names_a_database",
           "shared_journal"]


#: The databases a home was attached to here (one digest a line: :func:`attach`).
ATTACHED = ".memoir/journal-attached"


def _digest(home: Path, url: str) -> str:
    """What binds ``url`` to this home on this machine: the URL, the home's real path and
    the machine's id (a folder copied elsewhere, or restored from a backup, has none)."""
    machine = ""
    for source in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            machine = Path(source).read_text(encoding="ascii").strip()
            break
        except (OSError, UnicodeDecodeError):
            continue
    if not machine:
        import socket

        machine = socket.gethostname()
    text = "\0".join((url, str(home.expanduser().resolve()), machine))
    return hashlib.blake2b(text.encode(), digest_size=16, person=b"memoir-attach").hexdigest()


def attach(home: Path, url: str) -> None:
    """Record the person's say-so that this home may connect to ``url`` (``memoir init
    --journal``, ``memoir journal attach``)."""
    from memoir.fs import safefs

    if not is_attached(home, url):
        safefs.append_file(home, ATTACHED, (_digest(home, url) + "\n").encode(), fsync=True)


def is_attached(home: Path, url: str) -> bool:
    """Whether this home was attached to ``url`` here."""
    from memoir.fs import safefs

    data = safefs.read(home, ATTACHED, limit=1 << 20) or b""
    return _digest(home, url) in data.decode("ascii", "replace").split()


def shared_journal(config: Config, clock: Clock, *, readonly: bool = False,
                   create: bool = False, upgrade: bool = False,
                   home: Path | None = None) -> Journal:
    """The shared journal ``journal.url`` names (see :func:`open_journal`), its password
    from ``journal.password_env`` when that is set.  ``home``: the home whose
    config.yaml names it, which must have been attached to it here (a URL from
    ``$MEMOIR_JOURNAL_URL`` is the person's own)."""
    url = config.journal.url
    assert url
    if home is not None and os.environ.get("MEMOIR_JOURNAL_URL") != url and \
            not is_attached(home, url):
        raise ConfigError(
            f"{home / 'config.yaml'} names the database journal {redact_url(url)}, which this "
            "home was never attached to here (a folder copied from elsewhere, a restored "
            "backup or a hand edit): memoir does not connect to a server a folder names "
            "without your say-so, as the connection would hand it your PGPASSWORD. If you "
            f"trust it: `memoir --home {home} journal attach`")
    password = None
    if config.journal.password_env:
        from memoir.config import password_variable_problem

        problem = password_variable_problem(config.journal.password_env)
        if problem:
            raise ConfigError(problem)
        password = os.environ.get(config.journal.password_env)
        if password is None:
            raise ConfigError(f"journal.password_env names ${config.journal.password_env}, "
                              "which is not set")
    return open_journal(url, clock=clock, create=create, upgrade=upgrade, password=password,
                        readonly=readonly, lock_timeout=config.journal.lock_timeout_seconds)


def names_a_database(home: Path) -> bool:
    """Whether the home's journal may be a database: ``$MEMOIR_JOURNAL_URL`` is set, or
    ``config.yaml`` has a ``journal.url`` (or cannot be read as YAML, so the full check
    says what is wrong with it)."""
    if os.environ.get("MEMOIR_JOURNAL_URL"):
        return True
    path = home / "config.yaml"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    except (OSError, UnicodeDecodeError):
        return True
    if "url" not in text:
        return False
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return True
    if not isinstance(data, dict):
        return data is not None  # not a mapping: the full check says what is wrong
    section = data.get("journal")
    if isinstance(section, dict):
        return section.get("url") is not None
    return section is not None  # a journal key that is no section: the same


def home_journal(home: Path, *, upgrade: bool = False, scan: bool = True) -> Journal | None:
    """The journal of the home at ``home`` opened by itself, read-only (nothing folded;
    ``upgrade`` opens a database's to add missing tables): the database ``journal.url``
    names, else ``journal.jsonl``; None when the folder has neither."""
    if home.is_dir() and names_a_database(home):
        from memoir.config import load_config

        config = load_config(home)
        if config.journal.url:
            return shared_journal(config, SystemClock(), readonly=not upgrade,
                                  upgrade=upgrade, home=home)
    if (home / JOURNAL_FILE).is_file():
        return FileJournal(home / JOURNAL_FILE, readonly=True, scan=scan)
    return None
