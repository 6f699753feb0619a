"""What repair keeps of the bytes it cuts, and where cut bytes go.

:func:`salvage` finds the whole, valid appends in bytes cut from a damaged journal
(``memoir repair`` re-appends them); :func:`save_aside` keeps cut bytes in a new file
beside the journal, durably, never over an older one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from memoir.errors import UnknownEventType
from memoir.events.codec import Decoder, hash_of_line, line_hash_ok
from memoir.events.maintenance import JournalRepaired
from memoir.events.types import Draft, Event, Payload
from memoir.journal.file.scan import BAD_LINE, Scanner, Tail
from memoir.journal.interface import RecoveryReport
from memoir.logs import get_logger

__all__ = ["cut_at", "cut_torn_tail", "fsync_dir", "repaired_drafts", "salvage", "save_aside"]

log = get_logger("memoir.journal")


class _Unreadable(Payload, frozen=True, kw_only=True):
    """Stands in for the payload of a salvaged record that will not be re-appended."""


_UNREADABLE = _Unreadable()


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save_aside(journal_path: Path, blob: bytes, label: str) -> Path:
    """Write ``blob`` durably to a new file beside the journal, never over an old one."""
    for n in range(1, 10_000):
        suffix = "" if n == 1 else f"-{n}"
        aside = journal_path.with_name(f"{journal_path.name}.{label}{suffix}")
        try:
            fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        try:
            view = memoryview(blob)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        fsync_dir(journal_path.parent)
        return aside
    raise OSError(f"cannot find a free name for {journal_path.name}.{label} in "
                  f"{journal_path.parent}")


def salvage(
    decoder: Decoder, journal_path: Path, cut: bytes, kept: Tail, known: set[str]
) -> tuple[list[list[Event]], list[int]]:
    """The whole valid appends in ``cut``, and the seqs of the records left out.

    A record is valid if it decodes and, when the line before it is a valid record
    with the seq just before, its hash chains to that line's (a line after damage
    cannot be checked against the damaged one).  Appends are recognised by their
    ``more`` countdown and consecutive seqs; one interrupted by a bad line, a gap or a
    record out of order is left out whole, and so is one right after a line that does
    not decode (it may have been its head), or one that does not follow the record
    before it (lines swapped or moved).
    Records whose ids are in ``known`` (already in the kept part) are left out, and
    ``known`` grows by the ids kept.
    """
    pieces = cut.split(b"\n")
    if pieces[-1] == b"":
        pieces.pop()
    appends: list[list[Event]] = []
    skipped: list[int] = []
    current: list[Event] = []
    current_ok = True
    link: tuple[int, bytes] | None = (kept.seq, kept.hash)
    prev_more: int | None = 0
    prev_seq: int | None = kept.seq

    for piece in pieces:
        try:
            rec = decoder.envelope(piece)
        except BAD_LINE:
            if current:
                skipped += [e.seq for e in current]
                current = []
            link, prev_more, prev_seq = None, None, None
            continue
        ok = link is None or link[0] != rec.seq - 1 or line_hash_ok(link[1], piece)
        event: Event | None = None
        if ok:
            try:
                decoder.check_known(rec)
            except UnknownEventType as exc:
                raise UnknownEventType(
                    f"{journal_path}: line {rec.seq}: {exc}; repair would have to drop it"
                ) from None
            try:
                event = decoder.event(rec)
            except BAD_LINE:
                ok = False
        link = (rec.seq, hash_of_line(piece)) if ok else None
        if current and (rec.more != current[-1].more - 1 or rec.seq != current[-1].seq + 1):
            skipped += [e.seq for e in current]  # the countdown or the seqs broke off
            current = []
        if not current:
            # An append starts right after a record with more == 0.  After a line
            # that does not decode (prev_more None) nobody knows: it may have been this
            # append's head, and re-appending a part of an append would break its
            # atomicity without anyone noticing, so it is left out (and reported).
            current_ok = prev_more == 0 and (prev_seq is None or rec.seq == prev_seq + 1)
        placeholder = Event(seq=rec.seq, id=rec.id, ts=rec.ts, type=rec.type, v=rec.v,
                            actor=rec.actor, more=rec.more, data=_UNREADABLE)
        current.append(event if event is not None else placeholder)
        current_ok = current_ok and ok and rec.more >= 0
        prev_more = rec.more
        prev_seq = rec.seq
        if rec.more <= 0:
            ids = {e.id for e in current}
            if current_ok and not ids & known:
                appends.append(current)
                known.update(ids)
            else:
                skipped += [e.seq for e in current]
            current = []
    skipped += [e.seq for e in current]
    return appends, skipped


def repaired_drafts(cut_bytes: int, kept_head: int, saved_to: str,
                    appends: Sequence[Sequence[Event]], skipped: Sequence[int]
                    ) -> list[list[Draft]]:
    """What a repair appends: its ``journal.repaired`` record, then each salvaged append
    again (same ids, payloads and metadata; the journal gives new seqs and hashes)."""
    marker = Draft(actor="system", data=JournalRepaired(
        cut_bytes=cut_bytes, kept_head=kept_head, saved_to=saved_to,
        salvaged=[e.seq for append in appends for e in append], left_out=list(skipped),
        reason="damaged record after seq " + str(kept_head)))
    return [[marker]] + [
        [Draft(data=e.data, actor=e.actor, session=e.session, run=e.run,
               causation=e.causation, meta=e.meta, id=e.id, ts=e.ts) for e in append]
        for append in appends
    ]


def cut_at(fd: int, path: Path, keep: int, cut: bytes, label: str) -> Path:
    """Cut the journal file (descriptor ``fd``) at byte ``keep``: ``cut``, the bytes
    after it, are saved aside (``<journal>.<label>``) first, then the file is truncated
    and synced.  Returns where the bytes were saved."""
    aside = save_aside(path, cut, label)
    os.ftruncate(fd, keep)
    os.fsync(fd)
    return aside


def cut_torn_tail(scanner: Scanner, tail: Tail, size: int, stamp: str) -> RecoveryReport:
    """Cut the bytes after ``tail``, the last complete append, up to ``size``, and save
    them aside (``<journal>.torn-<stamp>-after-<seq>``).  The caller holds the lock, so
    no live writer is mid-append: those bytes belong to a writer that died before
    acknowledging them, and since reading them raised nothing they are a torn prefix of
    one append (see :meth:`Scanner.scan`), never damage."""
    torn = [rec.seq for rec, _line, _after in scanner.scan(tail, size)]
    cut = os.pread(scanner.fd, size - tail.offset, tail.offset)
    aside = cut_at(scanner.fd, scanner.path, tail.offset, cut,
                   f"torn-{stamp}-after-{tail.seq}")
    log.warning("journal.torn_tail_cut", journal=str(scanner.path), cut_bytes=len(cut),
                whole_records_cut=len(torn), saved_to=str(aside), head=tail.seq,
                why="a writer died mid-append; that append was never acknowledged")
    return RecoveryReport(cut_bytes=len(cut), saved_to=str(aside), kept_head=tail.seq,
                          skipped=tuple(torn))
