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

from memoir.errors import UnknownEventType, ValidationError
from memoir.events.catalog import REGISTRY
from memoir.events.types import Event, Payload
from memoir.events.upcasters import upcast

__all__ = [
    "GENESIS",
    "HASH_HEX",
    "Decoder",
    "RawRecord",
    "body_of",
    "chain_hash",
    "encode_record",
    "hash_of_line",
    "line_hash_ok",
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


class _OutMeta(msgspec.Struct, kw_only=True):
    """:class:`_Out` of a record that carries ``meta``."""

    seq: int
    id: str
    ts: str
    type: str
    v: int
    actor: str
    session: str | None
    run: str | None
    causation: str | None
    meta: dict[str, str]
    more: int
    data: Any


class RawRecord(msgspec.Struct, kw_only=True, gc=False):
    """A journal line decoded as far as the envelope; ``data`` is still JSON bytes.

    Enough to follow the hash chain, the seqs and the appends without paying for
    the payload (see :meth:`Decoder.envelope`).
    """

    seq: int
    id: str
    ts: str
    type: str
    v: int
    actor: str
    session: str | None = None
    run: str | None = None
    causation: str | None = None
    meta: dict[str, str] | None = None
    more: int = 0
    data: msgspec.Raw
    hash: str = ""


_encoder = msgspec.json.Encoder(order="deterministic")


def chain_hash(prev: bytes, *body: bytes) -> bytes:
    """The hash of a record: BLAKE2b-128 over the previous hash and this record's body
    (given whole, or in consecutive pieces)."""
    hasher = hashlib.blake2b(prev, digest_size=HASH_HEX // 2)
    for piece in body:
        hasher.update(piece)
    return hasher.hexdigest().encode()


_ENCODED: dict[str | None, bytes] = {}
_MIDDLES: dict[tuple[str, int, str, str | None, str | None, str | None], bytes] = {}


def _cached(value: str | None) -> bytes:
    """The JSON encoding of an envelope value that repeats across records (the time,
    type, actor, session, run of one append): encoded once, then looked up."""
    found = _ENCODED.get(value)
    if found is None:
        found = _encoder.encode(value)
        if len(_ENCODED) >= 4096:
            _ENCODED.clear()
        _ENCODED[value] = found
    return found


def encode_record(
    *, seq: int, id: str, ts: str, actor: str, session: str | None, run: str | None,
    causation: str | None, more: int, data: Payload, prev: bytes,
    meta: dict[str, str] | None = None,
) -> tuple[bytes, bytes]:
    """Encode one record; returns ``(line without newline, its hash)``.

    The envelope is assembled from pieces each encoded by msgspec (so escaping is
    msgspec's), which gives the same bytes as encoding the ``_Out`` struct but skips
    building it: this is the hot loop of a bulk append.  ``tests/journal/test_codec.py`` checks
    the two stay byte-identical.

    Raises ValidationError for a payload JSON cannot carry (a lone surrogate in a str).
    """
    enc = _encoder.encode
    try:
        # The fields from "type" to "causation" repeat across records (of one append,
        # and of one session's appends): encoded once per combination.
        key = (data.TYPE, data.VERSION, actor, session, run, causation)
        middle = _MIDDLES.get(key)
        if middle is None:
            middle = b"".join((
                b',"type":', _cached(data.TYPE), b',"v":', str(data.VERSION).encode(),
                b',"actor":', _cached(actor), b',"session":', _cached(session),
                b',"run":', _cached(run), b',"causation":', _cached(causation),
            ))
            if len(_MIDDLES) >= 1024:
                _MIDDLES.clear()
            _MIDDLES[key] = middle
        # The body without its closing brace: the line continues with the hash field.
        head = b"".join((
            b'{"seq":', str(seq).encode(), b',"id":', enc(id), b',"ts":', _cached(ts),
            middle, b',"meta":' + enc(meta) if meta else b"", b',"more":',
            str(more).encode(), b',"data":', enc(data),
        ))
    except (UnicodeEncodeError, msgspec.EncodeError, TypeError) as exc:
        raise ValidationError(
            f"event {data.TYPE!r} (seq {seq}) cannot be written as JSON: {exc}; "
            "text must be valid Unicode (no lone surrogates)"
        ) from None
    digest = chain_hash(prev, head, b"}")
    return b"".join((head, b',"hash":"', digest, b'"}')), digest


def encode_record_reference(
    *, seq: int, id: str, ts: str, actor: str, session: str | None, run: str | None,
    causation: str | None, more: int, data: Payload, meta: dict[str, str] | None = None,
) -> bytes:
    """The record body (no hash) as the plain struct encoding gives it: the reference
    :func:`encode_record` must match byte for byte."""
    if meta:
        return _encoder.encode(
            _OutMeta(seq=seq, id=id, ts=ts, type=data.TYPE, v=data.VERSION, actor=actor,
                     session=session, run=run, causation=causation, meta=meta, more=more,
                     data=data))
    return _encoder.encode(
        _Out(seq=seq, id=id, ts=ts, type=data.TYPE, v=data.VERSION, actor=actor,
             session=session, run=run, causation=causation, more=more, data=data)
    )


def body_of(line: bytes) -> bytes:
    """The bytes the hash of ``line`` covers (see module doc)."""
    return line[:-_TAIL] + b"}"


def hash_of_line(line: bytes) -> bytes:
    """The hash stored in ``line`` (without decoding it)."""
    return line[-HASH_HEX - 2 : -2]


def line_hash_ok(prev: bytes, line: bytes) -> bool:
    """Whether ``line`` ends with its hash field and that hash chains it to ``prev``."""
    if len(line) <= _TAIL or line[-_TAIL : -HASH_HEX - 2] != b',"hash":"':
        return False
    # One hash call over one joined buffer: measured faster than feeding the pieces
    # (this runs for every record read).
    body = b"".join((prev, line[:-_TAIL], b"}"))
    digest = hashlib.blake2b(body, digest_size=HASH_HEX // 2).hexdigest().encode()
    return line.endswith(b'"}') and digest == line[-HASH_HEX - 2 : -2]


class Decoder:
    """Decodes journal lines into :class:`Event`, upcasting older payload versions.

    Decoding runs in two steps so that following the chain stays cheap:
    :meth:`envelope` reads the metadata and leaves the payload as raw JSON, and
    :meth:`event` decodes (and upcasts) the payload.  :meth:`decode` does both.
    """

    def __init__(self, registry: Mapping[str, type[Payload]] = REGISTRY) -> None:
        self._registry = registry
        self._envelope = msgspec.json.Decoder(RawRecord)
        self._payloads: dict[str, msgspec.json.Decoder[Any]] = {}
        #: type name -> the newest schema version this decoder reads (a fast known-check).
        self.versions: dict[str, int] = {name: cls.VERSION for name, cls in registry.items()}

    def envelope(self, line: bytes | memoryview) -> RawRecord:
        """The envelope of ``line``.  Raises msgspec errors for a malformed line."""
        return self._envelope.decode(line)

    def check_known(self, rec: RawRecord) -> None:
        """Raise UnknownEventType unless this memoir can decode ``rec``'s payload."""
        cls = self._registry.get(rec.type)
        if cls is None:
            raise UnknownEventType(
                f"seq {rec.seq}: unknown event type {rec.type!r}; it was written by a newer "
                "memoir or a foreign tool; upgrade memoir to read this journal"
            )
        if rec.v > cls.VERSION:
            raise UnknownEventType(
                f"seq {rec.seq}: event type {rec.type!r} has schema v{rec.v} but this memoir "
                f"knows up to v{cls.VERSION}; upgrade memoir to read this journal"
            )

    def _payload_decoder(self, type_name: str) -> msgspec.json.Decoder[Any]:
        dec = self._payloads.get(type_name)
        if dec is None:
            dec = self._payloads[type_name] = msgspec.json.Decoder(self._registry[type_name])
        return dec

    def event(self, rec: RawRecord) -> Event:
        """Decode ``rec``'s payload into an :class:`Event`.

        Raises UnknownEventType, or msgspec.ValidationError / DecodeError when the payload
        does not fit its schema (an upcaster that cannot lift it included).
        """
        self.check_known(rec)
        cls = self._registry[rec.type]
        if rec.v == cls.VERSION:
            data = self._payload_decoder(rec.type).decode(rec.data)
        else:
            envelope = {"id": rec.id, "seq": rec.seq, "ts": rec.ts, "actor": rec.actor}
            raw = msgspec.json.decode(rec.data)
            try:
                lifted = upcast(rec.type, rec.v, cls.VERSION, raw, envelope)
            except (LookupError, TypeError, ValueError) as exc:
                raise msgspec.ValidationError(
                    f"cannot upcast {rec.type} v{rec.v} to v{cls.VERSION}: {exc!r}"
                ) from None
            data = msgspec.convert(lifted, cls)
        return Event(
            seq=rec.seq, id=rec.id, ts=rec.ts, type=rec.type, v=cls.VERSION, actor=rec.actor,
            session=rec.session, run=rec.run, causation=rec.causation, meta=rec.meta,
            more=rec.more, data=data, hash=rec.hash,
        )

    def decode(self, line: bytes | memoryview) -> Event:
        """Decode one line.  Raises msgspec errors for malformed JSON, UnknownEventType."""
        return self.event(self.envelope(line))
