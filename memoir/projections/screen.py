"""The screen in front of the fold: on a signed journal, only appends a trusted key
signed are folded.

Reads are screened an append at a time (the records up to the one whose ``more`` is 0;
a signed append's last record is its ``journal.signed``).  Before signing is on, every
append passes, except one that turns it on: it must be signed by the owner key it names,
and name the owner the home pinned if it pinned one (``KeysState.pinned``); and except
a signed append or a registry change, which no honest home makes before then.
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
from memoir.events.types import Event, Payload
from memoir.projections.keys import KeysState

__all__ = ["judge", "needs", "screened"]

#: The right each kind of destructive record needs from its signer.
_NEEDS = {ContentForgotten: "forget", KeyTrusted: "trust", KeyRevoked: "trust"}


def screened(events: Iterable[Event], keys: KeysState, until: int | None = None,
             rest: Callable[[int], Iterable[Event]] | None = None) -> Iterator[Event]:
    """``events`` (a read of the journal), each append judged by :func:`judge` against
    ``keys`` — the registry of the state the caller folds the events into, as it folds
    them.  ``until``: stop after that seq.  ``rest``: reads the journal after a seq, for
    the end of an append ``events`` cut short (a read that stops at ``until`` inside an
    append: its signature comes last)."""
    it = iter(events)
    for event in it:
        if until is not None and event.seq > until:
            return
        if not keys.since and event.more == 0 and type(event.data) is not KeyTrusted:
            yield event  # signing is off and this append cannot turn it on
            continue
        # An append ends at its signature whatever the records before it announce: a
        # forged row announcing more records cannot draw an honest append into its own.
        batch = [event]
        while batch[-1].more > 0 and not isinstance(batch[-1].data, AppendSigned):
            nxt = next(it, None)
            if nxt is None:
                if rest is None:
                    break
                it, rest = iter(rest(batch[-1].seq)), None
                nxt = next(it, None)
                if nxt is None:
                    break
            batch.append(nxt)
        reasons = judge(batch, keys)
        sig = batch[-1].data
        if keys.since and isinstance(sig, AppendSigned):
            for record, reason in zip(batch, reasons, strict=True):
                if record.run and reason is None:
                    keys.runs.setdefault(record.run, sig.signer)
        for record, reason in zip(batch, reasons, strict=True):
            if until is not None and record.seq > until:
                return
            yield record if reason is None or isinstance(record.data, Quarantined) \
                else _quarantined(record, reason)


def _quarantined(event: Event, reason: str) -> Event:
    return msgspec.structs.replace(event, data=Quarantined(reason=reason))


def judge(batch: Sequence[Event], keys: KeysState) -> list[str | None]:
    """Why each record of ``batch`` (the records of the journal up to and including a
    ``journal.signed`` or a record that closes its append) must not be folded under the
    registry ``keys`` (None: fold it).  A signature vouches for the records from its
    first seq on; a record before that, in a batch a forged row drew it into, is
    judged as unsigned."""
    if keys.since and batch[-1].seq < keys.since:
        return [None] * len(batch)  # written before signing was turned on
    sig = batch[-1].data
    end = batch[-1].seq
    covered = [not isinstance(sig, AppendSigned) or e.seq >= sig.first or e.seq == end
               for e in batch]
    reason = _covered(batch, keys, covered)
    unsigned = f"unsigned (signing is on since seq {keys.since})" if keys.since else None
    return [reason if inside else unsigned for inside in covered]


def _covered(batch: Sequence[Event], keys: KeysState, covered: Sequence[bool]) -> str | None:
    """Why the records of ``batch`` its signature covers (all of them, when it ends
    unsigned) must not be folded (None: fold them)."""
    mine = [e for e, inside in zip(batch, covered, strict=True) if inside]
    broken = next((e.seq for e in mine if isinstance(e.data, Quarantined)), None)
    if broken is not None:
        return f"in an append with a record that cannot be folded (seq {broken})"
    if mine[-1].more and not isinstance(mine[-1].data, AppendSigned):
        return f"an append cut short (its record at seq {mine[-1].seq} says more follow)"
    sig = mine[-1].data
    first = mine[0].seq
    if not keys.since or first <= keys.since <= mine[-1].seq:
        owner = next((e.data for e in mine
                      if isinstance(e.data, KeyTrusted) and e.data.owner), None)
        if owner is None:
            # No honest home signs before signing is on: a signed append here answers to
            # an owner record this home quarantined (one not naming its pinned owner).
            if isinstance(sig, AppendSigned):
                return (f"signed by key {signatures.short(sig.signer)} before signing was "
                        f"turned on by the owner this home folds")
            change = next((e for e in mine if isinstance(e.data, KeyTrusted | KeyRevoked)),
                          None)
            if change is not None:  # the registry is the owner's: none before it exists
                return (f"a {change.type} at seq {change.seq} before signing is on (only "
                        f"the journal's owner changes the key registry)")
            return None
        if not isinstance(sig, AppendSigned) or sig.signer != owner.key:
            return (f"an owner key record at seq {first} not signed by the key it "
                    f"names ({signatures.short(owner.key)})")
        if keys.pinned and owner.key != keys.pinned:
            return (f"an owner key record at seq {first} naming key "
                    f"{signatures.short(owner.key)}, not the owner this home pinned "
                    f"({signatures.short(keys.pinned)})")
        return _signature(batch, sig)
    if not isinstance(sig, AppendSigned):
        return f"unsigned (signing is on since seq {keys.since})"
    problem = _signature(batch, sig)
    if problem is not None:
        return problem
    if keys.trusted_at(sig.signer, sig.first) is None:
        return f"signed by key {signatures.short(sig.signer)}, not trusted at seq {sig.first}"
    for event in mine:
        right = needs(event.data, sig.signer, keys)
        if right is not None and not keys.may(sig.signer, right):
            return (f"a {event.type} at seq {event.seq} signed by key "
                    f"{signatures.short(sig.signer)}, which may not {right}")
    return None


def needs(data: Payload, signer: str, keys: KeysState) -> str | None:
    """The right ``signer`` needs to sign a record of ``data`` beyond appending (None:
    none)."""
    if isinstance(data, RunReverted):
        other = keys.runs.get(data.reverted_run)
        return "revert" if other is not None and other != signer else None
    return _NEEDS.get(type(data))


def _signature(batch: Sequence[Event], sig: AppendSigned) -> str | None:
    """Why the ``journal.signed`` ending ``batch`` does not vouch for the records from
    its first seq to the one before it (None: it does).  A read that began inside the
    append holds only the end of that range; the chain vouches for the rest."""
    if len(batch) < 2:
        return "a signature that covers no record"
    last = batch[-2]
    if sig.first > last.seq or sig.hash != last.hash:
        return f"a signature at seq {batch[-1].seq} made for other records"
    if not signatures.verify(sig.signer, sig.sig, sig.first, last.seq, sig.hash):
        return (f"a signature at seq {batch[-1].seq} that does not check against key "
                f"{signatures.short(sig.signer)}")
    return None
