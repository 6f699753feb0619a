"""Ed25519 signatures over a journal's appends (``cryptography`` does the arithmetic).

A key is 32 raw bytes; memoir names a public key by its 64 hex digits and shows the
first 16.  What an append's signature covers is :func:`message`: the first seq of the
append, the seq of its last record before the signature, and that record's chain hash
(the chain makes it vouch for every record before it; the first seq bounds the claim to
this append).  The import of ``cryptography`` waits for the first key or check.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["Signer", "message", "new_private_key", "public_key_of", "short", "verify"]

_DOMAIN = b"memoir-append-v1:"


def message(first: int, last: int, record_hash: str) -> bytes:
    """The bytes an append's signature is over."""
    return _DOMAIN + f"{first}:{last}:{record_hash}".encode()


def short(key: str) -> str:
    """How a public key is shown: its first 16 hex digits."""
    return key[:16]


def new_private_key() -> bytes:
    """A fresh private key's 32 raw bytes."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.generate().private_bytes_raw()


def public_key_of(private: bytes) -> str:
    """The public key (64 hex) of a private key's raw bytes."""
    return Signer(private).key


class Signer:
    """One private key: signs appends; :attr:`key` is its public key, hex."""

    __slots__ = ("_private", "key")

    def __init__(self, private: bytes) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        if len(private) != 32:
            raise ValueError("an Ed25519 private key is 32 bytes")
        self._private: Any = Ed25519PrivateKey.from_private_bytes(private)
        self.key: str = self._private.public_key().public_bytes_raw().hex()

    def sign(self, first: int, last: int, record_hash: str) -> str:
        """The signature (128 hex) of records ``first``..``last``."""
        return str(self._private.sign(message(first, last, record_hash)).hex())

    def __repr__(self) -> str:  # never the private key
        return f"Signer({short(self.key)})"


@functools.lru_cache(maxsize=256)
def _public(key: str) -> Any:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    return Ed25519PublicKey.from_public_bytes(bytes.fromhex(key))


def verify(key: str, sig: str, first: int, last: int, record_hash: str) -> bool:
    """Whether ``sig`` is ``key``'s signature of records ``first``..``last``."""
    from cryptography.exceptions import InvalidSignature

    try:
        _public(key).verify(bytes.fromhex(sig), message(first, last, record_hash))
    except (InvalidSignature, ValueError):
        return False
    return True
