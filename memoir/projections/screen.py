"""The screen in front of the fold: on a signed journal, only appends a trusted key
signed are folded.

Reads are screened an append at a time (the records up to the one whose ``more`` is 0;
a signed append's last record is its ``journal.signed``).  Before signing is on, every
append passes, except one that turns it on: it must be signed by the owner key it names.
Once it is on, an append is folded only when:

- it ends with a ``journal.signed`` whose first seq and chain hash are the append's own,
- whose signature checks against its signer's public key,
- whose signer the registry trusts at the append's first seq,
- and whose signer holds the rights its records need: ``forget`` for
  ``journal.forgotten``, ``trust`` for a registry change, ``revert`` for a revert of a
  run another key signed (the owner holds every right).

Any other append is *quarantined* whole (an append is atomic: honest writers never make
half of one): each of its records reaches the fold as a
:class:`~memoir.events.codec.Quarantined` payload naming why, and the vetting step leaves
it out.  The screen reads the registry from the state being folded, which the caller
folds as it goes, so each append is judged by the keys trusted when it was written
(a registry read later answers the same for trust and revocation, which keep their
seqs: that is how a forget is checked again before it is carried out).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

import msgspec

from memoir import signatures
from memoir.events.codec import Quarantined
from memoir.events.forget import ContentForgotten
from memoir.events.keys import AppendSigned, KeyRevoked, KeyTrusted
from memoir.events.runs import RunReverted
from memoir.events.types import Event
from memoir.projections.keys import KeysState

__all__ = ["DESTRUCTIVE", "judge", "needs", "screened"]

#: The right each kind of destructive record needs from its signer.
_NEEDS = {ContentForgotten: "forget", KeyTrusted: "trust", KeyRevoked: "trust"}
#: The payload types that may need a right beyond appending (:func:`needs`).
DESTRUCTIVE = frozenset({*_NEEDS, RunReverted})


def screened(events: Iterable[Event], keys: KeysState, until: int | None = None,
             rest: Callable[[int], Iterable[Event]] | None = None) -> Iterator[Event]:
    """``events`` (a read of the journal from an append's start), each append judged
    by :func:`judge` against ``keys`` — the registry of the state the caller folds the
    events into, as it folds them.  ``until``: stop after that seq.  ``rest``: reads
    the journal after a seq, for the end of an append ``events`` cut short (a read
    that stops at ``until`` inside an append: its signature comes last)."""
    it = iter(events)
    for event in it:
        if until is not None and event.seq > until:
            return
        if not keys.since and event.more == 0 and type(event.data) is not KeyTrusted:
            yield event  # signing is off and this append cannot turn it on
            continue
        batch = [event]
        while batch[-1].more > 0:
            nxt = next(it, None)
            if nxt is None:
                if rest is None:
                    break
                it, rest = iter(rest(batch[-1].seq)), None
                nxt = next(it, None)
                if nxt is None:
                    break
            batch.append(nxt)
        reason = judge(batch, keys)
        if reason is None and keys.since and isinstance(batch[-1].data, AppendSigned):
            signer = batch[-1].data.signer
            for record in batch:
                if record.run:
                    keys.runs.setdefault(record.run, signer)
        for record in batch:
            if until is not None and record.seq > until:
                return
            yield record if reason is None or isinstance(record.data, Quarantined) \
                else _quarantined(record, reason)


def _quarantined(event: Event, reason: str) -> Event:
    return msgspec.structs.replace(event, data=Quarantined(reason=reason))


def judge(batch: Sequence[Event], keys: KeysState) -> str | None:
    """Why the append ``batch`` must not be folded under the registry ``keys`` (None:
    fold it)."""
    broken = next((e.seq for e in batch if isinstance(e.data, Quarantined)), None)
    if broken is not None:
        return f"in an append with a record that cannot be folded (seq {broken})"
    first = batch[0].seq
    if batch[-1].more:
        return f"an append cut short (its record at seq {batch[-1].seq} says more follow)"
    sig = batch[-1].data
    if keys.since and first < keys.since:
        return None  # written before signing was turned on
    if not keys.since or first == keys.since:
        owner = next((e.data for e in batch
                      if isinstance(e.data, KeyTrusted) and e.data.owner), None)
        if owner is None:
            return None
        if not isinstance(sig, AppendSigned) or sig.signer != owner.key:
            return (f"an owner key record at seq {first} not signed by the key it "
                    f"names ({signatures.short(owner.key)})")
        return _signature(batch, sig)
    if not isinstance(sig, AppendSigned):
        return f"unsigned (signing is on since seq {keys.since})"
    problem = _signature(batch, sig)
    if problem is not None:
        return problem
    if keys.trusted_at(sig.signer, first) is None:
        return f"signed by key {signatures.short(sig.signer)}, not trusted at seq {first}"
    for event in batch:
        right = needs(event, sig.signer, keys)
        if right is not None and not keys.may(sig.signer, right):
            return (f"a {event.type} at seq {event.seq} signed by key "
                    f"{signatures.short(sig.signer)}, which may not {right}")
    return None


def needs(event: Event, signer: str, keys: KeysState) -> str | None:
    """The right ``signer`` needs to sign ``event`` beyond appending (None: none)."""
    data = event.data
    if isinstance(data, RunReverted):
        other = keys.runs.get(data.reverted_run)
        return "revert" if other is not None and other != signer else None
    return _NEEDS.get(type(data))


def _signature(batch: Sequence[Event], sig: AppendSigned) -> str | None:
    """Why the ``journal.signed`` ending ``batch`` does not vouch for it (None: it does)."""
    if len(batch) < 2:
        return "a signature that covers no record"
    last = batch[-2]
    if sig.first != batch[0].seq or sig.hash != last.hash:
        return f"a signature at seq {batch[-1].seq} made for other records"
    if not signatures.verify(sig.signer, sig.sig, sig.first, last.seq, sig.hash):
        return (f"a signature at seq {batch[-1].seq} that does not check against key "
                f"{signatures.short(sig.signer)}")
    return None
