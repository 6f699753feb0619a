"""A journal kept in PostgreSQL, shared by every machine that points at the database.

Each record is a row holding the exact line the file journal would hold for it (so
records are byte-identical across backends and ``memoir journal copy`` moves them
unchanged), with its seq, id, type, ``more`` and hash beside it for the queries.
Writers on any machine are serialised by the database: a writer holds an advisory lock
in its transaction while it appends, and each append (or group of staged appends) is one
transaction — durable when PostgreSQL acknowledges the COMMIT.  Seqs are minted under
that lock, head + 1, so they stay gapless in commit order; the primary key refuses a
second record at a seq, the unique id refuses a second copy of a record.

Appends are only ever INSERTs: the schema's triggers refuse UPDATE, DELETE and
TRUNCATE on the records table, and docs/postgres.md gives the GRANTs for a writer role
that has INSERT and SELECT only.  Reads check the hash chain as the file journal does,
so a row altered behind memoir's back is reported with its seq.

The driver is psycopg 3 (the ``postgres`` extra).  A password is never taken from the
URL into anything memoir writes or prints (:func:`redact_url`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from typing import Any

import msgspec

from memoir.clock import Clock, SystemClock
from memoir.errors import (
    ConflictError,
    JournalCorrupted,
    JournalError,
    JournalUnavailable,
    ValidationError,
)
from memoir.events.codec import GENESIS, Decoder, hash_of_line, line_hash_ok
from memoir.events.types import Draft, Event
from memoir.journal.interface import (
    Expectation,
    Journal,
    JournalWriter,
    Position,
    Progress,
    VerifyReport,
    check_expectation,
    mint_records,
    retried_span,
)
from memoir.journal.pg_database import (
    CHANNEL,
    CHUNK,
    FRESH,
    LOCK_KEY,
    SCHEMA_VERSION,
    Database,
    connect_error,
    is_postgres_url,
    log,
    redact_url,
)

__all__ = ["SCHEMA_VERSION", "PostgresJournal", "is_postgres_url", "redact_url"]


class PostgresJournal(Database, Journal):
    """The journal in the PostgreSQL database at ``url`` (see the module docstring).

    ``create``: create memoir's tables in an empty database (``memoir init --journal``);
    otherwise they must be there.  ``password``: given to the driver apart from the URL
    (from ``journal.password_env``), so it never sits in the URL memoir keeps.
    """

    persistent = True

    def __init__(self, url: str, *, clock: Clock | None = None, create: bool = False,
                 upgrade: bool = False,
                 password: str | None = None, readonly: bool = False,
                 lock_timeout: float = 60.0) -> None:
        super().__init__(url, password=password)
        self.clock = clock or SystemClock()
        self.readonly = readonly
        self.lock_timeout = lock_timeout
        self._decoder = Decoder()
        self._staged: list[Event] = []
        self._lines: list[bytes] = []
        self._tx: tuple[int, bytes] | None = None  # the head, while the writer holds the lock
        #: The last record this object read to the end of the journal, or wrote: the
        #: lock function sends what came after it (see :meth:`_lock_tx`).
        self._known: tuple[int, bytes] | None = None
        #: The records after ``_known`` sent with the lock: (after, its hash, rows,
        #: whether they reach the head), until a read under the lock takes them.
        self._fresh: tuple[int, bytes, list[tuple[int, bytes]], bool] | None = None
        #: Whether the transaction under way commits without waiting for the disk
        #: (other writers were waiting for the lock when it was granted).
        self._deferred = False
        #: The first id of an append committed but not yet known to be on disk.
        self._unsynced: str | None = None
        #: Makes the seal line of an append (records first..last, the last's hash), when
        #: the home has a key: the seal is written in the append's own transaction.
        self.sealer: Callable[[int, int, str], bytes] | None = None
        with self._mutex:
            self._check_schema(create, upgrade)

    def __repr__(self) -> str:
        return f"PostgresJournal({redact_url(self.url)!r})"

    # -- reading -------------------------------------------------------------------------

    def head(self) -> int:
        rows = self._query("SELECT coalesce(max(seq), 0) FROM memoir_records")
        return int(rows[0][0])

    def head_hash(self) -> str:
        rows = self._query("SELECT hash FROM memoir_records ORDER BY seq DESC LIMIT 1")
        return str(rows[0][0]) if rows else ""

    def _hash_at(self, seq: int) -> bytes:
        if seq <= 0:
            return GENESIS
        rows = self._query("SELECT line FROM memoir_records WHERE seq = %s", (seq,))
        if not rows:
            raise JournalCorrupted(f"record {seq} is missing (seqs must be gapless)", seq=seq)
        return hash_of_line(bytes(rows[0][0]))

    def _decode(self, seq: int, line: bytes) -> Event:
        try:
            event = self._decoder.decode(line)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise JournalCorrupted(f"not a valid record: {exc}", seq=seq) from None
        if event.seq != seq:
            raise JournalCorrupted(f"the row at seq {seq} holds record {event.seq}", seq=seq)
        return event

    def _checked(self, after: int, until: int | None) -> Iterator[tuple[int, bytes]]:
        """(seq, line) for ``after < seq <= until``, each checked against the chain.  A
        read to the end under the lock starts from the records the lock brought."""
        if until is not None and until <= after:
            return
        expected = max(after, 0) + 1
        prev: bytes | None = None
        rows: Iterable[tuple[int, bytes]]
        fresh = self._take_fresh(after)
        if fresh is None:
            rows = self._rows(after, until)
        else:
            prev, cached, whole = fresh
            rest = self._rows(cached[-1][0] if cached else after, until) if not whole else ()
            rows = itertools.chain(cached, rest)
        last: tuple[int, bytes] | None = None
        for seq, line in rows:
            if until is not None and seq > until:
                break
            if prev is None:
                prev = self._hash_at(expected - 1)
            if seq != expected:
                raise JournalCorrupted(f"record {expected} is missing (seqs must be "
                                       "gapless)", seq=expected)
            if not line_hash_ok(prev, line):
                raise JournalCorrupted("hash does not match (the record was altered)",
                                       seq=seq)
            yield seq, line
            prev = hash_of_line(line)
            last = (seq, prev)
            expected += 1
        if until is None and last is not None:
            self._known = last

    def _take_fresh(self, after: int) -> tuple[bytes, list[tuple[int, bytes]], bool] | None:
        """The records the lock brought, when they start right after ``after`` and the
        lock is still held (nothing can have been committed since)."""
        with self._mutex:
            fresh, self._fresh = self._fresh, None
        if fresh is None or self._tx is None or fresh[0] != after:
            return None
        return fresh[1], fresh[2], fresh[3]

    def caught_up_to(self, seq: int) -> bool:
        """True while this object holds the lock and ``seq`` is the head it read under it:
        nobody can have committed since."""
        tx = self._tx
        return tx is not None and tx[0] == seq and self._fresh is None

    def read(self, after: int = 0, until: int | None = None) -> Iterator[Event]:
        for seq, line in self._checked(after, until):
            yield self._decode(seq, line)

    def read_reverse(self, after: int = 0, until: int | None = None) -> Iterator[Event]:
        top = self.head() if until is None else min(until, self.head())
        low = max(after, 0)
        while top > low:
            start = max(low, top - CHUNK)
            chunk = list(self.read(after=start, until=top))
            yield from reversed(chunk)
            top = start

    def locked(self) -> AbstractContextManager[JournalWriter]:
        if self.readonly:
            raise JournalError(f"{self!r} is open read-only; nothing is appended")
        return self._locked()

    @contextmanager
    def _locked(self) -> Iterator[JournalWriter]:
        with self._write_mutex:
            try:
                # The lock is held from here: whoever reads the journal inside the block
                # (the engine catches up before it decides) sees every commit before its
                # own, and nobody else commits until this block ends.
                self._lock_tx()
                yield _PostgresWriter(self)
            finally:
                self._staged, self._lines = [], []
                self._fresh = None
                if self._tx is not None and self._writer is not None:
                    self._tx = None
                    try:
                        # Gives up the lock; nothing staged is written.
                        self._writer.execute("ROLLBACK")
                    except self._psycopg.Error:
                        self._writer = None  # the lock went with the connection

    def _lock_tx(self) -> tuple[int, bytes]:
        """Hold the journal's lock in a transaction of the writer's connection (COMMIT
        or ROLLBACK gives it up) and read the head under it, with the records after the
        last one this object knows, in one round trip.  A connection
        found dead here, before anything was staged, is opened again once (the server
        restarted, an idle connection was cut): nothing was lost with it."""
        for attempt in (1, 2):
            if self._tx is not None:
                return self._tx
            conn = self._writer_conn()
            known = self._known
            after = known[0] if known is not None else -1
            try:
                # Statements of their own after the lock: each sees every commit made
                # before the lock was granted.  The head, then what came after ``known``.
                rows = self._send_lock(conn, after)
            except self._psycopg.errors.LockNotAvailable:
                with suppress(self._psycopg.Error):
                    conn.execute("ROLLBACK")
                raise ConflictError(f"could not lock the journal within "
                                    f"{self.lock_timeout:g} s: another writer holds it",
                                    head=self.head()) from None
            except self._psycopg.OperationalError as exc:
                if attempt == 2 or self._staged:
                    self._writer = None
                    raise connect_error(self.url, exc) from None
                log.warning("journal.reconnecting", journal=redact_url(self.url),
                            why=" ".join(str(exc).split())[:200])
                with suppress(self._psycopg.Error):
                    conn.close()
                self._writer = None
                continue
            except self._psycopg.Error as exc:
                self._writer = None
                raise connect_error(self.url, exc) from None
            head = (int(rows[0][0]), str(rows[0][1]).encode()) if rows else (0, GENESIS)
            # Another writer appended since this one last did: writers are contending,
            # so this transaction's COMMIT will not wait for the disk (see _write).
            self._deferred = known is not None and head[0] != known[0]
            if known is not None:
                cached = [(int(r[0]), bytes(r[2])) for r in rows[1:] if r[2] is not None]
                whole = (cached[-1][0] if cached else known[0]) == head[0]
                with self._mutex:
                    self._fresh = (known[0], known[1], cached, whole)
            self._tx = head
        assert self._tx is not None
        return self._tx

    def verify(self, progress: Progress | None = None) -> VerifyReport:
        """Check every row: the seqs gapless, the hash chain, the hash column against the
        line, each append closed, every payload's schema."""
        prev = GENESIS
        size = records = 0
        types: dict[str, int] = {}
        last_more = 0
        hashes = dict(self._query("SELECT seq, hash FROM memoir_records"))
        for seq, line in self._rows(0, None):
            records += 1
            if seq != records:
                raise JournalCorrupted(f"record {records} is missing", seq=records)
            if not line_hash_ok(prev, line):
                raise JournalCorrupted("hash does not match (the record was altered)",
                                       seq=seq)
            prev = hash_of_line(line)
            if hashes.get(seq) != prev.decode():
                raise JournalCorrupted("the row's hash column does not match its record",
                                       seq=seq)
            event = self._decode(seq, line)
            if last_more and event.more != last_more - 1:
                raise JournalCorrupted("an append is cut short", seq=seq)
            last_more = event.more
            types[event.type] = types.get(event.type, 0) + 1
            size += len(line) + 1
            if progress is not None and records % 10_000 == 0:
                progress("verifying", records, None)
        if last_more:
            raise JournalCorrupted("the last append is incomplete", seq=records)
        return VerifyReport(records=records, head_hash=prev.decode(), bytes=size,
                            types=types)

    # -- following -------------------------------------------------------------------------

    def end(self) -> Position:
        """Where the journal ends now (for :meth:`read_since`)."""
        rows = self._query("SELECT seq, hash FROM memoir_records ORDER BY seq DESC LIMIT 1")
        return Position(int(rows[0][0]), int(rows[0][0]), str(rows[0][1])) if rows else \
            Position(0, 0, "")

    def read_since(self, position: Position) -> tuple[list[Event], Position]:
        """The records committed after ``position``, and where they end (every commit
        is whole: there is no half-written append to wait for)."""
        events = list(self.read(after=position.seq))
        if not events:
            return [], position
        return events, Position(events[-1].seq, events[-1].seq, events[-1].hash)

    def read_lines(self, after: int = 0, until: int | None = None
                   ) -> Iterator[tuple[int, bytes]]:
        """(seq, line) of the records, as the file journal holds them, each checked
        against the chain (for copying them elsewhere)."""
        return self._checked(after, until)

    def load_lines(self, lines: Iterable[bytes]) -> int:
        """Put ``lines`` (records as the file journal holds them, in order) into this
        journal, which must be empty: one transaction, the chain checked as it goes, so
        a copy is whole or not there.  Returns how many records were loaded."""
        with self.locked() as writer:
            if writer.head:
                raise ValidationError(f"{self!r} already holds {writer.head} record(s); "
                                      "copy into an empty database")
            conn = self._writer
            prev, count = GENESIS, 0
            with conn.cursor() as cur, cur.copy(
                    "COPY memoir_records (seq, id, type, more, hash, line) FROM STDIN") as copy:
                first = b""
                for line in lines:
                    count += 1
                    first = first or line
                    if not line_hash_ok(prev, line):
                        raise JournalCorrupted("hash does not match (the record was altered)",
                                               seq=count)
                    rec = self._decoder.envelope(line)
                    if rec.seq != count:
                        raise JournalCorrupted(f"record {count} is missing", seq=count)
                    prev = hash_of_line(line)
                    copy.write_row((rec.seq, rec.id, rec.type, rec.more, prev.decode(), line))
            conn.execute("COMMIT")
            self._tx = None
            if count and self._deferred:
                self._unsynced = self._decoder.envelope(first).id
                self._sync()
            return count

    # -- writing (under the advisory lock) -------------------------------------------------

    def _stage(self, drafts: Sequence[Draft],
               expect: Expectation | None) -> list[Event]:
        if not drafts:
            return []
        given = [d.id for d in drafts if d.id]
        if len(set(given)) != len(given):
            raise ValidationError("an append lists the same event id twice")
        if not set(given).isdisjoint(e.id for e in self._staged):
            raise ValidationError("an append repeats event ids staged in the same write")
        existing = self._ids(given)
        if existing:
            first = retried_span(drafts, existing)
            return list(self.read(after=first - 1, until=first - 1 + len(drafts)))
        if self._staged:
            seq, prev = self._staged[-1].seq, self._staged[-1].hash.encode()
        else:
            seq, prev = self._lock_tx()
        check_expectation(self, seq, expect, pending=self._staged)
        lines, out = mint_records([drafts], (seq, prev), self.clock)
        self._staged.extend(out)
        self._lines.extend(lines)
        return out

    def _write(self, *, sync: bool = True) -> int | None:
        staged, lines = self._staged, self._lines
        if not staged:
            return None
        self._staged, self._lines = [], []
        psycopg = self._psycopg
        self._lock_tx()
        conn = self._writer
        try:
            # One statement (the rows, their seal, a notice to every listener, sent on
            # COMMIT) and the COMMIT in one message: one round trip under the lock.
            # When writers contend, the COMMIT does not wait for the disk: the lock is
            # free as soon as it is done, and the sync below, outside the lock, makes
            # the append durable, one flush for every writer waiting (group commit).
            rows = ", ".join(["(%s, %s, %s, %s, %s, %s)"] * len(staged))
            params: list[Any] = []
            for event, line in zip(staged, lines, strict=True):
                params += (event.seq, event.id, event.type, event.more, event.hash, line)
            sealed = ""
            if self.sealer is not None:
                sealed = (", sealed AS (INSERT INTO memoir_seals (seq, line) VALUES (%s, %s) "
                          "RETURNING 1)")
                params += (staged[-1].seq,
                           self.sealer(staged[0].seq, staged[-1].seq, staged[-1].hash))
            self._commit_append(
                conn, "WITH added AS (INSERT INTO memoir_records (seq, id, type, more, hash, "
                f"line) VALUES {rows} RETURNING 1){sealed} SELECT pg_notify(%s, %s)",
                [*params, CHANNEL, str(staged[-1].seq)])
            self._tx = None
        except psycopg.OperationalError as exc:
            # The connection went during the append: it may or may not have committed.
            self._writer = None
            self._tx = None
            if not self._ids([staged[0].id]):
                raise JournalUnavailable(
                    f"the connection to {redact_url(self.url)} was lost during the append "
                    f"of seq {staged[0].seq}-{staged[-1].seq}, which did not reach the "
                    "journal; nothing was written") from exc
            log.warning("journal.reconnected", journal=redact_url(self.url),
                        why="the connection was lost after the commit went through")
        except psycopg.Error as exc:
            self._tx = None
            try:
                conn.execute("ROLLBACK")
            except psycopg.Error:
                self._writer = None
            raise JournalError(f"the append of seq {staged[0].seq}-{staged[-1].seq} to "
                               f"{redact_url(self.url)} was refused: "
                               f"{' '.join(str(exc).split())}") from exc
        self._known = (staged[-1].seq, staged[-1].hash.encode())
        if not self._deferred:
            return None  # the COMMIT waited for the disk itself
        self._unsynced = staged[0].id
        if sync:
            self._sync()
            return None
        return staged[-1].seq

    def _send_lock(self, conn: Any, after: int) -> list[tuple[Any, ...]]:
        """BEGIN, the lock, then (a statement of its own, which sees every commit made
        before the lock was granted) the head and the records after ``after``: pipelined,
        one round trip."""
        with conn.pipeline():
            conn.execute("BEGIN")
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
            cursor = conn.execute(
                "(SELECT seq, hash, NULL::bytea FROM memoir_records ORDER BY seq DESC "
                "LIMIT 1) UNION ALL (SELECT seq, hash, line FROM memoir_records WHERE "
                "%s >= 0 AND seq > %s ORDER BY seq LIMIT %s)", (after, after, FRESH))
        return list(cursor.fetchall())

    def _commit_append(self, conn: Any, sql: str, params: Sequence[Any]) -> None:
        """Send an append's statements and its COMMIT, pipelined (a seam for fault
        tests)."""
        with conn.pipeline():
            if self._deferred:
                conn.execute("SET LOCAL synchronous_commit = off")
            conn.execute(sql, params)
            conn.execute("COMMIT")

    def sync_to(self, offset: int) -> None:
        """Make the appends this object committed durable (``offset``: the last seq a
        ``write(sync=False)`` returned)."""
        with self._write_mutex:
            self._sync()

    def _sync(self) -> None:
        """Wait until what this object committed is on disk: a commit of its own that
        waits for the disk (the server's ``synchronous_commit``) comes after the
        appends' commits in the server's log, so it is flushed only with them.  Commits
        of several writers waiting here at once share one flush (group commit)."""
        first = self._unsynced
        if first is None:
            return
        psycopg = self._psycopg
        for attempt in (1, 2):
            conn = self._writer_conn()
            try:
                conn.execute("INSERT INTO memoir_sync VALUES (pg_backend_pid(), 1) "
                             "ON CONFLICT (pid) DO UPDATE SET n = memoir_sync.n + 1")
                break
            except psycopg.OperationalError as exc:
                self._writer = None
                if attempt == 2:
                    self._unsynced = None
                    raise JournalUnavailable(
                        f"the connection to {redact_url(self.url)} was lost while the "
                        "append was made durable; whether it is in the journal is "
                        "unknown (a retry of the same records is recognised)") from exc
                log.warning("journal.reconnecting", journal=redact_url(self.url),
                            why=" ".join(str(exc).split())[:200])
            except psycopg.Error as exc:
                self._unsynced = None
                raise JournalError(f"{redact_url(self.url)}: the append could not be made "
                                   f"durable: {' '.join(str(exc).split())}") from exc
        self._unsynced = None
        if attempt == 2 and not self._ids([first]):
            raise JournalUnavailable(f"the append was lost with the server of "
                                     f"{redact_url(self.url)} before it reached the disk; "
                                     "nothing was written")


class _PostgresWriter(JournalWriter):
    def __init__(self, journal: PostgresJournal) -> None:
        self._journal = journal

    @property
    def head(self) -> int:
        staged = self._journal._staged
        if staged:
            return staged[-1].seq
        return self._journal._lock_tx()[0]

    def stage(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        return self._journal._stage(drafts, expect)

    def write(self, *, sync: bool = True) -> int | None:
        return self._journal._write(sync=sync)
