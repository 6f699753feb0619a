"""Encoding records to journal lines and back: determinism, the hash, the envelope."""

from __future__ import annotations

import json

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

import memoir  # noqa: F401  (registers the event types)
from memoir.errors import UnknownEventType, ValidationError
from memoir.events.catalog import REGISTRY
from memoir.events.codec import (
    GENESIS,
    Decoder,
    Forgotten,
    body_of,
    chain_hash,
    encode_record,
    hash_of_line,
    line_hash_ok,
    payload_digest,
    payload_span,
    tombstone,
)
from memoir.events.curator import CuratorRunStarted
from memoir.events.memory import EntryAdded
from memoir.events.types import Draft, Event, Payload
from memoir.testing import memory_drafts, memory_texts


def line_of(data: Payload, *, seq: int = 1, prev: bytes = GENESIS, more: int = 0,
            session: str | None = None) -> tuple[bytes, bytes]:
    return encode_record(seq=seq, id="0" * 32, ts="2026-01-01T00:00:00.000000+00:00",
                         actor="agent", session=session, run=None, causation=None,
                         more=more, data=data, prev=prev)


def test_a_record_line_has_the_documented_envelope_in_order() -> None:
    line, digest = line_of(EntryAdded(target="memory", entry_id="e-1", text="hi"), session="s-1")
    assert list(json.loads(line)) == ["seq", "id", "ts", "type", "v", "actor", "session", "run",
                                      "causation", "more", "data", "hash"]
    assert json.loads(line)["type"] == "memory.entry_added"
    assert json.loads(line)["v"] == 2
    assert json.loads(line)["hash"] == digest.decode()
    assert line.endswith(b',"hash":"' + digest + b'"}')


@given(text=memory_texts())
def test_every_record_is_one_line_whatever_its_text(text: str) -> None:
    line, _ = line_of(EntryAdded(target="user", entry_id="e-1", text=text))
    assert b"\n" not in line and b"\r" not in line
    assert Decoder().decode(line).data == EntryAdded(target="user", entry_id="e-1", text=text)


@given(draft=memory_drafts())
def test_decoding_an_encoded_record_gives_back_the_same_event(draft: Draft) -> None:
    line, digest = encode_record(seq=7, id="a" * 32, ts="2026-01-01T00:00:00.000000+00:00",
                                 actor=draft.actor, session=draft.session, run=draft.run,
                                 causation=draft.causation, more=2, data=draft.data,
                                 prev=b"f" * 32)
    event = Decoder().decode(line)
    assert event.data == draft.data
    assert (event.seq, event.more, event.actor, event.session, event.run, event.causation) == (
        7, 2, draft.actor, draft.session, draft.run, draft.causation)
    assert event.hash == digest.decode()
    assert line_hash_ok(b"f" * 32, line)


def test_equal_payloads_encode_to_equal_bytes_whatever_their_dict_order() -> None:
    one = CuratorRunStarted(run_id="r", inputs={"b": 1, "a": {"y": 2, "x": 3}})
    two = CuratorRunStarted(run_id="r", inputs={"a": {"x": 3, "y": 2}, "b": 1})
    assert line_of(one) == line_of(two)
    assert b'"inputs":{"a":{"x":3,"y":2},"b":1}' in line_of(one)[0]


def test_the_hash_covers_the_envelope_the_payload_digest_and_the_previous_hash() -> None:
    data = EntryAdded(target="memory", entry_id="e-1", text="hi")
    line, digest = line_of(data, prev=b"0" * 32)
    assert hash_of_line(line) == digest
    start, end = payload_span(line)  # type: ignore[misc]
    assert line[start:end] == b'{"target":"memory","entry_id":"e-1","text":"hi"}'
    assert digest == chain_hash(b"0" * 32, line[:start],
                                bytes.fromhex(payload_digest(line[start:end]).decode()), b"}")
    assert line_of(data, prev=b"1" * 32)[1] != digest
    assert not line_hash_ok(b"1" * 32, line)
    assert len(digest) == 32 and int(digest, 16) >= 0


def test_a_payload_replaced_by_its_tombstone_still_chains_and_nothing_else_does() -> None:
    line, digest = line_of(EntryAdded(target="memory", entry_id="e-1", text="a secret"),
                           prev=b"0" * 32)
    start, end = payload_span(line)  # type: ignore[misc]
    forgotten = line[:start] + tombstone(payload_digest(line[start:end])) + line[end:]
    assert b"secret" not in forgotten
    assert line_hash_ok(b"0" * 32, forgotten) and hash_of_line(forgotten) == digest
    event = Decoder().decode(forgotten)
    assert event.type == "memory.entry_added" and event.data == Forgotten(
        digest=payload_digest(line[start:end]).decode())
    # A tombstone with another digest, an altered envelope, an altered payload: refused.
    assert not line_hash_ok(b"0" * 32, line[:start] + tombstone(b"0" * 32) + line[end:])
    assert not line_hash_ok(b"0" * 32, forgotten.replace(b'"actor":"agent"',
                                                         b'"actor":"human"'))
    assert not line_hash_ok(b"0" * 32, line.replace(b"a secret", b"a secreT"))
    assert not line_hash_ok(b"0" * 32, line[:start] + tombstone(b"not hex at all, 32 chars!!!!!!")
                            + line[end:])


def test_a_record_hashed_over_its_whole_body_still_verifies() -> None:
    """Journals written before the payload digest: each record's hash covers its body."""
    line, _ = line_of(EntryAdded(target="memory", entry_id="e-1", text="hi"), prev=b"0" * 32)
    body = line[: line.rindex(b',"hash"')] + b"}"
    old = body[:-1] + b',"hash":"' + chain_hash(b"0" * 32, body) + b'"}'
    assert body_of(old) == body
    assert line_hash_ok(b"0" * 32, old) and not line_hash_ok(b"1" * 32, old)
    assert not line_hash_ok(b"0" * 32, old.replace(b'"hi"', b'"ho"'))


@pytest.mark.parametrize("cut", [1, 2, 10, 34, 35, 43, 44])
def test_a_torn_line_fails_the_hash_check(cut: int) -> None:
    line, _ = line_of(EntryAdded(target="memory", entry_id="e-1", text="hi"))
    assert line_hash_ok(GENESIS, line)
    assert not line_hash_ok(GENESIS, line[:-cut])


def test_a_lone_surrogate_is_refused_with_a_validation_error() -> None:
    with pytest.raises(ValidationError, match=r"memory\.entry_added.*lone surrogates"):
        line_of(EntryAdded(target="memory", entry_id="e-1", text="bad \ud800 text"))


def test_decoding_an_unknown_type_raises_naming_the_seq() -> None:
    line, _ = line_of(EntryAdded(target="memory", entry_id="e-1", text="hi"), seq=4)
    alien = line.replace(b"memory.entry_added", b"memory.entry_pinned")
    with pytest.raises(UnknownEventType, match=r"seq 4: unknown event type 'memory\.entry_pinned'"):
        Decoder().decode(alien)


def test_decoding_a_newer_version_raises_naming_both_versions() -> None:
    line, _ = line_of(EntryAdded(target="memory", entry_id="e-1", text="hi"), seq=4)
    with pytest.raises(UnknownEventType, match="schema v3 but this memoir knows up to v2"):
        Decoder().decode(line.replace(b'"v":2', b'"v":3'))


def test_the_envelope_is_read_without_decoding_the_payload() -> None:
    line, _ = line_of(EntryAdded(target="memory", entry_id="e-1", text="hi"), seq=3, more=1)
    broken = line.replace(b'"target":"memory"', b'"target":42')
    rec = Decoder().envelope(broken)
    assert (rec.seq, rec.more, rec.type) == (3, 1, "memory.entry_added")
    with pytest.raises(msgspec.ValidationError):
        Decoder().event(rec)


def test_a_decoder_with_its_own_registry_knows_only_those_types() -> None:
    line, _ = line_of(EntryAdded(target="memory", entry_id="e-1", text="hi"))
    only = {"memory.entry_added": REGISTRY["memory.entry_added"]}
    assert Decoder(only).decode(line).data.TYPE == "memory.entry_added"
    with pytest.raises(UnknownEventType):
        Decoder({}).decode(line)


@given(draft=memory_drafts(), seq=st.integers(1, 10**12), more=st.integers(0, 10**6),
       meta=st.lists(st.one_of(st.none(), st.text(max_size=20)), min_size=3, max_size=3),
       ident=st.text(min_size=1, max_size=40), ts=st.text(min_size=1, max_size=40))
def test_the_fast_envelope_encoding_equals_the_plain_struct_encoding(
    draft: Draft, seq: int, more: int, meta: list[str | None], ident: str, ts: str
) -> None:
    from memoir.events.codec import body_of, encode_record, encode_record_reference

    fields = dict(seq=seq, id=ident, ts=ts, actor=draft.actor, session=meta[0], run=meta[1],
                  causation=meta[2], more=more, data=draft.data, meta=draft.meta)
    try:
        reference = encode_record_reference(**fields)  # type: ignore[arg-type]
    except (UnicodeEncodeError, msgspec.EncodeError):
        return  # lone surrogates: refused by both, tested elsewhere
    line, _digest = encode_record(**fields, prev=b"")  # type: ignore[arg-type]
    assert body_of(line) == reference


def test_every_copy_of_the_envelope_lists_the_same_fields_in_the_same_order() -> None:
    from memoir.events.codec import RawRecord, _Out, _OutMeta

    # The salt is not a field of the envelope: it heads the payload.
    event = [f for f in Event.__struct_fields__ if f not in ("hash", "salt")]
    assert list(RawRecord.__struct_fields__) == [*event, "hash"]
    assert list(_OutMeta.__struct_fields__) == event
    assert list(_Out.__struct_fields__) == [f for f in event if f != "meta"]
    # Draft carries what a writer chooses; the journal adds seq, more and hash.
    assert set(Draft.__struct_fields__) == set(event) - {"seq", "more", "type", "v"}


def test_a_payload_size_from_the_envelope_gives_the_same_answer() -> None:
    line, _ = line_of(EntryAdded(target="memory", entry_id="e-1", text="hi"), prev=b"0" * 32)
    size = len(Decoder().envelope(line).data)
    start, end = payload_span(line)  # type: ignore[misc]
    assert size == end - start
    for claimed in (size, None, size + 1, 3, 10_000):
        assert line_hash_ok(b"0" * 32, line, claimed)
        assert not line_hash_ok(b"1" * 32, line, claimed)
