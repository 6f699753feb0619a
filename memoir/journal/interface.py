"""The journal interface every backend implements, and what it shares: expectations,
reports, positions, id minting and the expectation check.

A backend implements four methods (:meth:`Journal.head`, :meth:`Journal.read`,
:meth:`Journal.locked`, :meth:`Journal.verify`) and the writer's
:meth:`JournalWriter.stage` / :meth:`JournalWriter.write`.  Everything the engine
needs beyond that — a position to anchor checkpoints to, a cheap "nothing new"
check, recovery on open, repair, a deferred sync for group commit — is part of the
interface too, with defaults that are correct for a simple backend, so the engine
never asks which backend it holds.

What backends really differ in is said by *capabilities*: abstract mixins a backend
inherits when it can do the thing (:class:`LineAccess`, :class:`Loading`,
:class:`Tombstoning`, :class:`SharedBodies`, :class:`Notices`, :class:`Schema`, :class:`Roles`,
:class:`FileBacked`).  Code outside :mod:`memoir.journal` asks ``isinstance(journal,
Tombstoning)`` and never names a backend; the shipped conformance suite has a
``supports_*`` flag for each, so a third-party backend knows what it must pass.

The file journal is in :mod:`memoir.journal.file`, the in-memory one in
:mod:`memoir.journal.memory`, the PostgreSQL one in :mod:`memoir.journal.postgres`;
:func:`memoir.journal.open_journal` picks one by the location's scheme.  All pass
``tests/journal/test_journal_conformance.py``.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal, NamedTuple, Protocol, Self

from memoir.clock import Clock, SystemClock, format_ts
from memoir.errors import ConflictError, ValidationError
from memoir.events.codec import SALT_HEX, Quarantined, encode_record
from memoir.events.keys import AppendSigned
from memoir.events.types import Draft, Event
from memoir.ids import random_hex

if TYPE_CHECKING:
    from memoir.signatures import Signer

__all__ = [
    "Durability",
    "ExpectHead",
    "ExpectUntouched",
    "Expectation",
    "FileBacked",
    "Journal",
    "JournalWriter",
    "LineAccess",
    "Loading",
    "Notices",
    "Position",
    "RecoveryReport",
    "Roles",
    "Schema",
    "SharedBodies",
    "StoredLine",
    "Tombstoning",
    "VerifyReport",
    "check_expectation",
    "mint",
    "mint_records",
    "retried_span",
]


#: How hard an append tries to reach stable storage before it is acknowledged.
Durability = Literal["always", "batch", "never"]


class Position(NamedTuple):
    """Where a record ends: its ``seq``, an ``offset`` meaningful to the backend (a byte
    offset in a file, the seq itself in memory) and the record's ``hash``.

    A checkpoint is saved with the position it was folded from and trusted only if the
    journal confirms it (:meth:`Journal.anchor`).
    """

    seq: int
    offset: int
    hash: str


@dataclass(frozen=True)
class ExpectHead:
    """The append succeeds only if the journal's last seq is still ``seq``."""

    seq: int


@dataclass(frozen=True)
class ExpectUntouched:
    """The append succeeds only if no record after ``after`` touches any of ``entities``."""

    entities: frozenset[str]
    after: int

    def __post_init__(self) -> None:
        # Accept any iterable of keys; a plain str would silently become its characters.
        if isinstance(self.entities, str):
            raise TypeError("ExpectUntouched.entities must be a collection of keys, not a str")
        object.__setattr__(self, "entities", frozenset(self.entities))


Expectation = ExpectHead | ExpectUntouched


@dataclass(frozen=True)
class RecoveryReport:
    """What opening or repairing the journal had to cut, and where the cut bytes went.

    ``reappended`` are the new seqs of the records :meth:`FileJournal.repair` wrote
    again; ``skipped`` the original seqs of records in the cut bytes it did not (damaged,
    part of an append that lost a record, or already in the journal).
    """

    cut_bytes: int
    saved_to: str | None
    kept_head: int
    reappended: tuple[int, ...] = ()
    skipped: tuple[int, ...] = ()


@dataclass(frozen=True)
class VerifyReport:
    """The result of a full check: committed records, the head's hash, and the types seen.

    ``pending_bytes`` counts bytes after the last complete append: a writer mid-append,
    or the torn tail of one that died (cut by the next writer).
    """

    records: int
    head_hash: str
    bytes: int
    types: dict[str, int] = field(default_factory=dict)
    pending_bytes: int = 0
    #: Records that chain but that memoir will not fold (seq -> why): rows another
    #: writer of a shared journal inserted that no memoir writes.
    quarantined: dict[int, str] = field(default_factory=dict)


class JournalWriter(ABC):
    """The view of the journal an append gets while it holds the lock.

    Appends can be staged: :meth:`stage` mints the records of one atomic append (seq,
    id, hash) after everything staged before it, and :meth:`write` writes all staged
    appends with one write and one sync.  That is how concurrent commits share an
    fsync (group commit).  Staged records that are not written when the lock is
    released are dropped; a failed :meth:`write` leaves none of them in the journal.
    """

    @property
    @abstractmethod
    def head(self) -> int:
        """The last seq, fresh (every record of every process is counted), staged included."""

    @abstractmethod
    def stage(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        """Mint ``drafts`` as one atomic append after what is staged; nothing is written yet.

        ``expect`` is checked against the journal plus the appends staged before.  Drafts
        whose ids are already in the journal return the original records and stage nothing.
        """

    @abstractmethod
    def write(self, *, sync: bool = True) -> int | None:
        """Write every staged append in one write and one sync (per the durability policy).

        ``sync=False`` (a hint, honoured by journals that fsync per append): write now,
        sync later.  The return value is then an offset to pass to the journal's
        ``sync_to``, which makes the appends durable and only then gives up the lock
        (the lock outlives the ``locked()`` block until then); None means nothing is
        left to do.  Until ``sync_to`` returns, the appends are not acknowledged.
        """

    def append(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        """Write ``drafts`` as one atomic append and return the records as written."""
        events = self.stage(drafts, expect=expect)
        self.write()
        return events


class Progress(Protocol):
    """Told how a long read of the journal goes: ``phase`` ("checking", "reading",
    "verifying"), records done so far and, when known, in all.  (The CLI shows it on a
    terminal.)"""

    def __call__(self, phase: str, done: int, total: int | None) -> None: ...


class Journal(ABC):
    """An append-only sequence of events.

    Every backend passes the conformance suite in ``tests/journal/test_journal_conformance.py``.
    """

    clock: Clock
    #: Whether the records outlive this object (a file, a database).  Only then does
    #: the engine keep checkpoints of the state folded from it.
    persistent: ClassVar[bool] = False
    #: What kind of journal this is, for people: "memory", "file", "postgresql".
    kind: ClassVar[str] = "memory"
    #: Whether the journal keeps the seals of its appends itself (a database shared by
    #: several homes), each written with its append by :attr:`sealer`; else the home
    #: keeps them beside it (see :mod:`memoir.engine.seals`).
    keeps_seals: ClassVar[bool] = False
    #: Makes the seal line of an append (records first..last, the last's hash) for a
    #: journal that keeps its seals; set by the engine when the home has a key.
    sealer: Callable[[int, int, str], bytes] | None = None
    #: Signs each append (it then ends with a ``journal.signed`` record); set by the
    #: engine when the home has a signing key and the journal's signing is on.
    signer: Signer | None = None

    @abstractmethod
    def head(self) -> int:
        """The last committed seq visible now (0 for an empty journal)."""

    @abstractmethod
    def read(self, after: int = 0, until: int | None = None) -> Iterator[Event]:
        """Committed records with ``after < seq <= until``, in order."""

    def tail_seq(self) -> int:
        """The last committed seq, found as cheaply as the backend can (a file journal
        reads it from the end of the file instead of scanning it)."""
        return self.head()

    def position_after(self, seq: int) -> Position | None:
        """The position of record ``seq`` when the backend already knows it without
        reading (a file journal keeps one every few thousand records it has scanned),
        and ``seq`` ends an append; else None."""
        return None

    def read_family(self, prefix: str, after: int = 0, until: int | None = None
                    ) -> Iterator[Event]:
        """The records of :meth:`read` whose type starts with ``prefix`` (``memory.``):
        a file journal still checks every record's chain but decodes only their
        payloads, which is how a past prompt is rendered without folding everything."""
        return (e for e in self.read(after, until) if e.type.startswith(prefix))

    def read_reverse(self, after: int = 0, until: int | None = None) -> Iterator[Event]:
        """Committed records with ``after < seq <= until``, newest first.

        Backends that can read from their end override this, so that the last few
        records of a long journal cost what they hold, not the whole journal.
        """
        yield from reversed(list(self.read(after, until)))

    @abstractmethod
    def locked(self) -> AbstractContextManager[JournalWriter]:
        """Hold the append lock; the writer appends and sees a fresh head."""

    def quiet(self) -> AbstractContextManager[None]:
        """Wait until no append is under way and keep others from starting meanwhile (a
        read-only handle may ask too): for reading what writers keep beside the journal,
        such as seals, consistently with its head.  Backends whose appends are atomic
        with everything they keep need not wait."""
        return contextlib.nullcontext()

    @abstractmethod
    def verify(self, progress: Progress | None = None) -> VerifyReport:
        """Read every record and check the hash chain; raises JournalCorrupted.
        ``progress`` is told how it goes (phase "verifying")."""

    def append(self, drafts: Sequence[Draft], *, expect: Expectation | None = None) -> list[Event]:
        """Append ``drafts`` atomically (one lock, one write, one fsync).

        Drafts that carry ids already in the journal (a retry of an append that
        went through) return the original records instead of writing again.
        """
        with self.locked() as writer:
            return writer.append(drafts, expect=expect)

    def head_hash(self) -> str:
        """The hash of the last committed record ("" for an empty journal)."""
        return self.position().hash

    def position(self) -> Position:
        """Where the last committed record ends.  By default the offset is the seq."""
        head = self.head()
        for event in self.read(after=head - 1, until=head) if head else ():
            return Position(event.seq, event.seq, event.hash)
        return Position(0, 0, "")

    def anchor(self, seq: int, offset: int, record_hash: str) -> bool:
        """Whether the record ending at ``offset`` is ``seq`` with ``record_hash`` and
        closes its append — the test a checkpoint must pass to be trusted.

        A backend may remember a confirmed anchor to start later reads there.
        """
        if seq == 0:
            return offset == 0 and record_hash == ""
        if offset != seq:
            return False
        for event in self.read(after=seq - 1, until=seq):
            return event.hash == record_hash and event.more == 0
        return False

    def caught_up_to(self, seq: int) -> bool:
        """True only when nothing after ``seq`` can be there to read (a cheap check, no
        I/O).  False is always a safe answer: the caller reads to find out."""
        return False

    def recover(self, *, acknowledged: int = 0) -> RecoveryReport | None:
        """Called once when a home opens: check what an earlier crash may have left and
        cut a torn tail.  Returns what was cut, or None (nothing to do).

        ``acknowledged`` is a seq the home knows was acknowledged (from its checkpoints
        and projected files): a journal that ends before it lost records, so nothing is
        cut then (a backend raises JournalError, or leaves the check to the caller).
        """
        return None

    def repair(self, *, salvage: bool = False) -> RecoveryReport | None:
        """Cut damage out of the journal, keeping the cut records' bytes, and record the
        repair in the journal; ``salvage`` re-appends the whole valid appends found after
        the damage (marked unverified).  None when the journal was sound."""
        return None

    def where(self) -> str:
        """Where the records are, for people (a path, a URL without its password)."""
        return "memory"

    def seal_lines(self) -> list[bytes]:
        """The seals a journal that keeps them holds, in order."""
        raise NotImplementedError(f"{type(self).__name__} keeps no seals")

    def add_seal_lines(self, lines: Sequence[bytes]) -> None:
        """Keep seals made apart from an append (``memoir verify --reseal``, a copy)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no seals")

    def sync_to(self, offset: int) -> None:  # noqa: B027  (optional: most backends sync in write)
        """Make the journal durable up to ``offset``, as returned by a writer's
        ``write(sync=False)``, then give up the lock that write kept."""

    def close(self) -> None:  # noqa: B027  (optional hook: most backends hold nothing)
        """Release resources; flush what the durability policy left unsynced."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- capabilities: what some backends can do and others cannot ------------------------------


class StoredLine(NamedTuple):
    """One record as stored: its ``seq``, the byte ``offset`` of its line in the journal
    file (-1 for a backend that keeps no file) and the ``line`` without its newline, in
    the file journal's format (byte-identical across backends)."""

    seq: int
    offset: int
    line: bytes


class LineAccess(ABC):
    """Capability: the records as their stored lines, each checked against the chain
    (for copying them elsewhere, backing them up, finding text to forget)."""

    @abstractmethod
    def read_lines(self, after: int = 0, until: int | None = None, *,
                   checked: bool = True) -> Iterator[StoredLine]:
        """The stored lines of the records with ``after < seq <= until``, in order.
        ``checked=False``: a backend may skip checking them against the chain (a caller
        that only searches them, and checks what it then uses)."""


class Loading(ABC):
    """Capability: take a whole journal's lines into an empty one (``memoir journal
    copy``), all or nothing."""

    @abstractmethod
    def load_lines(self, lines: Iterable[bytes], *, seals: Sequence[bytes] = ()) -> int:
        """Put ``lines`` (in order, the chain checked as they come) and their ``seals``
        into this journal, which must be empty; how many records were loaded."""


class Tombstoning(ABC):
    """Capability: replace records' payloads by their tombstones in place (``memoir
    forget``), so the content is gone and the chain still verifies."""

    #: Whether records hashed over their whole payload (written before the payload
    #: digest) can be tombstoned: the backend then lists them aside so the chain still
    #: accepts them.
    tombstones_whole_hashed: ClassVar[bool] = False

    def can_forget(self) -> bool:
        """Whether this handle may tombstone (a database role may lack the right)."""
        return True

    @abstractmethod
    def tombstone(self, digests: Mapping[int, str], *,
                  places: Mapping[int, tuple[int, int]] | None = None,
                  bodies: Sequence[str] = ()) -> None:
        """Replace the payload of each record ``seq`` whose payload digest is
        ``digests[seq]`` by its tombstone padded to the same length (a record that holds
        another payload, or one already, is left alone), durably.  ``places``: where each
        payload is ((byte offset, size), from :meth:`LineAccess.read_lines`), when known.
        ``bodies``: the transcript references whose bodies this journal keeps itself
        (:class:`SharedBodies`) to blank in the same step; other backends ignore them."""

    def set_aside(self) -> dict[int, tuple[bytes, bytes]]:
        """The tombstoned records listed aside (seq -> (stored hash, payload digest));
        see :attr:`tombstones_whole_hashed`."""
        return {}


class SharedBodies(ABC):
    """Capability: keep recorded messages' bodies for every home of a shared journal,
    keyed by their transcript reference (which names the bytes' hash)."""

    @abstractmethod
    def put_bodies(self, pairs: Sequence[tuple[str, bytes]]) -> None:
        """Keep each (reference, body); a reference kept already is left as it is."""

    @abstractmethod
    def body(self, ref: str) -> bytes | None:
        """The body kept for ``ref`` (None: none)."""

    @abstractmethod
    def bodies_holding(self, forms: Sequence[bytes]) -> list[str]:
        """The references of the bodies kept, not yet blanked, that hold any of ``forms``."""


class Notices(ABC):
    """Capability: tell a waiting reader that another process committed (instead of
    polling)."""

    @abstractmethod
    def wait_for_append(self, timeout: float) -> bool:
        """Wait at most ``timeout`` seconds for word of a commit; True when told of one."""


class Schema(ABC):
    """Capability: a versioned schema that an older memoir may have made
    (``memoir journal upgrade``)."""

    #: The version the schema was upgraded from when this handle opened it (None: none).
    upgraded_from: int | None = None

    @abstractmethod
    def schema_version(self) -> int:
        """The schema version the store has now."""


class Roles(ABC):
    """Capability: the store grants rights per role (a database): what this handle's
    role may do."""

    @abstractmethod
    def privileges(self) -> dict[str, bool]:
        """``"<table>:<RIGHT>"`` -> whether the role has it, and ``"superuser"``."""


class FileBacked(ABC):
    """Capability: the records are the whole lines of one file (a backup archives it
    byte for byte, up to :meth:`file_end`)."""

    path: Path

    def where(self) -> str:
        return str(self.path)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r})"

    @abstractmethod
    def file_end(self) -> Position:
        """Where the last whole append ends in the file now (its seq, byte offset, hash)."""


def mint(drafts: Sequence[Draft], clock: Clock) -> list[tuple[str, str]]:
    """The id and timestamp of each draft: its own, or new ones.

    The clock is read once per append, so the records of one append share their time.
    """
    if all(d.id and d.ts for d in drafts):
        return [(d.id, d.ts) for d in drafts]
    if isinstance(clock, SystemClock):
        ms, ts = clock.stamp()
    else:
        now = clock.now()
        ms, ts = int(now.timestamp() * 1000), format_ts(now)
    prefix = f"{ms & 0xFFFFFFFFFFFF:012x}"
    # One call for the randomness of every id (same format as memoir.ids.new_id).
    noise = random_hex(10 * len(drafts))
    return [
        (d.id or prefix + noise[20 * i : 20 * i + 20], d.ts or ts)
        for i, d in enumerate(drafts)
    ]


#: Holds the place of a signed append's ``journal.signed`` among its drafts (it is
#: minted last, once the hash it signs is known).
_SIGNATURE = Quarantined(reason="a signature, minted last")


def mint_records(
    appends: Sequence[Sequence[Draft]], after: tuple[int, bytes], clock: Clock,
    signer: Signer | None = None,
) -> tuple[list[bytes], list[Event]]:
    """Encode ``appends`` (each one atomic append) as the records that follow the record
    ``after`` = (seq, hash): their journal lines and events, hash-chained.  With a
    ``signer``, each append ends with its ``journal.signed`` record (see
    :mod:`memoir.projections.screen`)."""
    seq, prev = after
    lines: list[bytes] = []
    events: list[Event] = []
    # The hot loop of a bulk append: per record only encode, hash and build the Event.
    for plain in appends:
        drafts: Sequence[Draft] = plain
        if signer is not None and plain:
            # The signature goes with its append's run and session (a timeline groups it
            # there), written by memoir itself.
            last = plain[-1]
            drafts = [*plain, Draft(data=_SIGNATURE, actor="system",
                                    session=last.session, run=last.run)]
        count = len(drafts)
        first = seq + 1
        salts = os.urandom(SALT_HEX // 2 * count).hex()  # a signature takes none
        for i, (draft, (event_id, ts)) in enumerate(zip(drafts, mint(drafts, clock),
                                                        strict=True)):
            seq += 1
            more = count - 1 - i
            data = draft.data
            if signer is not None and i == len(plain):
                last_hash = prev.decode()
                data = AppendSigned(first=first, hash=last_hash, signer=signer.key,
                                    sig=signer.sign(first, seq - 1, last_hash))
            salt = "" if data is not draft.data else salts[SALT_HEX * i:SALT_HEX * (i + 1)]
            line, prev = encode_record(
                seq=seq, id=event_id, ts=ts, actor=draft.actor, session=draft.session,
                run=draft.run, causation=draft.causation, more=more, data=data, prev=prev,
                meta=draft.meta, salt=salt,
            )
            lines.append(line)
            events.append(
                Event(
                    seq=seq, id=event_id, ts=ts, type=data.TYPE, v=data.VERSION,
                    actor=draft.actor, session=draft.session, run=draft.run,
                    causation=draft.causation, meta=draft.meta or None, more=more, data=data,
                    hash=prev.decode(), salt=salt,
                )
            )
    return lines, events


def retried_span(drafts: Sequence[Draft], existing: Mapping[str, int]) -> int:
    """The first seq of the append ``drafts`` retries, given the seqs of those of its
    ids already in the journal; ValidationError unless it repeats that append exactly."""
    seqs = [existing.get(d.id) for d in drafts]
    first = seqs[0]
    if first is None or seqs != list(range(first, first + len(drafts))):
        raise ValidationError(
            "a retried append must repeat the original append exactly: some of its "
            f"event ids are already in the journal (seq {sorted(existing.values())}) "
            "and some are not, or they are in another order"
        )
    return first


def check_expectation(
    journal: Journal, head: int, expect: Expectation | None, *, pending: Sequence[Event] = ()
) -> None:
    """Raise ConflictError if ``expect`` does not hold at ``head``.

    ``pending``: records staged after the journal's last record (up to ``head``).
    """
    if expect is None:
        return
    if isinstance(expect, ExpectHead):
        if head != expect.seq:
            raise ConflictError(
                f"expected the journal to end at seq {expect.seq}, but it ends at {head}; "
                "re-read the state and try again",
                head=head,
            )
        return
    committed = head - len(pending)
    seen = itertools.chain(journal.read(after=expect.after, until=committed),
                           (e for e in pending if e.seq > expect.after))
    clashes = tuple(
        event.seq for event in seen if expect.entities.intersection(event.entities())
    )
    if clashes:
        shown = ", ".join(map(str, clashes[:10]))
        raise ConflictError(
            f"{len(clashes)} event(s) after seq {expect.after} touch the same entities "
            f"(seq {shown}); re-validate against the current state",
            head=head,
            conflicting=clashes,
        )
