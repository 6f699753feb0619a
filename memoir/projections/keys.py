"""The key registry of a signed journal: who may sign appends, and what else they may do.

Folded from ``journal.key_trusted`` / ``journal.key_revoked`` records, which the screen
(:mod:`memoir.projections.screen`) lets through only when the owner signed them.  Each
key keeps the seq it was trusted at and, once revoked, the seq it was revoked at, so
"trusted at seq N" is answered from the registry alone.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from memoir.events.keys import RIGHTS, KeyRevoked, KeyTrusted
from memoir.events.types import Event, Payload

__all__ = ["FOLDS", "KeyInfo", "KeysState"]


class KeyInfo(msgspec.Struct, kw_only=True):
    """One key of the registry."""

    since: int
    #: The seq of the record that revoked it (0: not revoked).
    until: int = 0
    may: list[str] = msgspec.field(default_factory=list)
    label: str = ""


class KeysState(msgspec.Struct):
    """The registry: empty until an owner turns signing on at seq :attr:`since`."""

    owner: str = ""
    #: The seq of the owner's first record: every append after it must be signed.
    since: int = 0
    keys: dict[str, KeyInfo] = msgspec.field(default_factory=dict)
    #: run id -> the key that signed its first signed append (a revert of a run another
    #: key signed needs the ``revert`` right).
    runs: dict[str, str] = msgspec.field(default_factory=dict)
    #: The owner key the home folding this state pinned (``.memoir/journal-owner``; ""
    #: none): a record turning signing on with any other key is quarantined, so a forger
    #: who got an owner record in first cannot become this home's root of trust.
    pinned: str = ""

    @property
    def signing(self) -> bool:
        return self.since > 0

    @property
    def root(self) -> str:
        """The key whose owner record turned signing on ("": signing is off)."""
        return next((key for key, info in self.keys.items() if info.since == self.since),
                    "") if self.since else ""

    def trusted_at(self, key: str, seq: int) -> KeyInfo | None:
        """The key's entry if it may sign a record at ``seq`` (None: it may not)."""
        info = self.keys.get(key)
        if info is None or info.since >= seq or (info.until and info.until < seq):
            return None
        return info

    def may(self, key: str, right: str) -> bool:
        """Whether ``key`` holds ``right`` (the owner holds every right)."""
        if key == self.owner:
            return True
        info = self.keys.get(key)
        return info is not None and right in info.may


def _trusted(keys: KeysState, event: Event) -> None:
    data = event.data
    assert isinstance(data, KeyTrusted)
    may = list(RIGHTS) if data.owner else sorted(set(data.may))
    keys.keys[data.key] = KeyInfo(since=event.seq, may=may, label=data.label)
    if data.owner:
        keys.owner = data.key
        if not keys.since:
            keys.since = event.seq


def _revoked(keys: KeysState, event: Event) -> None:
    data = event.data
    assert isinstance(data, KeyRevoked)
    info = keys.keys.get(data.key)
    if info is not None and not info.until:
        info.until = event.seq


#: payload type → fold step on :class:`KeysState` (composed by
#: :mod:`memoir.projections.state`).
FOLDS: dict[type[Payload], Callable[[KeysState, Event], None]] = {
    KeyTrusted: _trusted,
    KeyRevoked: _revoked,
}
