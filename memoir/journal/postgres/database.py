"""The PostgreSQL side of the shared journal: memoir's tables, the URL rules (a
password is never shown), one line for a connection that failed, and the connections
of one process (reads, the writer, LISTEN), each opened again after it was lost.

:mod:`memoir.journal.postgres` is the journal built on it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from memoir.errors import ConfigError, JournalError, JournalUnavailable
from memoir.install import extra_hint
from memoir.journal.urls import is_database as is_postgres_url
from memoir.journal.urls import redact_url
from memoir.logs import get_logger
from memoir.worker import Worker

__all__ = ["CHANNEL", "CHUNK", "FRESH", "LOCK_ROW", "SCHEMA_VERSION", "TABLES", "Database",
           "connect_error", "is_postgres_url", "redact_url"]

log = get_logger("memoir.journal")

#: The version of the tables below; a database at a newer one is refused, an older one
#: is brought up to it by ``memoir journal upgrade``.  Version 2 added the seals and
#: the writers' sync rows; version 3 the writers' lock row and seals kept side by side
#: (a row inserted ahead by someone else no longer takes a seq's place).
SCHEMA_VERSION = 3
#: The row of ``memoir_sync`` writers lock (``SELECT … FOR UPDATE``) while they append:
#: only a role granted UPDATE on that table can take it (any role that may connect
#: could hold a database-wide advisory lock and stop every writer).
LOCK_ROW = 0
#: The channel a commit notifies with its last seq (LISTEN/NOTIFY).
CHANNEL = "memoir_journal"
CHUNK = 5_000
#: At most this many records come with the lock (the rest are read as usual).
FRESH = 1_000
#: The tables of the current schema.
TABLES = frozenset({"memoir_meta", "memoir_records", "memoir_transcripts", "memoir_seals",
                    "memoir_sync"})

_SCHEMA = """
CREATE TABLE IF NOT EXISTS memoir_meta (
    key text PRIMARY KEY,
    value text NOT NULL
);
CREATE TABLE IF NOT EXISTS memoir_records (
    seq bigint PRIMARY KEY CHECK (seq > 0),
    id text NOT NULL UNIQUE,
    type text NOT NULL,
    more integer NOT NULL CHECK (more >= 0),
    hash text NOT NULL,
    line bytea NOT NULL
);
CREATE TABLE IF NOT EXISTS memoir_transcripts (
    ref text PRIMARY KEY,
    body bytea NOT NULL
);
CREATE TABLE IF NOT EXISTS memoir_seals (
    seq bigint NOT NULL CHECK (seq > 0),
    line bytea NOT NULL
);
-- Version 3: several seals may name one seq (only those made with the key count), so a
-- row inserted ahead by anyone never takes the place of a real one.
ALTER TABLE memoir_seals DROP CONSTRAINT IF EXISTS memoir_seals_pkey;
CREATE INDEX IF NOT EXISTS memoir_seals_by_seq ON memoir_seals (seq);
CREATE TABLE IF NOT EXISTS memoir_sync (
    pid integer PRIMARY KEY,
    n bigint NOT NULL
);
-- The writers' lock: row 0, locked FOR UPDATE while a writer appends.
INSERT INTO memoir_sync VALUES (0, 0) ON CONFLICT (pid) DO NOTHING;
CREATE OR REPLACE FUNCTION memoir_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
-- One change of a record is let through: `memoir forget` replacing a payload by its
-- tombstone (the line keeps its length; seq, id, type, more and hash stay), in a
-- transaction that says so, by a role that holds UPDATE (line) (the writer role does
-- not: docs/postgres.md).  memoir verify checks the tombstone against the chain.
CREATE OR REPLACE FUNCTION memoir_records_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND current_setting('memoir.forget', true) = 'on'
       AND NEW.seq = OLD.seq AND NEW.id = OLD.id AND NEW.type = OLD.type
       AND NEW.more = OLD.more AND NEW.hash = OLD.hash
       AND length(NEW.line) = length(OLD.line) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
DROP TRIGGER IF EXISTS memoir_records_no_change ON memoir_records;
CREATE TRIGGER memoir_records_no_change BEFORE UPDATE OR DELETE ON memoir_records
    FOR EACH ROW EXECUTE FUNCTION memoir_records_guard();
DROP TRIGGER IF EXISTS memoir_records_no_truncate ON memoir_records;
CREATE TRIGGER memoir_records_no_truncate BEFORE TRUNCATE ON memoir_records
    FOR EACH STATEMENT EXECUTE FUNCTION memoir_append_only();
DROP TRIGGER IF EXISTS memoir_seals_no_change ON memoir_seals;
CREATE TRIGGER memoir_seals_no_change BEFORE UPDATE OR DELETE ON memoir_seals
    FOR EACH ROW EXECUTE FUNCTION memoir_append_only();
DROP TRIGGER IF EXISTS memoir_seals_no_truncate ON memoir_seals;
CREATE TRIGGER memoir_seals_no_truncate BEFORE TRUNCATE ON memoir_seals
    FOR EACH STATEMENT EXECUTE FUNCTION memoir_append_only();
"""


def _driver() -> Any:
    try:
        import psycopg
    except ImportError:
        raise ConfigError(extra_hint("postgres", "a PostgreSQL journal")) from None
    return psycopg


#: How long a connection is tried again while the server cannot take one (it is
#: starting up, shutting down or restarting, or refuses while it does), in seconds;
#: ``MEMOIR_PG_RETRY`` sets another (0: fail at once).  Past it, the one-line error.
RETRY_WINDOW = 30.0
#: What libpq says of a server in those states (SQLSTATE 57P03 has no code on a
#: connection that was never made, so the words are what there is).
_TRANSIENT = ("the database system is starting up", "the database system is shutting down",
              "the database system is in recovery mode", "the database system is not yet "
              "accepting connections", "Connection refused", "server closed the connection")


def retry_window() -> float:
    """:data:`RETRY_WINDOW`, or ``MEMOIR_PG_RETRY`` when it is a number of seconds."""
    raw = os.environ.get("MEMOIR_PG_RETRY", "")
    try:
        return max(0.0, float(raw)) if raw else RETRY_WINDOW
    except ValueError:
        raise ConfigError(f"MEMOIR_PG_RETRY={raw!r}: a number of seconds") from None


def transient(exc: Exception) -> bool:
    """Whether a failed connection may succeed by itself soon (see :data:`_TRANSIENT`)."""
    return getattr(exc, "sqlstate", None) == "57P03" or any(
        words in str(exc) for words in _TRANSIENT)


def connect_error(url: str, exc: Exception) -> JournalUnavailable:
    """One line for a connection that failed: the server down, the database missing,
    a role without a privilege."""
    text = " ".join(str(exc).split())
    shown = redact_url(url)
    if "does not exist" in text and "database" in text:
        why = f"the database does not exist ({text}); create it (createdb) or fix the URL"
    elif "password authentication failed" in text or "no password supplied" in text:
        why = ("the server refused the login; give the password through PGPASSWORD, "
               "~/.pgpass or journal.password_env (never in the URL kept in config.yaml)")
    elif "permission denied" in text:
        why = f"the role lacks a privilege ({text}); see docs/postgres.md for the GRANTs"
    elif "Connection refused" in text or "could not connect" in text or "timeout" in text:
        why = f"the server is not reachable ({text}); is PostgreSQL running?"
    else:
        why = text
    return JournalUnavailable(f"PostgreSQL journal {shown}: {why}")


class Database:
    """The connections of one process to the database at ``url``: one for reads, one
    for the writer (it holds the writers' lock row), one that LISTENs; each opened again,
    with a notice, after it was lost.  What the database alone answers (shared bodies,
    notices, the schema, the role's rights) is here too."""

    #: How long a writer waits for the journal's lock (set by the journal).
    lock_timeout: float = 60.0

    def __init__(self, url: str, *, password: str | None) -> None:
        if not is_postgres_url(url):
            raise ConfigError(f"not a PostgreSQL URL: {redact_url(url)!r} (postgresql://"
                              "USER@HOST:PORT/DB)")
        self.url = url
        self._password = password
        self._psycopg = _driver()
        self._mutex = threading.RLock()  # one thread at a time on a connection
        #: The fields the notifier and the writer share; never held over a round trip.
        self._state_mutex = threading.Lock()
        self._write_mutex = threading.RLock()  # this process's writers, one at a time
        self._ever: set[str] = set()  # the kinds of connection opened so far
        self._reader: Any = None
        self._writer: Any = None
        self._listener: Any = None
        #: Whether a notice could not be sent (said once).
        self._notice_failed = False
        #: The last seq committed and not yet told (0: none), and who tells it.
        self._notice_seq = 0
        self._notices = Worker("memoir-notify", self._send_notice, idle=1.0)
        #: The schema version this object found and brought up to date (None: none).
        self.upgraded_from: int | None = None

    # -- connections ---------------------------------------------------------------------

    def _connect(self, *, autocommit: bool = True) -> Any:
        kwargs: dict[str, Any] = {"autocommit": autocommit, "connect_timeout": 10,
                                  "application_name": "memoir"}
        if self._password is not None:
            kwargs["password"] = self._password
        deadline: float | None = None
        pause = 0.05
        while True:
            try:
                return self._psycopg.connect(self.url, **kwargs)
            except self._psycopg.Error as exc:
                if not transient(exc):
                    raise connect_error(self.url, exc) from None
                now = time.monotonic()
                if deadline is None:
                    window = retry_window()
                    deadline = now + window
                    if window > 0:
                        log.warning("journal.server_unavailable", journal=redact_url(self.url),
                                    why=" ".join(str(exc).split())[:200],
                                    retrying_for=f"{window:g} s")
                if now >= deadline:
                    raise connect_error(self.url, exc) from None
                time.sleep(min(pause, deadline - now))
                pause = min(pause * 2, 1.0)

    def _conn(self) -> Any:
        """The reading connection (autocommit), opened again after it was lost."""
        if self._reader is None or self._reader.closed or self._reader.broken:
            self._reader = self._connect()
            self._opened("reader")
        return self._reader

    def _opened(self, which: str) -> None:
        """Note a connection opened; the second and later of a kind were lost before:
        say so (a person watching stderr sees the writer come back by itself)."""
        if which in self._ever:
            log.warning("journal.reconnected", journal=redact_url(self.url),
                        connection=which)
        self._ever.add(which)

    def _query(self, sql: str, params: Sequence[Any] = (), *,
               rows: bool = True) -> list[tuple[Any, ...]]:
        """Run a statement on the reading connection (autocommit), once more on a fresh
        connection if the first was lost; its rows (``rows=False``: none to fetch)."""
        with self._mutex:
            for attempt in (1, 2):
                try:
                    cursor = self._conn().execute(sql, params)
                    return list(cursor.fetchall()) if rows else []
                except self._psycopg.OperationalError as exc:
                    self._reader = None
                    if attempt == 2:
                        raise connect_error(self.url, exc) from None
        return []  # unreachable

    def _check_schema(self, create: bool, upgrade: bool = False) -> None:
        conn = self._conn()
        tables = {row[0] for row in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = "
            "current_schema()").fetchall()}
        if not tables & TABLES:
            if not create:
                raise JournalError(f"PostgreSQL journal {redact_url(self.url)}: the database "
                                   "holds no memoir journal; `memoir init --journal URL` "
                                   "creates one")
            if tables:
                raise JournalError(f"PostgreSQL journal {redact_url(self.url)}: the database "
                                   f"holds other tables ({', '.join(sorted(tables)[:5])}); "
                                   "give memoir a database of its own")
            self._create(conn, fresh=True)
            return
        if "memoir_records" not in tables or "memoir_meta" not in tables:
            raise JournalError(f"PostgreSQL journal {redact_url(self.url)}: memoir's tables "
                               f"are incomplete (missing "
                               f"{', '.join(sorted({'memoir_meta', 'memoir_records'} - tables))}"
                               "); it is not a journal memoir can read")
        row = conn.execute("SELECT value FROM memoir_meta WHERE key = "
                           "'schema_version'").fetchone()
        version = int(row[0]) if row else 0
        if version > SCHEMA_VERSION:
            raise JournalError(f"PostgreSQL journal {redact_url(self.url)}: schema version "
                               f"{version} is newer than this memoir's ({SCHEMA_VERSION}); "
                               "upgrade memoir")
        if version < SCHEMA_VERSION or not tables >= TABLES:
            if not upgrade:
                missing = sorted(TABLES - tables)
                what = f"missing {', '.join(missing)}" if missing else \
                    f"schema version {version}, this memoir's is {SCHEMA_VERSION}"
                raise JournalError(f"PostgreSQL journal {redact_url(self.url)}: memoir's "
                                   f"tables are older than this memoir ({what}); `memoir "
                                   "journal upgrade` brings them up to date")
            self._create(conn, fresh=False)
            self.upgraded_from = version
        elif upgrade and conn.execute(
                "SELECT pg_has_role(current_user, relowner, 'USAGE') FROM pg_class WHERE oid "
                "= 'memoir_records'::regclass").fetchone()[0]:
            # Asked by the tables' owner: the guards (triggers, their functions) are made
            # again, as `memoir journal check` advises when one was changed or dropped.
            self._create(conn, fresh=False)

    def _create(self, conn: Any, *, fresh: bool) -> None:
        """Create (``fresh``) or bring up to date memoir's tables, in one transaction:
        every statement of the schema is "if not exists" or replaces."""
        try:
            with conn.transaction():
                conn.execute(_SCHEMA)
                conn.execute("INSERT INTO memoir_meta VALUES ('schema_version', %s) "
                             "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                             (str(SCHEMA_VERSION),))
        except self._psycopg.Error as exc:
            raise connect_error(self.url, exc) from None
        if not fresh:
            log.info("journal.upgraded", journal=redact_url(self.url), version=SCHEMA_VERSION)

    def head(self) -> int:
        rows = self._query("SELECT coalesce(max(seq), 0) FROM memoir_records")
        return int(rows[0][0])

    # -- transcript bodies, shared by every home of the journal --------------------------

    def put_bodies(self, pairs: Sequence[tuple[str, bytes]]) -> None:
        """Keep message bodies by their transcript reference (a reference names its
        bytes' hash, so the same reference from two machines is the same body)."""
        if not pairs:
            return
        values = ", ".join(["(%s, %s)"] * len(pairs))
        self._query(f"INSERT INTO memoir_transcripts VALUES {values} ON CONFLICT (ref) DO "
                    "NOTHING", [value for pair in pairs for value in pair], rows=False)

    def body(self, ref: str) -> bytes | None:
        """The body kept for ``ref`` (None: none)."""
        rows = self._query("SELECT body FROM memoir_transcripts WHERE ref = %s", (ref,))
        return bytes(rows[0][0]) if rows else None

    def privileges(self) -> dict[str, bool]:
        """What the connected role may do to memoir's tables ("memoir_records:UPDATE":
        True, ...), and whether it is a superuser ("superuser")."""
        wanted = [(table, right) for table in ("memoir_records", "memoir_seals")
                  for right in ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE")]
        wanted += [("memoir_sync", right) for right in ("INSERT", "UPDATE")]
        wanted += [("memoir_transcripts", right) for right in ("SELECT", "INSERT")]
        checks = ", ".join(f"has_table_privilege('{t}', '{r}')" for t, r in wanted)
        row = self._query(f"SELECT {checks}, (SELECT rolsuper FROM pg_roles WHERE "
                          "rolname = current_user)")[0]
        found = {f"{t}:{r}": bool(v) for (t, r), v in zip(wanted, row, strict=False)}
        found["superuser"] = bool(row[-1])
        return found

    def schema_version(self) -> int:
        rows = self._query("SELECT value FROM memoir_meta WHERE key = 'schema_version'")
        return int(rows[0][0]) if rows else 0

    def wait_for_append(self, timeout: float) -> bool:
        """Wait until a writer (of any machine) commits, at most ``timeout`` seconds:
        LISTEN/NOTIFY on a connection of its own; True when told of a commit.  A lost
        connection is opened again next time (the caller polls meanwhile)."""
        try:
            if self._listener is None or self._listener.closed or self._listener.broken:
                self._listener = self._connect()
                self._listener.execute(f"LISTEN {CHANNEL}")
            told = any(True for _note in self._listener.notifies(timeout=timeout,
                                                                  stop_after=1))
            if told:
                # Take every notice already queued with it: a burst (or a flood sent by
                # any role that may connect: notices are not trusted, only a read is)
                # costs one read, not one each.
                for _more in self._listener.notifies(timeout=0.001, stop_after=10_000):
                    pass
                return True
        except (self._psycopg.Error, JournalError):
            self._listener = None
        return False

    def _holders(self) -> str:
        """Who holds the writers' lock now (for the error of a writer that gave up)."""
        try:
            rows = self._query(
                "SELECT a.usename, a.application_name, a.pid, a.client_addr::text, "
                "extract(epoch FROM now() - a.xact_start)::int FROM pg_locks l JOIN "
                "pg_stat_activity a ON a.pid = l.pid WHERE l.relation = "
                "'memoir_sync'::regclass AND l.mode = 'RowShareLock' AND l.granted AND "
                "a.pid <> pg_backend_pid()")
        except JournalError:
            return ""
        held = [f"role {r[0]} ({r[1] or 'no application name'}, pid {r[2]}"
                f"{', from ' + r[3] if r[3] else ''}, in a transaction for {r[4]} s)"
                for r in rows[:3]]
        return f" ({'; '.join(held)})" if held else ""

    def _notify(self, seq: int) -> None:
        """Tell listeners of a commit up to ``seq``: by a thread of its own, outside the
        append's transaction and off the writer's path (commits made while one notice
        is sent share the next).  A notice that cannot be sent (a full notice queue,
        which any role that may connect can cause) is logged once and never fails an
        append: listeners find the records by polling.  :meth:`close` sends what is
        owed first."""
        with self._state_mutex:
            self._notice_seq = max(self._notice_seq, seq)
        self._notices.request()

    def _send_notice(self) -> None:
        with self._state_mutex:
            seq, self._notice_seq = self._notice_seq, 0
        if not seq:
            return
        try:
            self._query("SELECT pg_notify(%s, %s)", (CHANNEL, str(seq)))
        except (self._psycopg.Error, JournalError) as exc:
            if not self._notice_failed:
                log.warning("journal.notify_failed", journal=redact_url(self.url),
                            why=" ".join(str(exc).split())[:200])
            self._notice_failed = True

    def _writer_conn(self) -> Any:
        """The writer's connection, opened again after it was lost.  It is in autocommit
        mode: the writer says BEGIN and COMMIT itself, pipelined with the statements beside
        them, so no round trip is spent on either."""
        conn = self._writer
        if conn is None or conn.closed or conn.broken:
            conn = self._writer = self._connect(autocommit=True)
            self._opened("writer")
            conn.execute(f"SET lock_timeout = {int(self.lock_timeout * 1000)}")
        return conn

    def _ids(self, ids: Sequence[str]) -> dict[str, int]:
        if not ids:
            return {}
        rows = self._query("SELECT id, seq FROM memoir_records WHERE id = ANY(%s)",
                           (list(ids),))
        return {str(i): int(s) for i, s in rows}

    def _rows(self, after: int, until: int | None) -> Iterator[tuple[int, bytes]]:
        """(seq, line) for ``after < seq <= until``, in chunks."""
        last = max(after, 0)
        while True:
            bound = "" if until is None else " AND seq <= %s"
            params: tuple[Any, ...] = (last,) if until is None else (last, until)
            rows = self._query("SELECT seq, line FROM memoir_records WHERE seq > %s"
                               f"{bound} ORDER BY seq LIMIT {CHUNK}", params)
            for seq, line in rows:
                yield int(seq), bytes(line)
            if len(rows) < CHUNK:
                return
            last = int(rows[-1][0])

    def close(self) -> None:
        self._notices.wait(timeout=5.0)  # the notices owed go out before the connections
        self._notices.stop(timeout=5.0)
        self._notices = Worker("memoir-notify", self._send_notice, idle=1.0)  # if reused
        with self._mutex, self._write_mutex:
            for conn in (self._reader, self._writer, self._listener):
                if conn is not None and not conn.closed:
                    conn.close()
            self._reader = self._writer = self._listener = None
            self._ever.clear()
