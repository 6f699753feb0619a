"""A journal kept in PostgreSQL, shared by every machine that points at the database.

Each record is a row holding the exact line the file journal would hold for it (so
records are byte-identical across backends and ``memoir journal copy`` moves them
unchanged), with its seq, id, type, ``more`` and hash beside it for the queries.
Writers on any machine are serialised by the database: a writer holds the writers' row lock
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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager

from memoir.clock import Clock, SystemClock
from memoir.errors import JournalCorrupted, JournalError
from memoir.events.codec import GENESIS, Decoder, Quarantined, hash_of_line, line_hash_ok
from memoir.events.types import Event
from memoir.journal.interface import (
    Journal,
    JournalWriter,
    LineAccess,
    Loading,
    Notices,
    Position,
    Progress,
    Roles,
    Schema,
    SharedBodies,
    StoredLine,
    Tombstoning,
    VerifyReport,
)
from memoir.journal.postgres.append import Appending
from memoir.journal.postgres.database import (
    CHUNK,
    SCHEMA_VERSION,
    is_postgres_url,
    redact_url,
)
from memoir.journal.postgres.forget import forget_rows
from memoir.journal.transcripts import FORGOTTEN
from memoir.names import TRANSCRIPT_REF

__all__ = ["SCHEMA_VERSION", "PostgresJournal", "is_postgres_url", "redact_url"]


class PostgresJournal(LineAccess, Loading, Tombstoning, SharedBodies, Notices, Schema, Roles,
                      Journal):
    """The journal in the PostgreSQL database at ``url`` (see the module docstring): the
    reads and the whole-journal checks here, the connections and the appends in its
    :attr:`database` (:class:`~memoir.journal.postgres.append.Appending`).

    ``create``: create memoir's tables in an empty database (``memoir init --journal``);
    otherwise they must be there.  ``password``: given to the driver apart from the URL
    (from ``journal.password_env``), so it never sits in the URL memoir keeps.
    """

    persistent = True
    kind = "postgresql"
    keeps_seals = True

    def __init__(self, url: str, *, clock: Clock | None = None, create: bool = False,
                 upgrade: bool = False,
                 password: str | None = None, readonly: bool = False,
                 lock_timeout: float = 60.0) -> None:
        self.url = url
        self.clock = clock or SystemClock()
        self.readonly = readonly
        self.lock_timeout = lock_timeout
        self._decoder = Decoder()
        self.database = Appending(url, password=password, owner=self,
                                  lock_timeout=lock_timeout, create=create, upgrade=upgrade)
        self.upgraded_from = self.database.upgraded_from

    def where(self) -> str:
        return redact_url(self.url)

    def __repr__(self) -> str:
        return f"PostgresJournal({redact_url(self.url)!r})"

    def close(self) -> None:
        self.database.close()

    # -- what the database answers ---------------------------------------------------------

    def put_bodies(self, pairs: Sequence[tuple[str, bytes]]) -> None:
        self.database.put_bodies(pairs)

    def body(self, ref: str) -> bytes | None:
        return self.database.body(ref)

    def bodies_holding(self, forms: Sequence[bytes]) -> list[str]:
        """Searched by the server: nothing but the references comes back, and only
        those of a transcript pack (a row under another name, which any writer role can
        insert, is not memoir's and would make the forget's record invalid)."""
        if not forms:
            return []
        found = " OR ".join(["position(%s::bytea in body) > 0"] * len(forms))
        rows = self.database._query(
            f"SELECT ref FROM memoir_transcripts WHERE ({found}) AND position(%s::bytea "
            "in body) <> 1 ORDER BY ref", (*forms, FORGOTTEN))
        return [str(r[0]) for r in rows if TRANSCRIPT_REF.fullmatch(str(r[0]))]

    def privileges(self) -> dict[str, bool]:
        return self.database.privileges()

    def schema_version(self) -> int:
        return self.database.schema_version()

    def wait_for_append(self, timeout: float) -> bool:
        return self.database.wait_for_append(timeout)

    # -- reading -------------------------------------------------------------------------

    def head(self) -> int:
        return self.database.head()

    def head_hash(self) -> str:
        rows = self.database._query("SELECT hash FROM memoir_records ORDER BY seq DESC LIMIT 1")
        return str(rows[0][0]) if rows else ""

    def _hash_at(self, seq: int) -> bytes:
        if seq <= 0:
            return GENESIS
        rows = self.database._query("SELECT line FROM memoir_records WHERE seq = %s", (seq,))
        if not rows:
            raise JournalCorrupted(f"record {seq} is missing (seqs must be gapless)", seq=seq)
        return hash_of_line(bytes(rows[0][0]))

    def _decode(self, seq: int, line: bytes) -> Event:
        """The record of a row that chains; one that cannot be read is quarantined (any
        writer role can insert one: it must not stop every home of the database)."""
        return self._decoder.decode_or_quarantine(seq, line)

    def _checked(self, after: int, until: int | None) -> Iterator[tuple[int, bytes]]:
        """(seq, line) for ``after < seq <= until``, each checked against the chain.  A
        read to the end under the lock starts from the records the lock brought."""
        if until is not None and until <= after:
            return
        expected = max(after, 0) + 1
        prev: bytes | None = None
        rows: Iterable[tuple[int, bytes]]
        fresh = self.database.take_fresh(after)
        if fresh is None:
            rows = self.database._rows(after, until)
        else:
            prev, cached, whole = fresh
            rest = () if whole else \
                self.database._rows(cached[-1][0] if cached else after, until)
            rows = itertools.chain(cached, rest)
        last: tuple[int, bytes] | None = None
        for seq, line in rows:
            if until is not None and seq > until:
                break
            if prev is None:
                prev = self.database.hash_at(expected - 1) or self._hash_at(expected - 1)
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
            self.database.read_to_end(last)

    def caught_up_to(self, seq: int) -> bool:
        return self.database.caught_up_to(seq)

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
        return self.database.locked()

    def sync_to(self, offset: int) -> None:
        self.database.sync_to(offset)

    def verify(self, progress: Progress | None = None) -> VerifyReport:
        """Check every row: the seqs gapless, the hash chain, the hash column against the
        line, each append closed, every payload's schema."""
        prev = GENESIS
        size = records = 0
        types: dict[str, int] = {}
        last_more = 0
        quarantined: dict[int, str] = {}
        hashes = dict(self.database._query("SELECT seq, hash FROM memoir_records"))
        for seq, line in self.database._rows(0, None):
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
            if isinstance(event.data, Quarantined):
                quarantined[seq] = event.data.reason
                last_more = 0
            elif last_more and event.more != last_more - 1:
                # Each append commits whole, so the record before announced records that
                # never came (a forged row): it is the one out of place, not this one.
                quarantined.setdefault(seq - 1, f"an append announcing {last_more} more "
                                       "record(s) that never came: not written by memoir")
                last_more = event.more
            else:
                last_more = event.more
            types[event.type] = types.get(event.type, 0) + 1
            size += len(line) + 1
            if progress is not None and records % 10_000 == 0:
                progress("verifying", records, None)
        if last_more:
            # Every commit is whole: a record announcing more that never came was not
            # written by memoir (a forged row).
            quarantined.setdefault(records, "an append announcing "
                                   f"{last_more} more record(s) that never came")
        return VerifyReport(records=records, head_hash=prev.decode(), bytes=size,
                            types=types, quarantined=quarantined)

    # -- seals ---------------------------------------------------------------------------

    def seal_lines(self) -> list[bytes]:
        rows = self.database._query("SELECT line FROM memoir_seals ORDER BY seq")
        return [bytes(row[0]) for row in rows]

    def add_seal_lines(self, lines: Sequence[bytes]) -> None:
        """Keep seals (each names the last seq it seals; one already kept for that seq
        stays as it is)."""
        self.database.add_seals(lines)

    # -- forgetting ------------------------------------------------------------------------

    def can_forget(self) -> bool:
        """Whether the role may replace payloads by tombstones (``memoir forget``)."""
        row = self.database._query(
            "SELECT has_column_privilege('memoir_records', 'line', 'UPDATE') "
            "AND has_table_privilege('memoir_transcripts', 'UPDATE')")[0]
        return bool(row[0])

    def tombstone(self, digests: Mapping[int, str], *,
                  places: Mapping[int, tuple[int, int]] | None = None,
                  bodies: Sequence[str] = ()) -> None:
        """The records' rows and the shared bodies, in one transaction (see
        :mod:`memoir.journal.postgres.forget`)."""
        forget_rows(self, digests, bodies)

    # -- following -------------------------------------------------------------------------

    def end(self) -> Position:
        """Where the journal ends now (for :meth:`read_since`)."""
        rows = self.database._query(
            "SELECT seq, hash FROM memoir_records ORDER BY seq DESC LIMIT 1")
        return Position(int(rows[0][0]), int(rows[0][0]), str(rows[0][1])) if rows else \
            Position(0, 0, "")

    def read_since(self, position: Position) -> tuple[list[Event], Position]:
        """The records committed after ``position``, and where they end (every commit
        is whole: there is no half-written append to wait for)."""
        events = list(self.read(after=position.seq))
        if not events:
            return [], position
        return events, Position(events[-1].seq, events[-1].seq, events[-1].hash)

    def read_lines(self, after: int = 0, until: int | None = None, *,
                   checked: bool = True) -> Iterator[StoredLine]:
        """The records as the file journal holds them, each checked against the chain
        (a database has no byte offsets: -1)."""
        for seq, line in self._checked(after, until):
            yield StoredLine(seq, -1, line)

    def load_lines(self, lines: Iterable[bytes], *, seals: Sequence[bytes] = ()) -> int:
        """Put ``lines`` (records as the file journal holds them, in order) into this
        journal, which must be empty, with their ``seals``: one transaction, the chain
        checked as it goes, so a copy is whole or not there.  Returns how many records
        were loaded."""
        if self.readonly:
            raise JournalError(f"{self!r} is open read-only; nothing is appended")
        return self.database.load(lines, seals)
