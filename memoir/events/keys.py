"""The vocabulary of signing: who may write to a journal, and each append's signature.

Once a journal's owner has turned signing on (``memoir journal upgrade --sign``, or the
first ``memoir init --journal`` of a new database), every append ends with a
``journal.signed`` record: the signer's Ed25519 public key and its signature over the
append's first seq, its last seq before the signature and that record's chain hash
(the chain makes the hash vouch for every record before it; the first seq bounds what
the signature claims).  The key registry is made of ``journal.key_trusted`` and
``journal.key_revoked`` records, which only the owner's key may sign (see
:mod:`memoir.projections.keys` and :mod:`memoir.projections.screen`).
"""

from __future__ import annotations

from memoir import lazyre
from memoir.events.types import Payload, event_type, require

__all__ = ["PAYLOADS", "RIGHTS", "AppendSigned", "KeyRevoked", "KeyTrusted"]

#: What a trusted key may do beyond appending: ``forget`` (sign ``journal.forgotten``),
#: ``revert`` (revert a run another key signed), ``trust`` (change the registry: the
#: owner's, and whoever the owner gives it to).
RIGHTS = ("forget", "revert", "trust")
_KEY = lazyre.compile(r"[0-9a-f]{64}")
_SIG = lazyre.compile(r"[0-9a-f]{128}")
_HASH = lazyre.compile(r"[0-9a-f]{32}")


def key_problem(key: str) -> str | None:
    """Why ``key`` is not a public key as memoir writes one (None: it is)."""
    return None if _KEY.fullmatch(key) else f"{key[:80]!r} is not an Ed25519 public key (64 hex)"


@event_type("journal.key_trusted")
class KeyTrusted(Payload, frozen=True, kw_only=True):
    """``key`` may sign appends from this record on, with ``may`` among :data:`RIGHTS`;
    ``owner``: the journal's owner (every right; the first such record turns signing
    on and must be signed by the key it names)."""

    key: str
    may: list[str] = []
    owner: bool = False
    #: A name to tell keys apart by (the machine's host name, say); never checked.
    label: str = ""

    def __post_init__(self) -> None:
        require("key", key_problem(self.key))
        for right in self.may:
            require("may", None if right in RIGHTS else
                    f"{right[:40]!r} is not one of {', '.join(RIGHTS)}")
        require("label", "is over 200 characters" if len(self.label) > 200 else None)

    def entities(self) -> tuple[str, ...]:
        return (f"key:{self.key}",)


@event_type("journal.key_revoked")
class KeyRevoked(Payload, frozen=True, kw_only=True):
    """``key`` signs nothing from this record on (what it signed before stands)."""

    key: str
    reason: str = ""

    def __post_init__(self) -> None:
        require("key", key_problem(self.key))
        require("reason", "is over 500 characters" if len(self.reason) > 500 else None)

    def entities(self) -> tuple[str, ...]:
        return (f"key:{self.key}",)


@event_type("journal.signed")
class AppendSigned(Payload, frozen=True, kw_only=True):
    """The last record of a signed append: ``signer`` signed records ``first`` to the
    one before this, whose chain hash is ``hash`` (``sig``: Ed25519, hex)."""

    first: int
    hash: str
    signer: str
    sig: str

    def __post_init__(self) -> None:
        require("first", None if self.first > 0 else f"{self.first} is not a seq")
        require("hash", None if _HASH.fullmatch(self.hash) else "is not a chain hash")
        require("signer", key_problem(self.signer))
        require("sig", None if _SIG.fullmatch(self.sig) else "is not an Ed25519 signature")

    def entities(self) -> tuple[str, ...]:
        return ()


#: Every payload type of this module, for the catalog (:mod:`memoir.events.catalog`).
PAYLOADS: tuple[type[Payload], ...] = (KeyTrusted, KeyRevoked, AppendSigned)
