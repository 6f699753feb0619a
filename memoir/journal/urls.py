"""Journal locations as people see them: which name a database, and how one is shown
without its password."""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

__all__ = ["DATABASE_SCHEMES", "is_database", "redact_url"]

#: The URL schemes of a journal kept in a database.
DATABASE_SCHEMES = ("postgresql", "postgres")


def is_database(location: str | os.PathLike[str]) -> bool:
    """Whether ``location`` names a journal kept in a database (a URL of one of
    :data:`DATABASE_SCHEMES`)."""
    return isinstance(location, str) and urlsplit(location).scheme in DATABASE_SCHEMES


def redact_url(url: str) -> str:
    """``url`` without its password (``postgresql://ada:***@host/db``), for anything
    shown or written."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit((parts.scheme, f"{user}:***@{host}{port}", parts.path, parts.query,
                       parts.fragment))
