"""Journal locations as people see them: which name a database, whether one carries a
password, and how one is shown without it.

A PostgreSQL URL may name several hosts (libpq's ``postgresql://u@h1:5432,h2:5433/db``
fail-over form) and give connection settings in its query; a password may sit in the
user part (``u:pw@``) or in the query (``?password=``, ``?sslpassword=``).  The netloc is
read here by hand, never with ``urlsplit(...).port``, which fails on a host list.
"""

from __future__ import annotations

import os
from urllib.parse import parse_qsl, quote, urlsplit

__all__ = ["DATABASE_SCHEMES", "has_password", "is_database", "redact_url"]

#: The URL schemes of a journal kept in a database.
DATABASE_SCHEMES = ("postgresql", "postgres")
#: Query settings that hold a secret (libpq's names).
_SECRETS = frozenset({"password", "sslpassword"})


def is_database(location: str | os.PathLike[str]) -> bool:
    """Whether ``location`` names a journal kept in a database (a URL of one of
    :data:`DATABASE_SCHEMES`)."""
    return isinstance(location, str) and urlsplit(location).scheme in DATABASE_SCHEMES


def _userinfo(netloc: str) -> tuple[str | None, str]:
    """(the user part or None, the host list) of a netloc."""
    if "@" not in netloc:
        return None, netloc
    user, _, hosts = netloc.rpartition("@")
    return user, hosts


def has_password(url: str) -> bool:
    """Whether ``url`` carries a password (in its user part or its query)."""
    parts = urlsplit(url)
    user, _hosts = _userinfo(parts.netloc)
    if user is not None and ":" in user:
        return True
    return any(key in _SECRETS for key, _value in parse_qsl(parts.query,
                                                             keep_blank_values=True))


def redact_url(url: str) -> str:
    """``url`` without its password (``postgresql://ada:***@host/db``, ``?password=***``),
    for anything shown or written."""
    if not has_password(url):
        return url
    parts = urlsplit(url)
    user, hosts = _userinfo(parts.netloc)
    netloc = parts.netloc
    if user is not None and ":" in user:
        netloc = f"{user.split(':', 1)[0]}:***@{hosts}"
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    query = "&".join(f"{quote(k, safe='')}={'***' if k in _SECRETS else quote(v, safe='/:,')}"
                     for k, v in pairs) if pairs else parts.query
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "") + \
        (f"#{parts.fragment}" if parts.fragment else "")
