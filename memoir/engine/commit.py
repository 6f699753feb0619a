"""The commit path: decide against the fresh state under the journal lock, append, fold.

Every change goes through :meth:`CommitQueue.run`: under the journal lock it catches up
with what other processes appended, lets a pure ``decide`` function look at that fresh
state, stages the events it returns, writes them with one write and folds them.

Commits from several threads are grouped (group commit).  They queue; one thread at a
time, the leader, takes every queued commit and runs them in order, each deciding
against the state the ones before it left (so two adds racing for the last 200 chars
of budget cannot both land), writes them with one write, syncs once (holding the
journal lock, but not the state mutex, so readers need not wait for the disk), and
wakes each committer.  Then the lead passes to the first commit that queued
meanwhile, whose batch holds everyone who arrived during the sync.  Like PostgreSQL's
``commit_delay``, a new leader whose queue is shorter than its last batch waits up to
0.5 ms for those committers to come back; a lone writer never waits.  A decide that
raises or an expectation that fails fails only its own commit.  (Passing the lead
before the sync, so the next batch is decided while this one syncs, was measured and
rejected: under the GIL it made many batches of one.)

Every commit says who makes it with a :class:`Caller`: the actor, the session and run
its records belong to, the caller's own facts (``meta``: the MCP client behind a
session, the Hermes tool call behind a mirrored write), and, for a run that starts with
this commit, its kind and summary: the commit path puts ``run.started`` first in the
first append of a run that lands, so no command has to look for it.
"""

from __future__ import annotations

import collections
import contextlib
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from memoir.engine.live import LiveState
from memoir.events.runs import RunStarted
from memoir.events.types import Draft, Event, Payload
from memoir.journal import Expectation, JournalWriter
from memoir.projections.state import State

__all__ = ["Caller", "CommitQueue", "Decision", "Pending", "Prelude"]

T = TypeVar("T")
# How long a group-commit leader waits for the last batch's committers (seconds).
GATHER_SECONDS = 0.0005


@dataclass(frozen=True)
class Caller:
    """Who makes a commit, and where its records go (see the module docstring).

    ``run_kind``: when set, the first commit of run ``run`` that lands starts it (a
    ``run.started`` of that kind, first in the same append), with ``run_summary`` or
    else the decision's own ``summary``.
    """

    actor: str
    session: str | None = None
    run: str | None = None
    run_kind: str | None = None
    run_summary: str | None = None
    causation: str | None = None
    #: The caller's own facts, carried as the ``meta`` of every record it writes.
    meta: Mapping[str, str] | None = None

    @classmethod
    def of(cls, by: Caller | str) -> Caller:
        """``by``, an actor's name standing for a caller of no session or run."""
        return by if isinstance(by, Caller) else cls(actor=by)


@dataclass
class Decision(Generic[T]):
    """What a command decided: the events to append and the result to hand back."""

    events: list[Payload] = field(default_factory=list)
    result: T = None  # type: ignore[assignment]
    expect: Expectation | None = None
    #: The summary of the run this commit starts, when the caller gave none.
    summary: str | None = None


class Prelude(Protocol):
    """Events that go first in an append when the state calls for them (the configured
    memory limits, see :mod:`memoir.engine.limits`)."""

    def events(self, state: State, payloads: Sequence[Payload] = ()) -> list[Payload]: ...

    def deciding(self, state: State, prelude: Sequence[Payload]
                 ) -> AbstractContextManager[None]: ...


class Pending(Generic[T]):
    """One commit waiting in the queue, and what became of it.

    ``then`` is called with the live state right after this commit's events are folded
    (before any later commit of the same batch lands), and its value becomes the result.
    """

    __slots__ = ("by", "decide", "done", "error", "events", "expect", "result", "then",
                 "wake")

    def __init__(
        self,
        decide: Callable[[State], Decision[Any]],
        by: Caller | str,
        expect: Expectation | None = None,
        *,
        then: Callable[[State, Any], T] | None = None,
    ) -> None:
        self.decide = decide
        self.by = Caller.of(by)
        self.expect = expect
        self.then = then
        self.events: list[Event] = []
        self.result: T = None  # type: ignore[assignment]
        self.error: BaseException | None = None
        self.done = False
        # Held from the start; released exactly once to wake the committing thread.
        self.wake = threading.Lock()
        self.wake.acquire()


class CommitQueue:
    """The commit path of one handle (see the module docstring).

    ``prelude`` puts events first in an append when the state calls for them (None:
    never); ``written(events)`` is called under the state mutex once a batch's events
    are written to the journal (not yet synced).
    """

    def __init__(
        self,
        live: LiveState,
        prelude: Prelude | None = None,
        *,
        written: Callable[[Sequence[Event]], None] = lambda _events: None,
        before: Callable[[State, Sequence[Draft]], None] | None = None,
    ) -> None:
        self.live = live
        #: Called under the journal lock with the live state before a commit's events
        #: are staged (the engine sets the journal's signer there); raising fails it.
        self.before = before
        self.journal = live.journal
        self.prelude = prelude
        self.written = written
        self._queue: collections.deque[Pending[Any]] = collections.deque()
        self._queue_lock = threading.Lock()
        self._gather = threading.Condition(self._queue_lock)
        #: How many commits the last batch held.
        self.last_batch = 1
        self._leading = False
        self._in_batch = threading.local()

    def run(self, pending: Pending[Any]) -> None:
        """Commit ``pending`` (grouped with whatever else is queued); raise its error."""
        if getattr(self._in_batch, "active", False):
            raise RuntimeError("Memoir.commit called from inside a decide function")
        with self._queue_lock:
            self._queue.append(pending)
            lead = not self._leading
            self._leading = True
            if not lead:
                self._gather.notify()
        if not lead:
            # Woken once: when a leader ran this commit, or when it hands over the lead.
            pending.wake.acquire()
        if not pending.done:
            self._lead(pending)
        if pending.error is not None:
            raise pending.error

    def queued(self) -> int:
        """How many commits wait for a leader now."""
        with self._queue_lock:
            return len(self._queue)

    @property
    def leading(self) -> bool:
        """Whether a leader is running a batch."""
        return self._leading

    def _lead(self, own: Pending[Any]) -> None:
        """As the leader: run every queued commit as one batch, sync, pass the lead on."""
        batch: list[Pending[Any]] = []
        offset: int | None = None
        try:
            self._gather_siblings()
            with self.live.mutex:
                with self._queue_lock:
                    batch = list(self._queue)
                    self._queue.clear()
                self.last_batch = len(batch)
                offset = self._run_batch(batch)
        except BaseException as exc:  # interrupted before the batch ran (Ctrl-C)
            if not batch:
                own.error, own.done = exc, True
                with self._queue_lock:
                    if own in self._queue:
                        self._queue.remove(own)
            self._pass_lead()
            self._finish(batch, own)
            raise
        try:
            if offset is not None:
                self.journal.sync_to(offset)
        except BaseException as exc:
            for pending in batch:
                if pending.events:
                    pending.error = exc
            raise
        finally:
            self._pass_lead()
            self._finish(batch, own)

    @staticmethod
    def _finish(batch: list[Pending[Any]], own: Pending[Any]) -> None:
        for pending in batch:
            pending.done = True
            if pending is not own:
                pending.wake.release()

    def _gather_siblings(self) -> None:
        """Wait briefly for the committers of the last batch to queue again.

        Right after a batch is acknowledged its committers are still on their way back
        (waking up, building their next call); a leader that starts at once would often
        run a batch of one and make them wait a whole sync for the next.  The leader
        waits up to GATHER_SECONDS, and only when the last batch had more commits than
        are queued now: a lone writer never waits.
        """
        with self._gather:
            want = self.last_batch
            if len(self._queue) >= want:
                return
            deadline = time.monotonic() + GATHER_SECONDS
            while len(self._queue) < want:
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._gather.wait(left)

    def _pass_lead(self) -> None:
        with self._queue_lock:
            if self._queue:
                self._queue[0].wake.release()  # the lead passes on
            else:
                self._leading = False

    def _run_batch(self, batch: list[Pending[Any]]) -> int | None:
        """Under the state mutex: decide, stage and write ``batch``.

        Returns the offset still to sync (None: synced already, or nothing written).  If
        anything fails between the first staged event and the write, none of the batch
        is written and every commit in it fails (their decisions saw events that are
        not in the journal); the live state is folded again from the journal.
        """
        try:
            with self.journal.locked() as writer:
                self.live.catch_up()
                try:
                    for pending in batch:
                        self._stage(writer, pending)
                    staged = [p for p in batch if p.events]
                    if not staged:
                        return None
                    offset = writer.write(sync=False)
                except BaseException:
                    if any(p.events for p in batch):
                        for pending in batch:
                            pending.events = []
                        self.live.reload()
                    raise
                self.written([e for p in staged for e in p.events])
            return offset
        except BaseException as exc:
            for pending in batch:
                if pending.error is None:
                    pending.error = exc
            return None

    def _stage(self, writer: JournalWriter, pending: Pending[Any]) -> None:
        """Decide one commit against the live state, stage its events and fold them."""
        state = self.live.state
        try:
            prelude = self.prelude.events(state) if self.prelude is not None else []
            with self.prelude.deciding(state, prelude) if self.prelude is not None \
                    else contextlib.nullcontext():
                self._in_batch.active = True
                try:
                    decision = pending.decide(state)
                finally:
                    self._in_batch.active = False
            pending.result = decision.result
            payloads = list(decision.events)
            if not payloads:
                pending.events = []
                return
            if prelude and self.prelude is not None:
                prelude = self.prelude.events(state, payloads)  # unless they set limits
            by = pending.by
            # A run this process started is in the live dict itself (never the lazy
            # history): the first append of a run that lands starts it.
            if by.run_kind and by.run and not dict.__contains__(state.runs, by.run) and \
                    not isinstance(payloads[0], RunStarted):
                payloads.insert(0, RunStarted(run_id=by.run, kind=by.run_kind,
                                              summary=by.run_summary or decision.summary
                                              or ""))
            meta = dict(by.meta) if by.meta else None
            drafts = [Draft(data=p, actor="system") for p in prelude]
            drafts += [Draft(data=p, actor=by.actor, session=by.session, run=by.run,
                             causation=by.causation, meta=meta) for p in payloads]
            if self.before is not None:
                self.before(state, drafts)
            events = writer.stage(drafts, expect=decision.expect or pending.expect)
        except Exception as exc:
            pending.error = exc
            return
        try:
            for event in events:
                state.apply(event)
        except BaseException:
            self.live.reload()
            raise
        pending.events = events
        if pending.then is not None:
            pending.result = pending.then(state, pending.result)
