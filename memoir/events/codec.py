"""Encoding records to journal lines and back, with the hash chain.

The integrity field: ``hash`` is the first 32 hex digits of BLAKE2b over the
previous record's hash (ASCII hex; empty for seq 1) followed by the record's bytes
*without* the hash field.  Because ``hash`` is always the last field and has a fixed
width, the body is recovered from a line by cutting its last 43 bytes
(``,"hash":"<32 hex>"}``) and closing the brace again; no re-encoding is needed, so
verifying a record costs one hash over bytes already in hand.  A torn line fails the
check, and altering any record breaks every hash after it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import msgspec

from memoir.errors import UnknownEventType
from memoir.events.types import REGISTRY, Event, Payload
from memoir.events.upcasters import upcast

__all__ = [
    "GENESIS",
    "HASH_HEX",
    "Decoder",
    "body_of",
    "chain_hash",
    "encode_record",
    "hash_of_line",
]

HASH_HEX = 32
GENESIS = b""
_TAIL = len(b',"hash":"') + HASH_HEX + len(b'"}')


class _Out(msgspec.Struct, kw_only=True):
    """The envelope as written, minus the hash (appended by hand, see module doc)."""

    seq: int
    id: str
    ts: str
    type: str
    v: int
    actor: str
    session: str | None
    run: str | None
    causation: str | None
    more: int
    data: Any


class _In(msgspec.Struct, kw_only=True):
    seq: int
    id: str
    ts: str
    type: str
    v: int
    actor: str
    session: str | None = None
    run: str | None = None
    causation: str | None = None
    more: int = 0
    data: msgspec.Raw
    hash: str = ""


_encoder = msgspec.json.Encoder(order="deterministic")


def chain_hash(prev: bytes, body: bytes) -> bytes:
    """The hash of a record: BLAKE2b-128 over the previous hash and this record's body."""
    return hashlib.blake2b(prev + body, digest_size=HASH_HEX // 2).hexdigest().encode()


def encode_record(
    *, seq: int, id: str, ts: str, actor: str, session: str | None, run: str | None,
    causation: str | None, more: int, data: Payload, prev: bytes,
) -> tuple[bytes, bytes]:
    """Encode one record; returns ``(line without newline, its hash)``."""
    body = _encoder.encode(
        _Out(
            seq=seq, id=id, ts=ts, type=data.TYPE, v=data.VERSION, actor=actor,
            session=session, run=run, causation=causation, more=more, data=data,
        )
    )
    digest = chain_hash(prev, body)
    return body[:-1] + b',"hash":"' + digest + b'"}', digest


def body_of(line: bytes) -> bytes:
    """The bytes the hash of ``line`` covers (see module doc)."""
    return line[:-_TAIL] + b"}"


def hash_of_line(line: bytes) -> bytes:
    """The hash stored in ``line`` (without decoding it)."""
    return line[-HASH_HEX - 2 : -2]


class Decoder:
    """Decodes journal lines into :class:`Event`, upcasting older payload versions."""

    def __init__(self, registry: Mapping[str, type[Payload]] = REGISTRY) -> None:
        self._registry = registry
        self._envelope = msgspec.json.Decoder(_In)
        self._payloads: dict[str, msgspec.json.Decoder[Any]] = {}

    def _payload_decoder(self, type_name: str) -> msgspec.json.Decoder[Any] | None:
        dec = self._payloads.get(type_name)
        if dec is None:
            cls = self._registry.get(type_name)
            if cls is None:
                return None
            dec = self._payloads[type_name] = msgspec.json.Decoder(cls)
        return dec

    def decode(self, line: bytes | memoryview) -> Event:
        """Decode one line.  Raises msgspec errors for malformed JSON, UnknownEventType."""
        rec = self._envelope.decode(line)
        dec = self._payload_decoder(rec.type)
        if dec is None:
            raise UnknownEventType(
                f"seq {rec.seq}: unknown event type {rec.type!r}; it was written by a newer "
                "memoir or a foreign tool; upgrade memoir to read this journal"
            )
        cls = self._registry[rec.type]
        if rec.v == cls.VERSION:
            data = dec.decode(rec.data)
        elif rec.v < cls.VERSION:
            envelope = {"id": rec.id, "seq": rec.seq, "ts": rec.ts, "actor": rec.actor}
            raw = msgspec.json.decode(rec.data)
            data = msgspec.convert(upcast(rec.type, rec.v, cls.VERSION, raw, envelope), cls)
        else:
            raise UnknownEventType(
                f"seq {rec.seq}: event type {rec.type!r} has schema v{rec.v} but this memoir "
                f"knows up to v{cls.VERSION}; upgrade memoir to read this journal"
            )
        return Event(
            seq=rec.seq, id=rec.id, ts=rec.ts, type=rec.type, v=cls.VERSION, actor=rec.actor,
            session=rec.session, run=rec.run, causation=rec.causation, more=rec.more,
            data=data, hash=rec.hash,
        )
