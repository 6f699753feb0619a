"""Journal locations as people see them (see :mod:`memoir.urls`, where they live so that
the configuration can check a URL without loading the journal package)."""

from memoir.urls import DATABASE_SCHEMES, has_password, is_database, redact_url

__all__ = ["DATABASE_SCHEMES", "has_password", "is_database", "redact_url"]
