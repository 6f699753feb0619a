"""The file journal: one append-only JSONL file (the embedded default).

:class:`FileJournal` appends and recovers (:mod:`.journal`); :mod:`.reader` reads and
checks what other processes append; :mod:`.scan` walks the bytes; :mod:`.sync` is group
commit's fsync; :mod:`.recovery` cuts torn tails and salvages; :mod:`.retry` finds the
records of a retried append.
"""

from memoir.journal.file.journal import FileJournal

__all__ = ["FileJournal"]
