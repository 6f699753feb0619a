"""Reading a journal file: complete lines, records checked against the hash chain.

A :class:`Scanner` reads the bytes of one journal file through a descriptor the file
journal owns.  Every complete line must be the next record of the chain — seq,
hash, ``more`` countdown, a known type — or :class:`JournalCorrupted` names its line.
A final line without a newline is a torn write (or one still in progress) and ends a
scan quietly, unless it holds a whole record followed by stray bytes, which no write
produces.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import msgspec

from memoir import lazyre
from memoir.errors import JournalCorrupted, UnknownEventType
from memoir.events.codec import (
    GENESIS,
    HASH_HEX,
    Decoder,
    RawRecord,
    hash_of_line,
    line_hash_ok,
    tombstone_digest,
)
from memoir.events.types import Event
from memoir.journal.interface import Progress, StoredLine, VerifyReport

__all__ = ["BAD_LINE", "Scanner", "Tail"]

_CHUNK = 4 << 20
# The end of a complete record: its hash field (always last, fixed width).
_RECORD_END = lazyre.compile(rb'"hash":"[0-9a-f]{32}"}')
#: What decoding a malformed line raises (msgspec reports invalid UTF-8 with the
#: builtin error, not its own).
BAD_LINE = (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError)


class Tail(NamedTuple):
    """A position in the file: just after record ``seq``, whose hash and ``more`` are given."""

    seq: int = 0
    offset: int = 0
    hash: bytes = GENESIS
    more: int = 0


class Scanner:
    """Reads and checks the records of the journal file at ``path`` through ``fd``
    (set by the journal that owns the descriptor)."""

    def __init__(self, path: Path, decoder: Decoder) -> None:
        self.path = path
        self.decoder = decoder
        self.fd = -1
        #: seq -> (stored hash, payload digest) of records ``memoir forget`` tombstoned
        #: (``<journal>.forgotten``): a record hashed over its whole body before the
        #: payload digest no longer matches its hash once forgotten; listed here with
        #: the hash it keeps and the digest its tombstone carries, it is accepted (and
        #: ``memoir verify`` checks every entry against the journal's own
        #: ``journal.forgotten`` records).
        self.forgotten: dict[int, tuple[bytes, bytes]] = {}

    def hash_ok(self, prev: bytes, line: bytes, seq: int, payload_size: int) -> bool:
        """``line`` chains to ``prev``, or it is a listed forgotten record."""
        if line_hash_ok(prev, line, payload_size):
            return True
        listed = self.forgotten.get(seq)
        return listed is not None and hash_of_line(line) == listed[0] and \
            tombstone_digest(line) == listed[1]

    def size(self) -> int:
        return os.fstat(self.fd).st_size

    def lines(self, start: int, end: int, chunk_size: int = _CHUNK
              ) -> Iterator[tuple[bytes, int]]:
        """Complete lines in [start, end) with the offset just after each; a final
        fragment without a newline is yielded with offset -1."""
        offset = start
        carry = b""
        while offset < end:
            chunk = os.pread(self.fd, min(chunk_size, end - offset), offset)
            if not chunk:
                break  # the file shrank under us (a torn tail was cut)
            offset += len(chunk)
            data = carry + chunk if carry else chunk
            base = offset - len(data)
            lines = data.split(b"\n")
            carry = lines.pop()
            for line in lines:
                base += len(line) + 1
                yield line, base
        if carry:
            yield carry, -1

    def stored_lines(self, start: Tail, end: int, after: int, stop: int
                     ) -> Iterator[StoredLine]:
        """The whole lines of records ``after < seq <= stop`` in [start, end), as they
        are (unchecked), with their offsets."""
        seq = start.seq
        # Small reads: a search of the whole journal holds little more than a line.
        for line, past in self.lines(start.offset, end, 1 << 18):
            seq += 1
            if seq > stop or past == -1:
                return
            if seq > after:
                yield StoredLine(seq, past - len(line) - 1, line)

    def scan(self, start: Tail, end: int) -> Iterator[tuple[RawRecord, bytes, int]]:
        """Decode and check the records in [start, end).  Yields (record, line, offset after)."""
        prev, seq, more = start.hash, start.seq, start.more
        envelope = self.decoder.envelope
        versions = self.decoder.versions
        for line, after in self.lines(start.offset, end):
            lineno = seq + 1  # one record per line, seqs from 1: line number == seq
            if after == -1:
                if self._stray_bytes_after_record(line, prev, lineno):
                    raise self.damage(lineno, "a whole record followed by stray bytes "
                                      "(its newline was altered)", end, end)
                return
            problem = None
            try:
                rec = envelope(line)
            except BAD_LINE as exc:
                problem = f"not a journal record ({exc})"
            else:
                if rec.seq != lineno:
                    problem = f"seq {rec.seq} where {lineno} was expected"
                elif not self.hash_ok(prev, line, lineno, len(rec.data)):
                    problem = "hash does not match (the record was altered)"
                elif rec.more < 0 or (more > 0 and rec.more != more - 1):
                    problem = f"more={rec.more} where {max(more - 1, 0)} was expected"
            if problem is not None:
                raise self.damage(lineno, problem, after, end)
            if versions.get(rec.type, 0) < rec.v:
                try:
                    self.decoder.check_known(rec)
                except UnknownEventType as exc:
                    raise UnknownEventType(f"{self.path}: line {lineno}: {exc}") from None
            seq, prev, more = lineno, line[-HASH_HEX - 2 : -2], rec.more
            yield rec, line, after

    def _stray_bytes_after_record(self, fragment: bytes, prev: bytes, lineno: int) -> bool:
        # A torn write leaves a prefix of a record line, and a record line ends with its
        # hash field; so a chain-valid record inside the fragment with bytes after it
        # cannot come from a crash.
        for match in _RECORD_END.finditer(fragment):
            whole = fragment[: match.end()]
            if match.end() < len(fragment) and line_hash_ok(prev, whole):
                try:
                    return self.decoder.envelope(whole).seq == lineno
                except BAD_LINE:
                    continue
        return False

    def damage(self, lineno: int, problem: str, after: int, end: int) -> JournalCorrupted:
        """The error for damage at ``lineno``, saying how many lines follow it."""
        rest = 0
        offset = after
        while 0 <= offset < end:
            chunk = os.pread(self.fd, min(_CHUNK, end - offset), offset)
            if not chunk:
                break
            rest += chunk.count(b"\n")
            offset += len(chunk)
        follows = f"{rest} more line(s) follow it" if rest else "it is the last line"
        return JournalCorrupted(
            f"{problem}; {follows}. Run `memoir repair` to cut the damage (the cut bytes "
            "are kept beside the journal; `--salvage` re-appends the whole appends after it)",
            path=str(self.path), line=lineno, seq=lineno,
        )

    def last_append_end(self, size: int) -> Tail:
        """The end of the last complete append before ``size``, found from the end of
        the file (no forward scan): bytes after the last newline are a write in progress
        or torn, and trailing records with ``more`` > 0 belong to an append not finished
        yet."""
        look = min(size, 1 << 16)
        while look:
            blob = os.pread(self.fd, look, size - look)
            cut = blob.rfind(b"\n")
            if cut >= 0:
                end = size - look + cut + 1
                break
            if look == size:
                return Tail()
            look = min(size, look * 4)
        else:
            return Tail()
        for line, start in self.lines_backwards(end):
            try:
                rec = self.decoder.envelope(line)
            except BAD_LINE:
                raise JournalCorrupted("the last record is not valid (memoir verify names "
                                       "the damage)", path=str(self.path)) from None
            if rec.more == 0:
                return Tail(rec.seq, start + len(line) + 1, hash_of_line(line), 0)
        return Tail()

    def appended_since(self, position: Tail, tail: Tail) -> list[Event]:
        """The events between ``position`` and ``tail`` (both ends of whole appends),
        checked against the chain; JournalCorrupted when the file no longer holds
        ``position`` (it was repaired or replaced meanwhile)."""
        if tail.offset < position.offset or (tail.offset == position.offset
                                             and tail.seq != position.seq):
            raise JournalCorrupted(
                f"the journal changed under this reader (it was at record {position.seq}, "
                f"byte {position.offset}; the file now ends at record {tail.seq}): it was "
                "repaired or replaced; read it again", path=str(self.path))
        return [self.event(rec) for rec, _line, _after in self.scan(position, tail.offset)]

    def record_ending_at(self, offset: int) -> tuple[RawRecord, bytes] | None:
        """The envelope and line of the record whose newline is the byte before
        ``offset`` (None: no record ends there)."""
        look = min(offset, 1 << 20)
        blob = os.pread(self.fd, look, offset - look)
        if not blob.endswith(b"\n"):
            return None
        line = blob[:-1].rsplit(b"\n", 1)[-1]
        try:
            return self.decoder.envelope(line), line
        except BAD_LINE:
            return None

    def sound_prefix(self, size: int) -> tuple[Tail, set[str]]:
        """The end of the last whole, sound append before the first damage (or
        ``size``), and the ids of the records before it (what a repair keeps)."""
        kept = Tail()
        known: set[str] = set()
        group: list[str] = []
        try:
            for rec, line, after in self.scan(Tail(), size):
                self.event(rec)
                group.append(rec.id)
                if rec.more == 0:
                    kept = Tail(rec.seq, after, hash_of_line(line))
                    known.update(group)
                    group.clear()
        except JournalCorrupted:
            pass
        return kept, known

    def event(self, rec: RawRecord) -> Event:
        """The event of a record the scan passed; JournalCorrupted if its payload does
        not fit its schema."""
        try:
            return self.decoder.event(rec)
        except BAD_LINE as exc:
            raise JournalCorrupted(
                f"the payload of {rec.type} v{rec.v} does not fit its schema: {exc}",
                path=str(self.path), line=rec.seq, seq=rec.seq,
            ) from None

    def verify(self, progress: Progress | None = None) -> VerifyReport:
        """Check every record from the first byte: chain, seqs, appends, payload schemas."""
        size = self.size()
        if progress is not None:
            progress("verifying", 0, None)
        count = 0
        types: dict[str, int] = {}
        group: list[str] = []
        head = Tail()
        for rec, line, after in self.scan(Tail(), size):
            self.event(rec)
            if progress is not None and rec.seq % 8192 == 0:
                progress("verifying", rec.seq, None)
            group.append(rec.type)
            if rec.more == 0:
                count += len(group)
                for name in group:
                    types[name] = types.get(name, 0) + 1
                group.clear()
                head = Tail(rec.seq, after, hash_of_line(line))
        return VerifyReport(records=count, head_hash=head.hash.decode(), bytes=head.offset,
                            types=types, pending_bytes=size - head.offset)

    def read_backwards(self, end: int) -> Iterator[RawRecord]:
        """The envelopes of the records before ``end``, last first."""
        for line, _start in self.lines_backwards(end):
            yield self.decoder.envelope(line)

    def lines_backwards(self, end: int) -> Iterator[tuple[bytes, int]]:
        """The lines before ``end`` (which must follow a newline), last first, each with
        the offset where it starts."""
        pos = end
        carry = b""
        while pos > 0:
            size = min(1 << 16, pos)
            pos -= size
            parts = (os.pread(self.fd, size, pos) + carry).split(b"\n")
            carry = parts.pop(0) if pos > 0 else b""
            start = pos + len(carry) + (1 if pos > 0 else 0)
            starts = []
            for part in parts:
                starts.append(start)
                start += len(part) + 1
            for line, at in zip(reversed(parts), reversed(starts), strict=True):
                if line:
                    yield line, at

    def backwards(self, tail: Tail, after: int, until: int) -> Iterator[RawRecord]:
        """The records with ``after < seq <= until`` before ``tail``, newest first, each
        checked against the chain: its hash must be the one the next record was
        chained to (the newest: the tail's), and its body must hash to it."""
        expected = tail.hash
        want = tail.seq
        for line, start in self.lines_backwards(tail.offset):
            try:
                rec = self.decoder.envelope(line)
            except BAD_LINE:
                rec = None
            if rec is None or rec.seq != want or hash_of_line(line) != expected:
                raise JournalCorrupted(f"record {want} does not chain to the record after "
                                       "it (memoir verify names the damage)",
                                       path=str(self.path), seq=want)
            prev = self._prev_hash(start)
            if not self.hash_ok(prev, line, want, len(rec.data)):
                raise JournalCorrupted("the record's hash does not match its bytes",
                                       path=str(self.path), seq=want)
            if rec.seq <= after:
                return
            if rec.seq <= until:
                self.decoder.check_known(rec)
                yield rec
            expected, want = prev, want - 1

    def _prev_hash(self, start: int) -> bytes:
        """The hash of the record that ends just before ``start`` (GENESIS at 0)."""
        if start == 0:
            return GENESIS
        look = min(start, 4096)
        blob = os.pread(self.fd, look, start - look)
        # The hash field is the last 34 bytes of a record: `"hash":"<32 hex>"}`.
        return hash_of_line(blob[:-1])
