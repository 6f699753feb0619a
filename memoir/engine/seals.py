"""Tamper evidence with a key: seals of the journal's head, and where the key comes from.

The hash chain shows any change to a record — unless someone rewrites the whole file
and computes every hash again.  A key closes that gap: a *seal* is the seq and hash of
a record with a MAC over them (keyed BLAKE2b), appended to ``.memoir/seals.jsonl``
whenever a checkpoint is saved and when a handle closes.  ``memoir verify`` with the key
checks every seal: a recomputed chain no longer has the sealed hash at the sealed seq,
and a forged seal needs the key.  The key also keys the checkpoints' digests.

The key comes from ``$MEMOIR_KEY`` or from the file ``journal.key_file`` names, which
must live outside the home: a key kept beside the journal protects nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from memoir.errors import ConfigError, ValidationError
from memoir.journal import Journal
from memoir.reading import read_regular

__all__ = ["KEY_ENV", "SealCheck", "Seals", "load_key"]

KEY_ENV = "MEMOIR_KEY"
_MIN_KEY = 16


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


class _Seal(msgspec.Struct):
    seq: int
    hash: str
    mac: str


@dataclass
class SealCheck:
    """What checking the seals found: how many were checked, and every problem."""

    checked: int = 0
    problems: list[str] = field(default_factory=list)


class Seals:
    """The seals of one home (``.memoir/seals.jsonl``)."""

    def __init__(self, path: Path, key: bytes) -> None:
        self.path = path
        self._key = key
        self._last = -1

    def _mac(self, seq: int, record_hash: str) -> str:
        return hashlib.blake2b(f"{seq}:{record_hash}".encode(), digest_size=16,
                               key=self._key).hexdigest()

    def seal(self, seq: int, record_hash: str) -> None:
        """Seal record ``seq`` (its hash), once."""
        if seq <= 0 or seq == self._last:
            return
        line = msgspec.json.encode(_Seal(seq, record_hash, self._mac(seq, record_hash)))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "ab") as fh:
            fh.write(line + b"\n")
        self._last = seq

    def check(self, journal: Journal) -> SealCheck:
        """Check every seal against the key and the journal."""
        found = SealCheck()
        try:
            lines = self.path.read_bytes().splitlines()
        except FileNotFoundError:
            return found
        head = journal.head()
        for number, line in enumerate(lines, start=1):
            try:
                seal = msgspec.json.decode(line, type=_Seal)
            except (msgspec.DecodeError, msgspec.ValidationError):
                found.problems.append(f"seal on line {number} is not a seal")
                continue
            found.checked += 1
            if not hmac.compare_digest(seal.mac, self._mac(seal.seq, seal.hash)):
                found.problems.append(f"seal of seq {seal.seq} does not match the key "
                                      "(forged, or another key)")
            elif seal.seq > head:
                found.problems.append(f"seq {seal.seq} was sealed but the journal ends at "
                                      f"{head}: records were lost")
            else:
                at = next(iter(journal.read(after=seal.seq - 1, until=seal.seq)), None)
                if at is None or at.hash != seal.hash:
                    found.problems.append(
                        f"seq {seal.seq} was sealed with hash {seal.hash} but the journal "
                        f"holds {at.hash if at else 'nothing'} there: the chain was "
                        "rewritten")
        return found
