"""The PostgreSQL journal: one memory shared by every home pointed at the database.

:mod:`.database` holds the connection, the schema and the shared transcript bodies;
:mod:`.append` appends under the writers' row lock (group commit); :mod:`.journal` is
:class:`PostgresJournal` itself (reads, verification, seals, forgetting, copying).
The driver (psycopg, extra ``memoir[postgres]``) is loaded on first connection.
"""

from memoir.journal.postgres.database import SCHEMA_VERSION, is_postgres_url, redact_url
from memoir.journal.postgres.journal import PostgresJournal

__all__ = ["SCHEMA_VERSION", "PostgresJournal", "is_postgres_url", "redact_url"]
