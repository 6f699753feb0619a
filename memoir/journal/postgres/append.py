"""The writing half of the PostgreSQL journal (:mod:`memoir.journal.postgres`): the
writers' lock (a row only memoir's roles may lock), held from the start of a ``locked()``
block, with the head and the records another writer added since; the append's rows and
seal committed in one round trip, the notice to listeners after it (a notice that
cannot be sent never fails an append: listeners poll as well); and, when writers
contend, the COMMIT that does not wait for the disk, followed outside the lock by a
commit that does (group commit across processes and machines)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

import msgspec

from memoir.errors import (
    ConflictError,
    JournalCorrupted,
    JournalError,
    JournalUnavailable,
    ValidationError,
)
from memoir.events.codec import GENESIS, Decoder, hash_of_line, line_hash_ok
from memoir.events.types import Draft, Event
from memoir.journal.interface import Expectation, Journal, JournalWriter
from memoir.journal.postgres.database import (
    FRESH,
    LOCK_ROW,
    Database,
    connect_error,
    log,
    redact_url,
)
from memoir.journal.staging import Stager

__all__ = ["Appending", "seal_rows"]


class Appending(Database):
    """The database of a :class:`~memoir.journal.postgres.PostgresJournal` and its
    appends; ``owner`` is that journal (retried appends and expectations are read
    through it, and it holds the ``sealer``)."""

    def __init__(self, url: str, *, password: str | None, owner: Journal,
                 lock_timeout: float, create: bool, upgrade: bool) -> None:
        super().__init__(url, password=password)
        self.owner = owner
        self.lock_timeout = lock_timeout
        self._decoder = Decoder()
        self._staged = Stager(owner)
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
        with self._mutex:
            self._check_schema(create, upgrade)

    def hash_at(self, seq: int) -> bytes | None:
        """The hash of record ``seq`` when it is the last this object read or wrote."""
        known = self._known
        return known[1] if known is not None and known[0] == seq else None

    def caught_up_to(self, seq: int) -> bool:
        """True while this object holds the lock and ``seq`` is the head it read under it:
        nobody can have committed since."""
        tx = self._tx
        return tx is not None and tx[0] == seq

    def take_fresh(self, after: int) -> tuple[bytes, list[tuple[int, bytes]], bool] | None:
        """The records the lock brought, when they start right after ``after`` and the
        lock is still held (nothing can have been committed since)."""
        with self._state_mutex:
            fresh, self._fresh = self._fresh, None
        if fresh is None or self._tx is None or fresh[0] != after:
            return None
        return fresh[1], fresh[2], fresh[3]

    def read_to_end(self, last: tuple[int, bytes]) -> None:
        """A read reached the end of the journal at ``last`` (seq, hash)."""
        self._known = last

    @contextmanager
    def locked(self) -> Iterator[JournalWriter]:
        with self._write_mutex:
            try:
                # The lock is held from here: whoever reads the journal inside the block
                # (the engine catches up before it decides) sees every commit before its
                # own, and nobody else commits until this block ends.
                self._lock_tx()
                yield _PostgresWriter(self)
            finally:
                self._staged.drop()
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
                                    f"{self.lock_timeout:g} s: another writer holds it"
                                    f"{self._holders()}", head=self.head()) from None
            except _NoLockRow:
                # The lock row is gone (a role that may update memoir_sync moved it):
                # put it back and lock again.
                with suppress(self._psycopg.Error):
                    conn.execute("ROLLBACK")
                    conn.execute("INSERT INTO memoir_sync VALUES (%s, 0) ON CONFLICT (pid) "
                                 "DO NOTHING", (LOCK_ROW,))
                if attempt == 2:
                    raise JournalError(f"{redact_url(self.url)}: the writers' lock row "
                                       "(memoir_sync pid 0) cannot be made; run `memoir "
                                       "journal upgrade` as the tables' owner") from None
                continue
            except self._psycopg.OperationalError as exc:
                if attempt == 2 or self._staged.events:
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
                with self._state_mutex:
                    self._fresh = (known[0], known[1], cached, whole)
            self._tx = head
        assert self._tx is not None
        return self._tx

    # -- writing (under the writers' lock) ---------------------------------------------------

    def _stage(self, drafts: Sequence[Draft],
               expect: Expectation | None) -> list[Event]:
        return self._staged.stage(drafts, expect, tail=self._lock_tx, known=self._ids)

    def _write(self, *, sync: bool = True) -> int | None:
        lines, staged = self._staged.take()
        if not staged:
            return None
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
            sealer = self.owner.sealer
            if sealer is not None:
                sealed = (", sealed AS (INSERT INTO memoir_seals (seq, line) VALUES (%s, %s) "
                          "RETURNING 1)")
                params += (staged[-1].seq,
                           sealer(staged[0].seq, staged[-1].seq, staged[-1].hash))
            self._commit_append(
                conn, "WITH added AS (INSERT INTO memoir_records (seq, id, type, more, hash, "
                f"line) VALUES {rows} RETURNING 1){sealed} SELECT count(*) FROM added",
                params)
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
        self._notify(staged[-1].seq)
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
            locked = conn.execute("SELECT 1 FROM memoir_sync WHERE pid = %s FOR UPDATE",
                                  (LOCK_ROW,))
            cursor = conn.execute(
                "(SELECT seq, hash, NULL::bytea FROM memoir_records ORDER BY seq DESC "
                "LIMIT 1) UNION ALL (SELECT seq, hash, line FROM memoir_records WHERE "
                "%s >= 0 AND seq > %s ORDER BY seq LIMIT %s)", (after, after, FRESH))
        if not locked.fetchall():
            raise _NoLockRow
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


    def load(self, lines: Iterable[bytes], seals: Sequence[bytes]) -> int:
        """Put ``lines`` into the journal, which must be empty, with their ``seals``: one
        transaction, the chain checked as it goes (see ``PostgresJournal.load_lines``)."""
        with self.locked() as writer:
            if writer.head:
                raise ValidationError(f"{self.owner!r} already holds {writer.head} "
                                      "record(s); copy into an empty database")
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
            if seals:
                seal_rows(conn, seals)
            conn.execute("COMMIT")
            self._tx = None
            if count and self._deferred:
                self._unsynced = self._decoder.envelope(first).id
                self._sync()
            return count


    def add_seals(self, lines: Sequence[bytes]) -> None:
        """Keep seals made apart from an append (see :func:`seal_rows`)."""
        with self._mutex:
            seal_rows(self._conn(), lines)


def seal_rows(conn: Any, lines: Sequence[bytes]) -> None:
    """Keep seals on ``conn`` (each names the last seq it seals; several may name one
    seq: only those made with the key count when they are checked)."""
    rows = []
    for line in lines:
        line = line.rstrip(b"\n")
        try:
            seq = msgspec.json.decode(line, type=_SealSeq).seq
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise ValidationError(f"not a seal: {line[:80]!r}") from None
        rows.append((seq, line))
    if rows:
        values = ", ".join(["(%s, %s)"] * len(rows))
        conn.execute(f"INSERT INTO memoir_seals (seq, line) VALUES {values}",
                     [v for row in rows for v in row])


class _NoLockRow(JournalError):
    """The writers' lock row is missing."""


class _SealSeq(msgspec.Struct):
    seq: int


class _PostgresWriter(JournalWriter):
    def __init__(self, journal: Appending) -> None:
        self._journal = journal

    @property
    def head(self) -> int:
        tail = self._journal._staged.tail()
        return tail[0] if tail else self._journal._lock_tx()[0]

    def stage(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        return self._journal._stage(drafts, expect)

    def write(self, *, sync: bool = True) -> int | None:
        return self._journal._write(sync=sync)
