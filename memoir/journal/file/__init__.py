"""The file journal: one append-only JSONL file (the embedded default).

:class:`FileJournal` (:mod:`.journal`) is the journal's face, put together from
:mod:`.appending` (appending and recovery), :mod:`.reader` (reading and checking what
other processes append) and :mod:`.tombstones` (forgetting in place); :mod:`.scan` walks
the bytes; :mod:`.sync` is group commit's fsync; :mod:`.recovery` cuts torn tails and
salvages; :mod:`.retry` finds the records of a retried append.
"""

from memoir.journal.file.journal import FileJournal

__all__ = ["FileJournal"]
