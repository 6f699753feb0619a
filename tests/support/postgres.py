"""PostgreSQL for the tests: a database of their own, with a random name, dropped at the
end; a schema of its own for each journal made in it (cheap, and as empty as a new
database).  The server is ``$MEMOIR_TEST_POSTGRES`` (default: the machine's, at
127.0.0.1:5432, trust auth).  It must be reachable: these tests fail rather than skip,
so CI cannot pass without them."""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
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


def _server_binaries() -> Path | None:
    """The folder of the installed server's ``initdb`` and ``pg_ctl``: on the PATH, else
    the newest of Debian's ``/usr/lib/postgresql/*/bin``."""
    found = shutil.which("pg_ctl")
    if found and Path(found).with_name("initdb").exists():
        return Path(found).parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"),
                      key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit()
                      else 0)
    return versions[-1].parent if versions else None


@dataclass
class Cluster:
    """A PostgreSQL server of a test's own (never the machine's shared one): a new
    cluster made by ``initdb`` in a temporary folder, on a free port, its socket in that
    folder; stopped and removed by :func:`private_cluster`."""

    url: str
    ctl: list[str]
    options: list[str]

    def _run(self, *args: str) -> None:
        subprocess.run([*self.ctl, *args], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        self._run(*self.options, "start")

    def stop(self) -> None:
        self._run("-m", "fast", "stop")

    def restart(self) -> None:
        self._run(*self.options, "-m", "fast", "restart")


def private_cluster() -> Iterator[Cluster]:
    """A :class:`Cluster`, started; for a fixture.  Skips where no server binaries are
    installed, except in CI (``CI`` set), where that fails."""
    bindir = _server_binaries()
    if bindir is None:
        if os.environ.get("CI"):
            pytest.fail("no PostgreSQL server binaries (initdb, pg_ctl) for a cluster of "
                        "the test's own")
        pytest.skip("no PostgreSQL server binaries to start a cluster of the test's own")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # Not under pytest's folder: as root, the server runs as postgres, which may not
    # enter it.
    where = Path(tempfile.mkdtemp(prefix="memoir-cluster-"))
    run_as: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root
        shutil.chown(where, "postgres")
        run_as = [shutil.which("runuser") or "runuser", "-u", "postgres", "--"]
    data = where / "data"
    subprocess.run([*run_as, str(bindir / "initdb"), "-D", str(data), "-A", "trust",
                    "-U", "postgres"], check=True, capture_output=True, timeout=120)
    cluster = Cluster(
        url=f"postgresql://postgres@127.0.0.1:{port}/postgres",
        ctl=[*run_as, str(bindir / "pg_ctl"), "-D", str(data), "-w"],
        options=["-o", f"-p {port} -k {where} -c listen_addresses=127.0.0.1",
                 "-l", str(where / "log")])
    cluster.start()
    try:
        yield cluster
    finally:
        subprocess.run([*cluster.ctl, "-m", "immediate", "stop"], capture_output=True,
                       timeout=120)
        shutil.rmtree(where, ignore_errors=True)
