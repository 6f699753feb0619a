"""Tombstoning in the database (the :class:`~memoir.journal.interface.Tombstoning`
capability of :class:`~memoir.journal.postgres.PostgresJournal`).

Each record's row gets its line with the payload replaced by the tombstone (the same
length, hash and envelope: the schema's trigger lets nothing else through, and only
while ``memoir.forget`` is set in the transaction), and each shared transcript body its
blanked form, in one transaction by a role granted UPDATE on the line column; then the
dead row versions are vacuumed (a role that does not own the tables is told to ask the
owner).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from memoir.errors import JournalError
from memoir.events.codec import hash_of_line, tombstoned_line
from memoir.journal.postgres.database import log, redact_url
from memoir.journal.transcripts import blanked

if TYPE_CHECKING:
    from memoir.journal.postgres.journal import PostgresJournal

__all__ = ["forget_rows"]


def forget_rows(journal: PostgresJournal, digests: Mapping[int, str],
                bodies: Sequence[str]) -> None:
    """Tombstone the records ``digests`` names (seq -> payload digest; a row that holds
    another payload, or a tombstone already, is left alone) and blank ``bodies``."""
    lines = []
    for seq in sorted(digests):
        for _seq, _offset, line in journal.read_lines(after=seq - 1, until=seq):
            new = tombstoned_line(line, digests[seq])
            if new is not None:
                lines.append((seq, new, hash_of_line(line).decode()))
    blanks = []
    for ref in bodies:
        old = journal.body(ref)
        blank = blanked(old) if old is not None else None
        if blank is not None:
            blanks.append((ref, blank))
    if lines or blanks:
        _update(journal, lines, blanks)


def _update(journal: PostgresJournal, lines: Sequence[tuple[int, bytes, str]],
            bodies: Sequence[tuple[str, bytes]]) -> None:
    """Replace each (seq, line, hash) row's line and each (ref, body), in one
    transaction; then vacuum."""
    psycopg = journal.database._psycopg
    where = redact_url(journal.url)
    conn = journal.database._connect()
    try:
        with conn.transaction():
            conn.execute("SET LOCAL memoir.forget = 'on'")
            for seq, line, record_hash in lines:
                done = conn.execute("UPDATE memoir_records SET line = %s WHERE seq = %s "
                                    "AND hash = %s", (line, seq, record_hash))
                if done.rowcount != 1:
                    raise JournalError(f"record {seq} of {where} is not the one planned; "
                                       "nothing was forgotten")
            for ref, body in bodies:
                conn.execute("UPDATE memoir_transcripts SET body = %s WHERE ref = %s",
                             (body, ref))
        for table in ("memoir_records", "memoir_transcripts"):
            try:
                conn.execute(f"VACUUM {table}")
            except psycopg.Error as exc:
                log.warning("journal.vacuum_refused", journal=where, table=table,
                            why=" ".join(str(exc).split())[:200])
    except psycopg.errors.InsufficientPrivilege as exc:
        raise JournalError(f"{where}: the role may not forget ({' '.join(str(exc).split())}); "
                           "run memoir forget as a role granted UPDATE (line) ON "
                           "memoir_records and UPDATE ON memoir_transcripts "
                           "(docs/postgres.md)") from None
    finally:
        conn.close()
