"""Tamper evidence with a key: seals over the journal's appends, and where the key comes
from.

The hash chain shows any change to a record — unless someone rewrites the whole file
and computes every hash again, which needs no key.  A key closes that gap.  Every
append a handle with the key makes is *sealed*: a line in ``.memoir/seals.jsonl``
naming the append's first and last seq, the chain hash of its last record, and a MAC
over the three (keyed BLAKE2b), written under the journal lock right after the append.
A PostgreSQL journal keeps the seals itself (``memoir_seals``, append-only like the
records), each written in its append's own transaction, so every home of the database
checks the same seals.

``memoir verify`` with the key checks that (see :meth:`Seals.check`):

- every seal's MAC matches (a forged seal needs the key);
- the journal holds, at the highest sealed seq, the hash sealed there (the chain makes
  that hash vouch for every record before it: a rewritten history fails here);
- the seals *cover* the journal: every record from 1 to the head lies in a sealed
  range.  Deleting or truncating the seals file, or adding records after it, leaves
  records uncovered, and verify fails naming them.  Records are legitimately left
  uncovered only by a writer without the key or one killed between its append and its
  seal; ``memoir verify --reseal`` seals them once the person has checked them.

Seals written before ranges existed (``{"seq","hash","mac"}``) vouch for records 1 to
their seq.  The key also keys the checkpoints' digests.

The key comes from ``$MEMOIR_KEY`` or from the file ``journal.key_file`` names, which
must live outside the home: a key kept beside the journal protects nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from memoir.errors import ConfigError, ValidationError
from memoir.events.types import Event
from memoir.fs import safefs
from memoir.fs.outside import read_regular
from memoir.journal import Journal
from memoir.logs import get_logger

__all__ = ["KEY_ENV", "SEALS_FILE", "SealCheck", "Seals", "load_key", "seal_lines"]

KEY_ENV = "MEMOIR_KEY"
SEALS_FILE = ".memoir/seals.jsonl"
_MIN_KEY = 16
log = get_logger("memoir.engine")
# A seal line is under 200 bytes; a file this big is not a seals file.
_LIMIT = 1 << 30


def load_key(key_file: str | None, home: Path) -> bytes | None:
    """The home's key: ``$MEMOIR_KEY``, else the contents of ``key_file`` (outside the
    home), else None."""
    env = os.environ.get(KEY_ENV)
    if env:
        key = env.encode("utf-8")
        where = f"${KEY_ENV}"
    elif key_file:
        path = Path(key_file).expanduser().resolve()
        if path.is_relative_to(home.expanduser().resolve()):
            raise ConfigError(f"journal.key_file ({key_file}) is inside the home; keep the key "
                              "elsewhere: a key beside the journal protects nothing")
        try:
            key = read_regular(path, limit=4096, what="key file").strip()
        except ValidationError as exc:
            raise ConfigError(f"journal.key_file: {exc}") from None
        where = str(path)
    else:
        return None
    if len(key) < _MIN_KEY:
        raise ConfigError(f"the key in {where} is {len(key)} bytes; use at least {_MIN_KEY}")
    return key


class _Seal(msgspec.Struct, omit_defaults=True):
    seq: int
    hash: str
    mac: str
    #: The first seq of the sealed append; 0 in a seal written before ranges existed,
    #: which vouches for every record up to ``seq``.
    first: int = 0


_decoder = msgspec.json.Decoder(_Seal)


def seal_lines(home: Path, upto: int, journal: Journal | None = None) -> bytes:
    """The seals of the home at ``home`` (or of ``journal``, when it keeps them) that
    seal records up to ``upto`` (for a backup or a copy of the journal's first ``upto``
    records); no key is needed to choose them."""
    if journal is not None and journal.keeps_seals:
        lines = journal.seal_lines()
    else:
        lines = (safefs.read(home, SEALS_FILE, limit=_LIMIT) or b"").splitlines()
    kept = []
    for line in lines:
        try:
            if _decoder.decode(line).seq <= upto:
                kept.append(line + b"\n")
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
    return b"".join(kept)


@dataclass
class SealCheck:
    """What checking the seals found: how many were checked, the ranges of records no
    seal covers, and every problem (uncovered ranges included)."""

    checked: int = 0
    unsealed: list[tuple[int, int]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: Rows of a shared journal's seals that were not made with the key (anyone who
    #: may insert can add one): left aside, never a problem.
    ignored: int = 0


class Seals:
    """The seals of one home (see the module docstring): in ``.memoir/seals.jsonl``, or
    in the journal itself when it keeps them (a database shared by several homes, whose
    appends are sealed in their own transaction: see :attr:`Journal.keeps_seals`)."""

    def __init__(self, home: Path, key: bytes, journal: Journal | None = None) -> None:
        self.home = home
        self.path = home / SEALS_FILE
        self._key = key
        self._fd = -1
        self._pid = os.getpid()
        self._journal = journal if journal is not None and journal.keeps_seals else None

    def _mac(self, first: int, seq: int, record_hash: str) -> str:
        text = f"{first}-{seq}:{record_hash}" if first else f"{seq}:{record_hash}"
        return hashlib.blake2b(text.encode(), digest_size=16, key=self._key).hexdigest()

    def line(self, first: int, last: int, record_hash: str) -> bytes:
        """The seal of records ``first``..``last`` (``record_hash``: the last's), as
        kept (without its newline)."""
        return msgspec.json.encode(_Seal(last, record_hash,
                                         self._mac(first, last, record_hash), first))

    def seal(self, first: int, last: int, record_hash: str) -> None:
        """Seal the append of records ``first``..``last`` (``record_hash``: the last's)."""
        if first <= 0 or last < first:
            return
        line = self.line(first, last, record_hash) + b"\n"
        if self._journal is not None:
            self._journal.add_seal_lines([line])
            return
        if self._fd < 0 or self._pid != os.getpid():
            self._pid = os.getpid()
            self._fd = safefs.open_own(self.home, SEALS_FILE,
                                       os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        os.write(self._fd, line)

    def written(self, events: Sequence[Event]) -> None:
        """Seal a batch of appends the engine wrote under the journal lock (a journal
        that keeps its seals sealed it in the append itself).  A seal that cannot be
        written is logged: verify then names the records it leaves uncovered."""
        if self._journal is not None or not events:
            return
        try:
            self.seal(events[0].seq, events[-1].seq, events[-1].hash)
        except OSError as exc:
            log.warning("seal.failed", home=str(self.home), error=str(exc))

    def close(self) -> None:
        if self._fd >= 0 and self._pid == os.getpid():
            os.close(self._fd)
        self._fd = -1

    def _read(self) -> list[bytes]:
        if self._journal is not None:
            return self._journal.seal_lines()
        return (safefs.read(self.home, SEALS_FILE, limit=_LIMIT) or b"").splitlines()

    def check(self, journal: Journal) -> SealCheck:
        """Check the seals against the key and the journal (see the module docstring)."""
        head = journal.head()
        found = self._check(journal, head, self._read())
        if found.unsealed or any("records were lost" in p for p in found.problems):
            # A writer may be between its append and its seal, or appended after the
            # head was read: look again with no append under way.
            with journal.quiet():
                head = journal.head()
                lines = self._read()
            found = self._check(journal, head, lines)
        return found

    def _check(self, journal: Journal, head: int, lines: list[bytes]) -> SealCheck:
        found = SealCheck()
        ranges: list[tuple[int, int]] = []
        top: _Seal | None = None
        for number, line in enumerate(lines, start=1):
            try:
                seal = _decoder.decode(line)
            except (msgspec.DecodeError, msgspec.ValidationError):
                if self._journal is not None:
                    found.ignored += 1
                else:
                    found.problems.append(f"seal on line {number} is not a seal")
                continue
            if not hmac.compare_digest(seal.mac, self._mac(seal.first, seal.seq, seal.hash)):
                if self._journal is not None:
                    # In a shared journal a writer role may insert seal rows: only the
                    # key's own count, so one made without it is simply not a seal.
                    found.ignored += 1
                else:
                    found.checked += 1
                    found.problems.append(f"seal of seq {seal.seq} does not match the key "
                                          "(forged, or another key)")
                continue
            found.checked += 1
            if seal.seq > head:
                found.problems.append(f"seq {seal.seq} was sealed but the journal ends at "
                                      f"{head}: records were lost")
                continue
            ranges.append((seal.first or 1, seal.seq))
            if top is None or seal.seq > top.seq:
                top = seal
        if top is not None:
            at = next(iter(journal.read(after=top.seq - 1, until=top.seq)), None)
            if at is None or at.hash != top.hash:
                found.problems.append(
                    f"seq {top.seq} was sealed with hash {top.hash} but the journal holds "
                    f"{at.hash if at else 'nothing'} there: the chain was rewritten")
        found.unsealed = _gaps(ranges, head)
        if found.unsealed:
            shown = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in found.unsealed[:5])
            more = f" and {len(found.unsealed) - 5} more range(s)" if len(found.unsealed) > 5 \
                else ""
            count = sum(b - a + 1 for a, b in found.unsealed)
            found.problems.append(
                f"{count} record(s) are not sealed (seq {shown}{more}): the seals file was "
                "deleted or cut, the records were added without the key, or a writer died "
                "between its append and its seal; if you trust them, `memoir verify "
                "--reseal` seals them")
        return found

    def reseal(self, journal: Journal) -> int:
        """Seal every record no seal covers (the person vouches for them); returns how
        many records were sealed."""
        check = self.check(journal)
        count = 0
        for first, last in check.unsealed:
            at = next(iter(journal.read(after=last - 1, until=last)), None)
            if at is None:
                continue
            self.seal(first, last, at.hash)
            count += last - first + 1
        return count

    def cut(self, head: int) -> None:
        """Drop the seals of records after ``head`` (the journal was repaired to it; a
        journal that keeps its seals is never cut)."""
        if self._journal is not None:
            return
        safefs.write_file(self.home, SEALS_FILE, seal_lines(self.home, head))


def _gaps(ranges: list[tuple[int, int]], head: int) -> list[tuple[int, int]]:
    """The ranges of 1..``head`` that none of ``ranges`` covers."""
    gaps = []
    nxt = 1
    for first, last in sorted(ranges):
        if first > nxt:
            gaps.append((nxt, min(first - 1, head)))
        nxt = max(nxt, last + 1)
        if nxt > head:
            break
    if nxt <= head:
        gaps.append((nxt, head))
    return [(a, b) for a, b in gaps if a <= b]
