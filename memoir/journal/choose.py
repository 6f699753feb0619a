"""A journal chosen by where it is: the one place that maps a location to a backend.

``postgresql://…`` (or ``postgres://…``) is a database (:mod:`memoir.journal.postgres`,
loaded only then), ``memory:`` a new in-memory journal, and anything else — a path, or
``file://…`` — a journal file.  Options a backend has no use for are ignored by it, so a
caller passes what it knows (a home's durability, lock timeout, whether it may write)
without asking which backend it will get.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

from memoir.clock import Clock
from memoir.errors import ConfigError
from memoir.journal.file import FileJournal
from memoir.journal.interface import Durability, Journal
from memoir.journal.memory import InMemoryJournal
from memoir.journal.urls import is_database

__all__ = ["open_journal"]


def open_journal(location: str | os.PathLike[str], *, clock: Clock | None = None,
                 readonly: bool = False, durability: Durability = "always",
                 lock_timeout: float = 60.0, scan: bool = True, recover: bool = True,
                 create: bool = False, upgrade: bool = False,
                 password: str | None = None) -> Journal:
    """The journal at ``location`` (see the module docstring).

    ``readonly``: nothing is appended, created or cut.  A file: ``durability``, ``scan``
    and ``recover`` as :class:`~memoir.journal.file.FileJournal` takes them.  A database:
    ``create`` makes memoir's tables in an empty one, ``upgrade`` adds those an older
    memoir did not make, ``password`` is given to the driver apart from the URL.
    """
    text = os.fspath(location)
    if is_database(location):
        from memoir.journal.postgres import PostgresJournal

        return PostgresJournal(text, clock=clock, create=create, upgrade=upgrade,
                               password=password, readonly=readonly,
                               lock_timeout=lock_timeout)
    if text == "memory:":
        return InMemoryJournal(clock=clock)
    scheme = urlsplit(text).scheme if isinstance(location, str) else ""
    if scheme == "file":
        text = unquote(urlsplit(text).path)
    elif len(scheme) > 1:  # not a Windows drive letter
        raise ConfigError(f"{text[:200]!r}: no journal backend for {scheme}:// (a path, "
                          "file://, postgresql:// or memory:)")
    return FileJournal(Path(text), durability=durability, clock=clock,
                       lock_timeout=lock_timeout, scan=scan, recover=recover,
                       readonly=readonly)
