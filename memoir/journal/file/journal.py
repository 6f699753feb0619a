"""The file journal: append-only JSONL with a hash chain, the embedded default.

:class:`FileJournal` is the face the engine sees — the :class:`Journal` interface and
the capabilities a file has (:class:`LineAccess`, :class:`Tombstoning`,
:class:`FileBacked`) — put together from parts that each do one thing: the journal
file (:class:`~memoir.journal.file.appending.JournalFile`: appending, syncing and
recovery, over :class:`~memoir.journal.file.reader.FileReader`'s reading) and its
tombstones (:class:`~memoir.journal.file.tombstones.FileTombstones`).  What a crash can
leave and what is done about it: :mod:`memoir.journal.file.appending`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import ClassVar

from memoir.clock import Clock
from memoir.events.types import Draft, Event
from memoir.journal.file.appending import JournalFile
from memoir.journal.file.scan import Tail
from memoir.journal.file.tombstones import FileTombstones
from memoir.journal.interface import (
    Durability,
    Expectation,
    FileBacked,
    Journal,
    JournalWriter,
    LineAccess,
    Position,
    Progress,
    RecoveryReport,
    StoredLine,
    Tombstoning,
    VerifyReport,
)

__all__ = ["FileJournal"]


class FileJournal(FileBacked, LineAccess, Tombstoning, Journal):
    """A JSONL file journal, safe for many threads and processes appending at once.

    ``durability``: ``always`` fsyncs every append before acknowledging it;
    ``batch`` fsyncs at most 50 ms after an append (a crash may lose the appends of
    the last 50 ms); ``never`` leaves it to the OS (tests, throwaway homes).

    Opening reads the whole file once: it checks every record's hash and refuses a
    damaged journal (:class:`JournalCorrupted`), and cuts a torn tail.  Pass
    ``recover=False`` to skip that (``memoir repair`` opens a journal that way), or
    ``scan=False`` to defer it: then :meth:`anchor` a checkpoint and call :meth:`recover`,
    which checks only the records after the checkpoint (how a home opens fast).
    ``readonly``: open the file to read only; appends, cuts and repairs are refused (a
    torn tail is reported, not cut), and nothing is created.
    """

    persistent = True
    kind = "file"
    tombstones_whole_hashed: ClassVar[bool] = True

    def __init__(self, path: str | os.PathLike[str], *, durability: Durability = "always",
                 clock: Clock | None = None, lock_timeout: float = 60.0,
                 recover: bool = True, scan: bool = True, readonly: bool = False) -> None:
        self._file = JournalFile(path, durability=durability, clock=clock,
                                 lock_timeout=lock_timeout, recover=recover, scan=scan,
                                 readonly=readonly, owner=self)
        self._tombstones = FileTombstones(self._file)
        self.path: Path = self._file.path
        self.clock = self._file.clock
        self.readonly = readonly
        self.durability: Durability = durability
        self.lock_timeout = lock_timeout

    def __repr__(self) -> str:
        return f"FileJournal({str(self.path)!r}, durability={self.durability!r})"

    @property
    def recovery(self) -> RecoveryReport | None:
        """What opening (or the last :meth:`recover`) cut from a torn tail."""
        return self._file.recovery

    @property
    def synced_offset(self) -> int:
        """Bytes known to be on stable storage (what survives a power cut)."""
        return self._file.synced_offset

    def fileno(self) -> int:
        """The descriptor of the journal file (-1 once closed)."""
        return self._file.fileno()

    # -- reading ---------------------------------------------------------------------------

    def head(self) -> int:
        return self._file.head()

    def head_hash(self) -> str:
        return self._file.head_hash()

    def position(self) -> Position:
        return self._file.position()

    def caught_up_to(self, seq: int) -> bool:
        return self._file.caught_up_to(seq)

    def read(self, after: int = 0, until: int | None = None) -> Iterator[Event]:
        return self._file.read(after, until)

    def read_family(self, prefix: str, after: int = 0, until: int | None = None
                    ) -> Iterator[Event]:
        return self._file.read_family(prefix, after, until)

    def read_reverse(self, after: int = 0, until: int | None = None) -> Iterator[Event]:
        return self._file.read_reverse(after, until)

    def read_lines(self, after: int = 0, until: int | None = None, *,
                   checked: bool = True) -> Iterator[StoredLine]:
        return self._file.read_lines(after, until, checked=checked)

    def position_after(self, seq: int) -> Position | None:
        return self._file.position_after(seq)

    def anchor(self, seq: int, offset: int, record_hash: str) -> bool:
        return self._file.anchor(seq, offset, record_hash)

    def tail_seq(self) -> int:
        return self._file.tail_seq()

    def end(self) -> Tail:
        """The position just after the last complete append, found from the end of the
        file; start :meth:`read_since` from it to follow new appends."""
        return self._file.end()

    def file_end(self) -> Position:
        return self._file.file_end()

    def read_since(self, position: Tail) -> tuple[list[Event], Tail]:
        """The events of the appends completed after ``position`` and the position after
        them (how ``memoir log --follow`` waits for new events)."""
        return self._file.read_since(position)

    def verify(self, progress: Progress | None = None) -> VerifyReport:
        return self._file.verify(progress)

    # -- appending -------------------------------------------------------------------------

    def locked(self) -> AbstractContextManager[JournalWriter]:
        return self._file.locked()

    def quiet(self) -> AbstractContextManager[None]:
        return self._file.quiet()

    def append(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        return self._file.append(drafts, expect=expect)

    def sync_to(self, offset: int) -> None:
        self._file.sync_to(offset)

    def flush(self) -> None:
        """fsync now, whatever the durability policy."""
        self._file.flush()

    def recover(self, *, acknowledged: int = 0) -> RecoveryReport | None:
        return self._file.recover(acknowledged=acknowledged)

    def repair(self, *, salvage: bool = False) -> RecoveryReport | None:
        return self._file.repair(salvage=salvage)

    def close(self) -> None:
        self._file.close()

    # -- tombstones ------------------------------------------------------------------------

    def tombstone(self, digests: Mapping[int, str], *,
                  places: Mapping[int, tuple[int, int]] | None = None,
                  bodies: Sequence[str] = ()) -> None:
        self._tombstones.tombstone(digests, places=places, bodies=bodies)

    def set_aside(self) -> dict[int, tuple[bytes, bytes]]:
        return self._tombstones.set_aside()

    def reload_forgotten(self) -> None:
        """Read ``<journal>.forgotten`` again (after another process tombstoned)."""
        self._tombstones.reload_forgotten()
