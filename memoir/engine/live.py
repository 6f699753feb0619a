"""The live state: the state folded from the journal, kept caught up, with checkpoints.

Opening loads the newest checkpoint the journal vouches for (:meth:`Journal.anchor`)
and folds only the records after it.  :meth:`LiveState.catch_up` folds what other
processes appended since; :meth:`LiveState.view` is an independent copy at any seq,
started from the nearest checkpoint at or before it.  Checkpoints are kept only for a
journal that outlives the process (``Journal.persistent``).

Everything here runs under :attr:`LiveState.mutex` (re-entrant), which the commit path
holds while it decides, stages and folds; readers of :attr:`LiveState.state` treat it
as read-only.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Protocol

from memoir.engine import memory_snapshots
from memoir.engine.checkpoints import CheckpointStore
from memoir.engine.memory_snapshots import KeptMarks, MemorySnapshot, MemorySnapshots
from memoir.errors import NotFoundError
from memoir.events.types import Event
from memoir.journal import Journal
from memoir.journal.interface import Progress
from memoir.logs import get_logger
from memoir.projections.keys import KeysState
from memoir.projections.memory import fold_past
from memoir.projections.screen import screened
from memoir.projections.state import State

__all__ = ["Listener", "LiveState", "Progress"]

log = get_logger("memoir.engine")

# Catch-up tells its listener about events in chunks of this many, so a long catch-up
# never holds every event at once.
_CHUNK = 1024


#: How often (in events) a long catch-up reports its progress.
_PROGRESS_EVERY = 8192


class Listener(Protocol):
    """Who hears about the events catch-up folds (the engine's followers)."""

    def folded(self, events: Sequence[Event]) -> None: ...

    def advanced(self, *, committed: bool) -> None: ...

    def reset(self) -> None: ...


class LiveState:
    """The caught-up state of one handle (see the module docstring)."""

    def __init__(
        self,
        journal: Journal,
        checkpoints: CheckpointStore | None,
        *,
        checkpoint_every: int = 10_000,
        listener: Listener | None = None,
        save_checkpoints: bool = True,
        pinned: str = "",
    ) -> None:
        self.journal = journal
        #: The owner key this home pinned ("": none): every fold judges the record that
        #: turns signing on by it (:attr:`KeysState.pinned`).
        self.pinned = pinned
        #: Memory snapshots beside the checkpoints, for past prompts (None: none kept).
        self.snapshots = MemorySnapshots(
            checkpoints.place.beside("memory"), key=checkpoints.key,
            readonly=not save_checkpoints) if checkpoints is not None and journal.persistent \
            else None
        self.last_snapshot = 0
        #: (seq read up to, marks) of :meth:`forgotten_marks`.
        self._marks: tuple[int, dict[int, tuple[str, str, str]]] = (0, {})
        self.checkpoints = checkpoints if journal.persistent else None
        #: False for a home opened to read: checkpoints are used, never written.
        self.save_checkpoints = save_checkpoints
        self.checkpoint_every = checkpoint_every
        self.listener = listener
        self.mutex = threading.RLock()
        #: Told how a long catch-up goes (None: nobody is listening).
        self.progress: Progress | None = None
        #: The seq of the last checkpoint saved or loaded.
        self.last_checkpoint = 0
        self.state = self._initial()
        self.last_snapshot = self.state.seq

    def _initial(self) -> State:
        state = self._from_checkpoint(None)
        if state is not None:
            self.last_checkpoint = state.seq
            return state
        return self.empty()

    def empty(self) -> State:
        """A state before the first record, judging appends by this home's pin."""
        return State(keys=KeysState(pinned=self.pinned))

    def _from_checkpoint(self, at_most: int | None) -> State | None:
        """The newest checkpoint at or before ``at_most`` that the journal vouches for."""
        if self.checkpoints is None:
            return None
        for seq in self.checkpoints.best(at_most=at_most):
            cp = self.checkpoints.load(seq, replay=self.replay_to)
            if cp is not None and cp.state.keys.pinned != self.pinned:
                continue  # folded under another pin: it may have folded another owner
            if cp is not None and self.journal.anchor(cp.seq, cp.offset, cp.hash):
                return cp.state
            if at_most is None:
                log.warning("checkpoint.ignored", seq=seq, reason="does not match the journal")
        return None

    def _rest(self, seq: int) -> Iterator[Event]:
        """The journal after ``seq``: the end of an append a bounded read cut short."""
        return self.journal.read(after=seq)

    def replay_to(self, seq: int) -> State:
        """The state at ``seq`` folded from the first record."""
        return self.empty().fold(self.journal.read(until=seq), until=seq, rest=self._rest)

    def catch_up(self) -> int:
        """Fold what was appended since this handle last looked; how many events."""
        journal = self.journal
        if journal.caught_up_to(self.state.seq):
            return 0  # under our own journal lock with nothing new: nothing to read
        with self.mutex:
            listener = self.listener
            progress = self.progress
            total: int | None = None
            if progress is not None:
                progress("checking", 0, None)
                total = journal.head() - self.state.seq  # the chain is checked here
            # Fold while reading: a long catch-up must not hold every event in memory.
            fresh = 0
            chunk: list[Event] = []
            taken: list[MemorySnapshot] = []
            for event in screened(journal.read(after=self.state.seq), self.state.keys):
                self.state.apply(event)
                fresh += 1
                if event.seq % memory_snapshots.EVERY == 0 and event.more == 0:
                    taken.append(self._memory_at(event.seq))
                if progress is not None and fresh % _PROGRESS_EVERY == 0:
                    progress("reading", fresh, total)
                if listener is not None:
                    chunk.append(event)
                    if len(chunk) >= _CHUNK:
                        listener.folded(chunk)
                        chunk = []
            if fresh:
                if listener is not None:
                    listener.folded(chunk)
                    listener.advanced(committed=False)
                self.maybe_checkpoint()
                self._keep(taken)
            return fresh

    def _memory_at(self, seq: int) -> MemorySnapshot:
        """The memory of the state being folded, now at ``seq`` (position filled in
        later, once the journal knows it)."""
        return MemorySnapshot(seq=seq, offset=0, hash="", memory=self.state.memory.copy())

    def _keep(self, taken: Sequence[MemorySnapshot]) -> None:
        """Save the snapshots taken while folding whose positions the journal knows."""
        if self.snapshots is None or not self.save_checkpoints:
            return
        for snap in taken:
            if self.snapshots.has(snap.seq):
                continue
            where = self.journal.position_after(snap.seq)
            if where is not None:
                snap.offset, snap.hash = where.offset, where.hash
                self.snapshots.save(snap)
                self.last_snapshot = max(self.last_snapshot, snap.seq)

    def snapshot_if_due(self) -> None:
        """After a commit: keep the memory at the head when it has moved
        ``memory_snapshots.EVERY`` records past the last snapshot."""
        if self.snapshots is None or not self.save_checkpoints or \
                self.state.seq - self.last_snapshot < memory_snapshots.EVERY:
            return
        with self.mutex:
            seq, offset, record_hash = self.journal.position()
            if seq != self.state.seq or record_hash != self.state.hash:
                return
            self.snapshots.save(MemorySnapshot(seq=seq, offset=offset, hash=record_hash,
                                               memory=self.state.memory.copy()))
            self.last_snapshot = seq

    def maybe_checkpoint(self, force: bool = False) -> None:
        """Under the mutex: save a checkpoint if ``checkpoint_every`` seqs have passed."""
        if self.checkpoints is None or not self.save_checkpoints:
            return
        if not force and self.state.seq - self.last_checkpoint < self.checkpoint_every:
            return
        seq, offset, record_hash = self.journal.position()
        if seq != self.state.seq or record_hash != self.state.hash:
            return
        self.checkpoints.save(self.state, offset)
        self.last_checkpoint = seq

    def checkpoint_if_due(self) -> None:
        """After a commit, outside the journal lock (other writers need not wait): a
        checkpoint, or a memory snapshot, when one is due."""
        if self.state.seq - self.last_checkpoint >= self.checkpoint_every:
            with self.mutex:
                self.maybe_checkpoint()
        self.snapshot_if_due()

    def view(self, seq: int | None = None) -> State:
        """An independent copy of the state at ``seq`` (default: the head)."""
        with self.mutex:
            self.catch_up()
            if seq is None or seq == self.state.seq:
                return self.state.copy()
            if seq < 0 or seq > self.state.seq:
                raise NotFoundError(f"seq {seq} is not in the journal (head is {self.state.seq})")
        state = self._from_checkpoint(seq) or self.empty()
        return state.fold(self.journal.read(after=state.seq, until=seq), until=seq,
                          rest=self._rest)

    def memory_view(self, seq: int) -> State:
        """A state whose *memory* is as of ``seq`` (its other parts are not: only for
        reading MEMORY and USER, e.g. a past session's prompt): the nearest checkpoint
        at or before ``seq``, then only the ``memory.*`` records after it are decoded and
        folded (every record's chain is still checked)."""
        with self.mutex:
            self.catch_up()
            if seq < 0 or seq > self.state.seq:
                raise NotFoundError(f"seq {seq} is not in the journal (head is {self.state.seq})")
            signing = self.state.keys.signing
        if signing or self.pinned:  # appends are judged whole, not record by record
            return self.view(seq)
        marks = self.forgotten_marks()
        # A checkpoint or snapshot past a forgotten record was folded without its mark:
        # start before the first one this view holds.
        base = min((s for s in marks if s <= seq), default=seq + 1) - 1
        snap = self.snapshots.best(base) if self.snapshots is not None else None
        if snap is not None and not self.journal.anchor(snap.seq, snap.offset, snap.hash):
            snap = None
        # A snapshot at or past the newest checkpoint saves decoding that checkpoint (a
        # whole state: tens of milliseconds on a long journal) for its memory alone.
        newest = self.checkpoints.best(at_most=base)[:1] if self.checkpoints else []
        if snap is not None and (not newest or snap.seq >= newest[0]):
            state = State(memory=snap.memory, seq=snap.seq)
        else:
            state = self._from_checkpoint(base) or self.empty()
            if snap is not None and snap.seq > state.seq:
                state = State(memory=snap.memory, seq=snap.seq)
        fold_past(state, self.journal.read_family("memory.", after=state.seq, until=seq), marks)
        state.seq = seq
        return state

    def forgotten_marks(self) -> dict[int, tuple[str, str, str]]:
        """seq -> (target, entry id, kind) of every forgotten memory record, from the
        ``journal.forgotten`` records (read once, then only what was appended since)."""
        with self.mutex:
            seen, marks = self._marks
            head = self.state.seq
            if seen == 0 and self.snapshots is not None:
                # What an earlier process read, if the journal still vouches for it.
                kept = self.snapshots.marks()
                if kept is not None and 0 < kept.seq <= head and \
                        self.journal.anchor(kept.seq, kept.offset, kept.hash):
                    seen, marks = kept.seq, dict(kept.marks)
            if head > seen:
                start = seen
                for event in self.journal.read_family("journal.forgotten", after=seen,
                                                      until=head):
                    for mark in getattr(event.data, "marks", ()):
                        seq, target, entry_id, kind = mark.split(":")
                        marks[int(seq)] = (target, entry_id, kind)
                seen = head
                if head - start >= memory_snapshots.EVERY:
                    self._keep_marks(head, marks)
            self._marks = (seen, marks)
            return dict(marks)

    def _keep_marks(self, seq: int, marks: dict[int, tuple[str, str, str]]) -> None:
        if self.snapshots is None or not self.save_checkpoints:
            return
        where = self.journal.position_after(seq)
        if where is None:  # not an index point: the tail, if it still is
            where = self.journal.position()
            if where.seq != seq:
                return
        self.snapshots.save_marks(KeptMarks(seq=seq, offset=where.offset, hash=where.hash,
                                            marks=dict(marks)))

    def reload(self) -> None:
        """Throw the state away and fold it again from the journal (after a failure left
        it ahead of what was written); the listener is told to assume nothing."""
        with self.mutex:
            self.last_checkpoint = 0
            listener, self.listener = self.listener, None
            try:
                self.state = self._initial()
                self.catch_up()
            finally:
                self.listener = listener
            if listener is not None:
                listener.reset()

    def refold(self) -> None:
        """Fold the whole journal from its first record (rebuild, repair): checkpoints
        are not consulted, and the listener is told to assume nothing."""
        with self.mutex:
            self.state = self.empty()
            taken = []
            for event in screened(self.journal.read(), self.state.keys):
                self.state.apply(event)
                if event.seq % memory_snapshots.EVERY == 0 and event.more == 0:
                    taken.append(self._memory_at(event.seq))
            self._keep(taken)
            if self.listener is not None:
                self.listener.reset()
