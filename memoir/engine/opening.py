"""Opening a home's journal: refusing what is no home, and refusing a journal that
ends before what the home has seen (:class:`~memoir.errors.JournalLost`), before any
state is folded."""

from __future__ import annotations

import os
from pathlib import Path

from memoir.clock import Clock, SystemClock
from memoir.config import Config, load_config
from memoir.engine.checkpoints import CheckpointStore
from memoir.engine.materializer import Materializer
from memoir.errors import ConfigError, JournalLost, NotFoundError, ValidationError
from memoir.journal import FileJournal, Journal
from memoir.journal.postgres import PostgresJournal
from memoir.layout import JOURNAL_FILE, no_home_message

__all__ = ["check_home", "home_journal", "open_journal", "seen_seq", "shared_journal"]


def check_home(home: Path, *, must_exist: bool) -> None:
    """Refuse a file given as a home, and (``must_exist``) a folder that is no home."""
    if home.exists() and not home.is_dir():
        raise ValidationError(f"{home} is a file, not a memoir home (a home is a folder)")
    if must_exist and not (home / JOURNAL_FILE).is_file() and not (home / ".memoir").is_dir():
        raise NotFoundError(no_home_message(home))



def seen_seq(checkpoints: CheckpointStore, materializer: Materializer) -> int:
    """The newest seq anything derived from the journal says the home reached."""
    seqs = checkpoints.seqs()
    return max(seqs[-1] if seqs else 0, materializer.seq)


def shared_journal(config: Config, clock: Clock, *, readonly: bool = False,
                   create: bool = False, upgrade: bool = False) -> PostgresJournal:
    """The PostgreSQL journal ``journal.url`` names (see :mod:`memoir.journal.postgres`),
    its password from ``journal.password_env`` when that is set."""
    url = config.journal.url
    assert url
    password = None
    if config.journal.password_env:
        password = os.environ.get(config.journal.password_env)
        if password is None:
            raise ConfigError(f"journal.password_env names ${config.journal.password_env}, "
                              "which is not set")
    return PostgresJournal(url, clock=clock, create=create, upgrade=upgrade, password=password,
                           readonly=readonly,
                           lock_timeout=config.journal.lock_timeout_seconds)


def home_journal(home: Path, *, upgrade: bool = False, scan: bool = True) -> Journal | None:
    """The journal of the home at ``home`` opened by itself, read-only (nothing folded;
    ``upgrade`` opens a database's to add missing tables): the database ``journal.url``
    names, else ``journal.jsonl``; None when the folder has neither."""
    config = load_config(home) if home.is_dir() else None
    if config is not None and config.journal.url:
        return shared_journal(config, SystemClock(), readonly=not upgrade, upgrade=upgrade)
    if (home / JOURNAL_FILE).is_file():
        return FileJournal(home / JOURNAL_FILE, readonly=True, scan=scan)
    return None


def open_journal(home: Path, config: Config, clock: Clock, journal: Journal | None, *,
                 readonly: bool, seen: int, accept_loss: bool) -> tuple[Journal, int, int]:
    """The home's journal (``journal`` if given, else its file), the seq the home has
    seen, and the seq the journal must reach: with durability ``always`` a journal never
    ends before what its checkpoints and files show (unless ``accept_loss``)."""
    if journal is None and config.journal.url:
        journal = shared_journal(config, clock, readonly=readonly)
    if readonly and journal is None and not (home / JOURNAL_FILE).is_file():
        if seen:
            raise JournalLost(home / JOURNAL_FILE, 0, seen)
        raise NotFoundError(no_home_message(home))
    durable = config.journal.durability == "always"
    # The seq this home is known to have reached, from what was derived from the
    # journal (checkpoints, projected files): a durable journal never ends before it.
    acknowledged = seen if durable and not accept_loss else 0
    if journal is None:
        path = home / JOURNAL_FILE
        if acknowledged and not path.exists():
            raise JournalLost(path, 0, acknowledged)
        # The journal is checked from the newest valid checkpoint on, not from its
        # first byte: opening a home with a long history stays fast, and
        # `memoir verify` (or any full replay) checks the whole chain.
        journal = FileJournal(
            path,
            durability=config.journal.durability,
            clock=clock,
            lock_timeout=config.journal.lock_timeout_seconds,
            scan=False,
            readonly=readonly,
        )
    return journal, seen, acknowledged
