"""Encoding records to journal lines and back, with the hash chain.

The integrity field: ``hash`` is the first 32 hex digits of BLAKE2b over the previous
record's hash (ASCII hex; empty for seq 1), then the record's bytes up to and including
``"data":``, then the *payload digest* (BLAKE2b-128 of the payload's bytes, 16 raw
bytes), then ``}``.  Because the chain holds a digest of the payload rather than the
payload, a payload can be forgotten: replaced by a tombstone ``{"forgotten":"<digest>"}``
carrying its digest (in hex; padded with spaces to the payload's length, so a record
can be forgotten in place), the record still chains, and any other change to it (or to any
record) still breaks every hash after it.  ``hash`` is always the last field and has a
fixed width, and ``data`` the one before it after ``"more":<n>,`` (which no other
field can imitate: every other value before it is a string, or an object of strings),
so a line is split without re-encoding it.

Since 2026-11-28 a payload starts with a random salt, ``{"_s":"<24 hex>",...}`` (96
bits; :data:`SALT_HEAD`), which decoders pass over: the digest a tombstone keeps is of
the salted bytes, and the salt is forgotten with the payload, so a forgotten short text
(a PIN, a name) cannot be found again by hashing guesses.  A record written before then
has no salt; its tombstone's digest can be matched against guesses, and ``memoir forget``
says so.

Records written before the payload digest (journals of memoir before 2026-11-25) were
hashed over their whole body (the line with its last 43 bytes, ``,"hash":"<32 hex>"}``,
replaced by ``}``); they verify as they were written.  Only a record of the digest
chain can be forgotten without changing its hash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, ClassVar

import msgspec

from memoir import lazyre
from memoir.errors import UnknownEventType, ValidationError
from memoir.events.catalog import REGISTRY
from memoir.events.types import Event, Payload
from memoir.events.upcasters import upcast

__all__ = [
    "GENESIS",
    "HASH_HEX",
    "SALT_HEAD",
    "SALT_HEX",
    "Decoder",
    "Forgotten",
    "Quarantined",
    "RawRecord",
    "body_of",
    "chain_hash",
    "encode_record",
    "hash_of_line",
    "line_hash_ok",
    "payload_digest",
    "payload_span",
    "salt_of",
    "salted",
    "tombstone",
    "tombstone_digest",
    "tombstoned_line",
]

HASH_HEX = 32
GENESIS = b""
_TAIL = len(b',"hash":"') + HASH_HEX + len(b'"}')
# Where the payload starts: the first `,"more":<digits>,"data":` (see the module doc).
_DATA = lazyre.compile(rb',"more":\d+,"data":')
_TOMB_HEAD = b'{"forgotten":"'
#: How a salted payload starts (then the salt's hex digits and ``",`` or ``"}``).
SALT_HEAD = b'{"_s":"'
SALT_HEX = 24
_SALT_AT = len(SALT_HEAD)
_SALT_END = _SALT_AT + SALT_HEX
_TOMB_SIZE = len(_TOMB_HEAD) + HASH_HEX + 2
_HEX = frozenset(b"0123456789abcdef")


class Forgotten(Payload, frozen=True, kw_only=True):
    """The payload of a record whose content was forgotten: only its digest is left
    (the record keeps its type, envelope and hash; folds pass over it)."""

    TYPE: ClassVar[str] = "forgotten"
    digest: str


class Quarantined(Payload, frozen=True, kw_only=True):
    """The payload of a record that chains but cannot be folded: it does not decode, its
    type is unknown, or it breaks a rule every honest writer keeps (see
    :mod:`memoir.projections.vetting`).  Such a record is never folded or carried out;
    ``reason`` says why (never the record's content)."""

    TYPE: ClassVar[str] = "quarantined"
    reason: str


def salted(payload: bytes, salt: str) -> bytes:
    """``payload`` (a JSON object's bytes) with ``salt`` as its first member (as is when
    ``salt`` is empty)."""
    if not salt:
        return payload
    head = SALT_HEAD + salt.encode("ascii")
    return head + b'"}' if payload == b"{}" else head + b'",' + payload[1:]


def salt_of(payload: bytes | memoryview) -> str:
    """The salt a payload starts with ("" for none)."""
    view = memoryview(payload)
    if len(view) <= _SALT_END or view[_SALT_END] != 0x22 or view[:_SALT_AT] != SALT_HEAD:
        return ""
    salt = bytes(view[_SALT_AT:_SALT_END])
    return salt.decode("ascii") if _HEX.issuperset(salt) else ""


def payload_digest(payload: bytes) -> bytes:
    """The digest of a payload's bytes that the chain holds (32 hex digits)."""
    return hashlib.blake2b(payload, digest_size=HASH_HEX // 2).hexdigest().encode()


def tombstone(digest: bytes) -> bytes:
    """The payload a forgotten record keeps in place of its content."""
    return _TOMB_HEAD + digest + b'"}'


def _payload_hash(data: bytes) -> bytes:
    """The payload's digest as the chain takes it (16 raw bytes): of ``data``, or the
    one its tombstone carries."""
    if data.startswith(_TOMB_HEAD):
        carried = _tombstone_digest(data)
        if carried is not None:
            return bytes.fromhex(carried.decode())
    return hashlib.blake2b(data, digest_size=HASH_HEX // 2).digest()


def _tombstone_digest(data: bytes) -> bytes | None:
    """The digest a tombstone carries (None: ``data`` is not a tombstone).  A tombstone
    written in place of a longer payload is padded with spaces to its length."""
    data = data.rstrip(b" ")
    if len(data) == _TOMB_SIZE and data.startswith(_TOMB_HEAD) and data.endswith(b'"}'):
        digest = data[len(_TOMB_HEAD):-2]
        if _HEX.issuperset(digest):
            return digest
    return None


def tombstone_digest(line: bytes) -> bytes | None:
    """The digest the tombstone in ``line``'s payload carries (None: no tombstone)."""
    span = payload_span(line)
    return _tombstone_digest(line[span[0]:span[1]]) if span is not None else None


def tombstoned_line(line: bytes, digest: str) -> bytes | None:
    """``line`` with its payload replaced by its tombstone padded to the same length
    (None: it holds one already, or another payload than the one whose digest is
    ``digest``, or one too short to hold a tombstone)."""
    span = payload_span(line)
    if span is None:
        return None
    payload = line[span[0]:span[1]]
    stone = tombstone(digest.encode())
    if payload.rstrip(b" ") == stone or len(stone) > len(payload) or \
            payload_digest(payload).decode() != digest:
        return None
    return line[:span[0]] + stone + b" " * (len(payload) - len(stone)) + line[span[1]:]


def payload_span(line: bytes) -> tuple[int, int] | None:
    """Where the payload of ``line`` lies (start, end), or None for a line that has no
    ``"more":<n>,"data":`` before its hash field."""
    end = len(line) - _TAIL
    match = _DATA.search(line, 0, end)
    return (match.end(), end) if match else None


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
    meta: dict[str, str] | None = None, salt: str = "",
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
        # The envelope up to the payload, then the payload; the line continues with
        # the hash field.
        envelope = b"".join((
            b'{"seq":', str(seq).encode(), b',"id":', enc(id), b',"ts":', _cached(ts),
            middle, b',"meta":' + enc(meta) if meta else b"", b',"more":',
            str(more).encode(), b',"data":',
        ))
        payload = salted(enc(data), salt)
    except (UnicodeEncodeError, msgspec.EncodeError, TypeError) as exc:
        raise ValidationError(
            f"event {data.TYPE!r} (seq {seq}) cannot be written as JSON: {exc}; "
            "text must be valid Unicode (no lone surrogates)"
        ) from None
    digest = chain_hash(prev, envelope, _payload_hash(payload), b"}")
    return b"".join((envelope, payload, b',"hash":"', digest, b'"}')), digest


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


def line_hash_ok(prev: bytes, line: bytes, payload_size: int | None = None) -> bool:
    """Whether ``line`` ends with its hash field and that hash chains it to ``prev``:
    over its payload's digest (or the digest its tombstone carries), or, for a record
    written before the payload digest, over its whole body (see the module doc).
    ``payload_size``: the length of the payload when the caller decoded the envelope
    already (``len(rec.data)``), which saves looking for where it starts."""
    if len(line) <= _TAIL or line[-_TAIL : -HASH_HEX - 2] != b',"hash":"' or \
            not line.endswith(b'"}'):
        return False
    stored = line[-HASH_HEX - 2 : -2]
    end = len(line) - _TAIL
    if payload_size is not None and line[end - payload_size - 8:end - payload_size] == \
            b',"data":':
        start: int | None = end - payload_size
    else:
        match = _DATA.search(line, 0, end)
        start = match.end() if match is not None else None
    if start is not None:
        # Fed in pieces (this runs for every record read: measured faster than joining
        # them here, as the payload is hashed apart anyway).
        hasher = hashlib.blake2b(prev, digest_size=HASH_HEX // 2)
        hasher.update(line[:start])
        hasher.update(_payload_hash(line[start:end]))
        hasher.update(b"}")
        if hasher.hexdigest().encode() == stored:
            return True
    body = b"".join((prev, line[:-_TAIL], b"}"))
    return hashlib.blake2b(body, digest_size=HASH_HEX // 2).hexdigest().encode() == stored


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
        forgotten = _tombstone_digest(bytes(rec.data))
        if forgotten is not None:
            return Event(
                seq=rec.seq, id=rec.id, ts=rec.ts, type=rec.type, v=rec.v, actor=rec.actor,
                session=rec.session, run=rec.run, causation=rec.causation, meta=rec.meta,
                more=rec.more, data=Forgotten(digest=forgotten.decode()), hash=rec.hash)
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
            more=rec.more, data=data, hash=rec.hash, salt=salt_of(rec.data),
        )

    def decode(self, line: bytes | memoryview) -> Event:
        """Decode one line.  Raises msgspec errors for malformed JSON, UnknownEventType."""
        return self.event(self.envelope(line))

    def decode_or_quarantine(self, seq: int, line: bytes) -> Event:
        """Decode a line that chains (its hash was checked) at ``seq``; one whose
        envelope or payload cannot be read, or whose type this memoir does not know,
        comes back as a :class:`Quarantined` record instead of an error, so one bad
        record written by someone else does not stop every reader of a shared journal."""
        try:
            rec = self.envelope(line)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            return _quarantined(seq, "", "unreadable", 1, "?", hash_of_line(line).decode(),
                                f"not a record: {_why(exc)}")
        if rec.seq != seq:
            return _quarantined(seq, rec.id, rec.type, rec.v, rec.actor, rec.hash,
                                f"the row at seq {seq} holds record {rec.seq}")
        try:
            return self.event(rec)
        except UnknownEventType:
            known = self.versions.get(rec.type)
            why = f"unknown event type {rec.type!r}" if known is None else \
                f"{rec.type} v{rec.v}, newer than this memoir's v{known}"
            return _quarantined(seq, rec.id, rec.type, rec.v, rec.actor, rec.hash,
                                f"{why} (a newer memoir's, or forged)")
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            return _quarantined(seq, rec.id, rec.type, rec.v, rec.actor, rec.hash,
                                f"not a valid {rec.type} record: {_why(exc)}")


def _why(exc: Exception) -> str:
    return " ".join(str(exc).split())[:200]


def _quarantined(seq: int, rid: str, rtype: str, v: int, actor: str, rhash: str,
                 reason: str) -> Event:
    return Event(seq=seq, id=rid, ts="", type=rtype[:100], v=v, actor=actor[:100],
                 data=Quarantined(reason=reason), hash=rhash)
