"""The exceptions memoir raises.

Every error memoir raises on purpose derives from :class:`MemoirError`; where the
meaning matches a builtin it subclasses that too, so ``except ValueError`` works
for bad input.  Messages say what was wrong, where, and what to do::

    MemoirError
    ├── JournalError
    │   ├── JournalCorrupted (ValueError)      damaged bytes, a broken hash chain
    │   ├── UnknownEventType (ValueError)      a record whose type this version does not know
    │   ├── JournalLost                        the journal ends before what the home has seen
    │   └── ConflictError                      an append's expectation did not hold
    │       └── AdoptionConflict               a hand edit and a later write changed one entry
    ├── ValidationError (ValueError)           a command or argument that is not acceptable
    │   ├── RejectedError                      refused by a rule (threat scan, guard, budget)
    │   └── AmbiguousError                     an id prefix that names several things
    ├── DriftError                             a projected file was edited by hand
    ├── ConfigError (ValueError)               a config file or setting that is wrong
    └── NotFoundError (LookupError)            no such session, run, seq or entry
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "AdoptionConflict",
    "AmbiguousError",
    "ConfigError",
    "ConflictError",
    "DriftError",
    "JournalCorrupted",
    "JournalError",
    "JournalLost",
    "JournalUnavailable",
    "MemoirError",
    "NotFoundError",
    "ProjectionError",
    "RejectedError",
    "UnknownEventType",
    "ValidationError",
]


class MemoirError(Exception):
    """Root of every error memoir raises on purpose."""


class JournalError(MemoirError):
    """Something is wrong with the journal itself."""


class JournalUnavailable(JournalError):
    """The journal cannot be reached (a database server down, a role refused, a
    connection lost mid-append); nothing about its records is wrong."""


class JournalCorrupted(JournalError, ValueError):
    """The journal holds bytes that are not a valid record, or its hash chain is broken.

    ``path``, ``line`` (1-based) and ``seq`` say where, when known.
    """

    def __init__(
        self, message: str, *, path: str | None = None, line: int | None = None,
        seq: int | None = None,
    ) -> None:
        where = []
        if path is not None:
            where.append(str(path))
        if line is not None:
            where.append(f"line {line}")
        if seq is not None:
            where.append(f"seq {seq}")
        super().__init__(f"{': '.join([', '.join(where), message]) if where else message}")
        self.path = path
        self.line = line
        self.seq = seq


class UnknownEventType(JournalError, ValueError):
    """A record names an event type this version of memoir does not know."""


class JournalLost(JournalError):
    """The journal ends before a seq the home is known to have reached (its checkpoints
    or projected files show more): acknowledged records were lost — a deleted, replaced
    or shortened journal, not a crash, since a durable journal acknowledges nothing it
    has not synced.  Nothing is changed; ``memoir repair --accept-loss`` takes the
    journal as it is (keeping ``.bak`` copies of the files that show more)."""

    def __init__(self, path: object, head: int, seen: int, *, detail: str = "") -> None:
        where = Path(str(path))
        what = detail or ("is missing" if not where.exists() else f"ends at seq {head}")
        super().__init__(
            f"{where} {what}, but this home has reached seq {seen} (its checkpoints or "
            "projected files show it): acknowledged records were lost. Nothing was "
            "changed; restore the journal from a backup, or run `memoir repair "
            "--accept-loss` to go on from the journal as it is")
        self.head = head
        self.seen = seen


class ConflictError(JournalError):
    """An append stated what it expected of the journal, and the journal had moved on."""

    def __init__(self, message: str, *, head: int, conflicting: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.head = head
        self.conflicting = conflicting


class AdoptionConflict(ConflictError):
    """A hand edit and a write journaled since the file was written changed the same
    entry (or skill file) differently; ``memoir adopt --force`` lets the hand edit win.
    ``clashes`` names them."""

    def __init__(self, message: str, *, clashes: tuple[str, ...] | list[str] = ()) -> None:
        super().__init__(message, head=0)
        self.clashes = tuple(clashes)


class ProjectionError(MemoirError):
    """Projected files could not be brought up to date (the journal is unaffected)."""


class ValidationError(MemoirError, ValueError):
    """A command, argument or event that is not acceptable as given."""


class RejectedError(ValidationError):
    """A command refused by a rule (threat scan, guard, budget); the refusal may be journaled."""


class AmbiguousError(ValidationError):
    """An id prefix (or a name) that matches several things; ``candidates`` lists them."""

    def __init__(self, message: str, *, candidates: tuple[str, ...] | list[str] = ()) -> None:
        super().__init__(message)
        self.candidates = tuple(candidates)


class DriftError(MemoirError):
    """A projected file (MEMORY.md, USER.md, a skill) differs from what memoir last wrote."""


class ConfigError(MemoirError, ValueError):
    """A configuration file or setting that cannot be used; ``problems`` lists each one
    (``config.yaml:LINE: key: what``)."""

    def __init__(self, message: str, *, problems: list[str] | tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


class NotFoundError(MemoirError, LookupError):
    """No such session, run, seq, entry or skill."""
