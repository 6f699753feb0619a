"""PostgreSQL for the tests: a database of their own, with a random name, dropped at the
end; a schema of its own for each journal made in it (cheap, and as empty as a new
database).  The server is ``$MEMOIR_TEST_POSTGRES`` (default: the machine's, at
127.0.0.1:5432, trust auth).  It must be reachable: these tests fail rather than skip,
so CI cannot pass without them."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from urllib.parse import quote, urlsplit, urlunsplit

import pytest

SERVER = os.environ.get("MEMOIR_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")


def _with_db(url: str, db: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))


def in_schema(url: str, schema: str) -> str:
    """``url`` whose connections work in ``schema`` (created if missing)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options={quote(f'-csearch_path={schema}')}"


@pytest.fixture(scope="module")
def pg_database() -> Iterator[str]:
    """The URL of a new database, dropped when the module's tests are done."""
    psycopg = pytest.importorskip("psycopg")
    name = f"memoir_test_{secrets.token_hex(6)}"
    try:
        admin = psycopg.connect(SERVER, autocommit=True, connect_timeout=10)
    except psycopg.OperationalError as exc:
        pytest.fail(f"PostgreSQL is not reachable at {SERVER} ({exc}); the PostgreSQL "
                    "journal's tests need it (set MEMOIR_TEST_POSTGRES)")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _with_db(SERVER, name)
    finally:
        with psycopg.connect(SERVER, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def pg_url(pg_database: str) -> str:
    """A fresh, empty schema of the module's database, as a URL."""
    return in_schema(pg_database, f"j_{secrets.token_hex(5)}")
