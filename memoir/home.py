"""A memoir home: the journal, the state folded from it, and the files projected from it.

:class:`Memoir` is the handle :func:`memoir.open` returns.  Every change goes through
:meth:`Memoir.commit`: under the journal lock it catches up with what other processes
appended, lets a pure ``decide`` function look at that fresh state, appends the
events it returns in one write, folds them, and writes the projected files.
"""

from __future__ import annotations

import atexit
import collections
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

import structlog

from memoir.clock import Clock, SystemClock
from memoir.config import Config, load_config
from memoir.errors import DriftError, NotFoundError, ProjectionError, ValidationError
from memoir.events.journal import (
    Expectation,
    FileJournal,
    Journal,
    JournalWriter,
    RecoveryReport,
    VerifyReport,
)
from memoir.events.memory import EntryAdded, EntryRemoved, EntryReplaced, LimitsSet
from memoir.events.runs import RunStarted
from memoir.events.sessions import SessionStarted
from memoir.events.types import Draft, Event, Payload
from memoir.ids import short_id
from memoir.projections.checkpoint import CheckpointStore
from memoir.projections.lazy import LazyDict
from memoir.projections.materializer import Drift, Materializer
from memoir.projections.memory import FILE_NAMES, TARGETS, file_text, parse_file, render_block
from memoir.projections.state import State

if TYPE_CHECKING:
    from memoir.session import Session

__all__ = ["RENDERERS", "Decision", "Memoir", "Renderer", "default_home"]

log = structlog.get_logger("memoir")

JOURNAL_FILE = "journal.jsonl"
# How long a group-commit leader waits for the last batch's committers (seconds).
_GATHER_SECONDS = 0.0005
T = TypeVar("T")


def default_home() -> Path:
    """``$MEMOIR_HOME``, else ``~/.memoir``."""
    env = os.environ.get("MEMOIR_HOME")
    return Path(env).expanduser() if env else Path.home() / ".memoir"


@dataclass
class Decision(Generic[T]):
    """What a command decided: the events to append and the result to hand back."""

    events: list[Payload] = field(default_factory=list)
    result: T = None  # type: ignore[assignment]
    expect: Expectation | None = None


def memory_file(target: str) -> str:
    return f"memories/{FILE_NAMES[target]}"


def render_memory_file(state: State, target: str) -> bytes | None:
    t = state.memory.target(target)
    return file_text(t.texts()).encode("utf-8") if t.written else None


class Renderer(Protocol):
    """Turns state into projected files.  ``touched`` says which files some events may
    change (relative paths; may name files that end up absent); ``files`` renders those
    (``paths=None``: every file this renderer owns) — None for a file that must not exist.
    """

    def touched(self, events: Sequence[Event]) -> set[str]: ...

    def files(self, state: State, paths: set[str] | None) -> dict[str, bytes | None]: ...


class _MemoryRenderer:
    watches: tuple[type[Payload], ...] = (EntryAdded, EntryReplaced, EntryRemoved)

    def touched(self, events: Sequence[Event]) -> set[str]:
        kinds = self.watches
        return {
            _MEMORY_FILES[e.data.target]  # type: ignore[attr-defined]
            for e in events
            if type(e.data) in kinds
        }

    def files(self, state: State, paths: set[str] | None) -> dict[str, bytes | None]:
        return {
            memory_file(t): render_memory_file(state, t)
            for t in TARGETS
            if paths is None or memory_file(t) in paths
        }


_MEMORY_FILES = {t: memory_file(t) for t in TARGETS}

#: Every projection that writes files; other modules append theirs (skills, curator).
RENDERERS: list[Renderer] = [_MemoryRenderer()]


class Memoir:
    """An open memoir home.  Safe to share between threads; many processes may open
    the same home at once."""

    def __init__(
        self,
        home: str | os.PathLike[str] | None = None,
        *,
        journal: Journal | None = None,
        config: Config | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.home = Path(home).expanduser() if home is not None else default_home()
        self.home.mkdir(parents=True, exist_ok=True)
        self.config = config or load_config(self.home)
        self.clock = clock or SystemClock()
        if journal is None:
            # The journal is checked from the newest valid checkpoint on (below), not
            # from its first byte: opening a home with a long history stays fast, and
            # `memoir verify` (or any full replay) checks the whole chain.
            journal = FileJournal(
                self.home / JOURNAL_FILE,
                durability=self.config.journal.durability,
                clock=self.clock,
                lock_timeout=self.config.journal.lock_timeout_seconds,
                scan=False,
            )
        self.journal = journal
        # Projected files are fsynced like the journal unless durability is "never": a
        # file half-written by a crash would otherwise look like a hand edit.
        self.materializer = Materializer(
            self.home, fsync=self.config.journal.durability != "never",
            lock_timeout=self.config.journal.lock_timeout_seconds,
        )
        self.checkpoints = CheckpointStore(self.home / ".memoir" / "checkpoints")
        self._mutex = threading.RLock()
        # Group commit: commits queue here; one thread at a time (the leader) runs
        # every queued commit, and the others sleep until theirs is done (see _lead).
        self._queue: collections.deque[_Pending[Any]] = collections.deque()
        self._queue_lock = threading.Lock()
        self._gather = threading.Condition(self._queue_lock)
        self._last_batch = 1
        self._leading = False
        self._in_batch = threading.local()
        # Projected files owed: (renderer index, path or token) -> last seq touching it.
        # Together with the files as of _covered it is what the files must show.
        self._dirty: dict[tuple[int, str], int] = {}
        self._covered = 0
        self._tracking = False
        self._projector = (
            _Projector(self, self.config.projections.coalesce_ms / 1000)
            if self.config.projections.mode == "background" else None
        )
        self._last_checkpoint = 0
        self._closed = False
        self._state = self._initial_state()
        if isinstance(self.journal, FileJournal):
            self.journal.recover()
        self._catch_up()
        self._refresh_stale_projections()
        self._covered = self._state.seq
        self._tracking = True
        _OPEN.add(self)

    # -- state -----------------------------------------------------------------------------

    def _initial_state(self) -> State:
        if isinstance(self.journal, FileJournal):
            for seq in self.checkpoints.best():
                cp = self.checkpoints.load(seq, replay=self._replay_to)
                if cp is not None and self.journal.anchor(cp.seq, cp.offset, cp.hash):
                    self._last_checkpoint = cp.seq
                    return cp.state
                log.warning("checkpoint.ignored", seq=seq,
                            reason="does not match the journal")
        return State()

    def _replay_to(self, seq: int) -> State:
        return State().apply_all(self.journal.read(until=seq))

    def _catch_up(self) -> int:
        journal = self.journal
        if isinstance(journal, FileJournal) and journal.caught_up_to(self._state.seq):
            return 0  # under our own journal lock with nothing new: nothing to read
        with self._mutex:
            # Fold while reading: a long catch-up must not hold every event in memory.
            fresh = 0
            unmarked: list[Event] = []
            for event in self.journal.read(after=self._state.seq):
                self._state.apply(event)
                fresh += 1
                if self._tracking:
                    unmarked.append(event)
                    if len(unmarked) >= 1024:
                        self._mark(unmarked)
                        unmarked = []
            self._mark(unmarked)
            if fresh:
                self._maybe_checkpoint()
                if self._projector is not None and self._tracking:
                    self._projector.wake()
            return fresh

    def _maybe_checkpoint(self, force: bool = False) -> None:
        if not isinstance(self.journal, FileJournal):
            return
        every = self.config.journal.checkpoint_every
        if not force and self._state.seq - self._last_checkpoint < every:
            return
        seq, offset, record_hash = self.journal.position()
        if seq != self._state.seq or record_hash != self._state.hash:
            return
        self.checkpoints.save(self._state, offset)
        self._last_checkpoint = seq

    @property
    def head(self) -> int:
        """The last seq in the journal (after reading what other processes appended)."""
        self._catch_up()
        return self._state.seq

    @property
    def state(self) -> State:
        """The live state, caught up.  Treat it as read-only; use :meth:`view` to keep one."""
        self._catch_up()
        return self._state

    def view(self, seq: int | None = None) -> State:
        """An independent copy of the state at ``seq`` (default: the head)."""
        with self._mutex:
            self._catch_up()
            if seq is None or seq == self._state.seq:
                return self._state.copy()
            if seq < 0 or seq > self._state.seq:
                raise NotFoundError(f"seq {seq} is not in the journal (head is {self._state.seq})")
            state = State()
            if isinstance(self.journal, FileJournal):
                for cp_seq in self.checkpoints.best(at_most=seq):
                    cp = self.checkpoints.load(cp_seq, replay=self._replay_to)
                    if cp is not None and self.journal.anchor(cp.seq, cp.offset, cp.hash):
                        state = cp.state
                        break
            return state.apply_all(self.journal.read(after=state.seq, until=seq))

    def events(
        self,
        *,
        types: Iterable[str] = (),
        actor: str | None = None,
        run: str | None = None,
        session: str | None = None,
        after: int = 0,
        until: int | None = None,
    ) -> Iterator[Event]:
        """Journal records filtered by type (exact or ``prefix.*``), actor, run, session, seq."""
        wanted = tuple(types)
        exact = {t for t in wanted if not t.endswith("*")}
        prefixes = tuple(t[:-1] for t in wanted if t.endswith("*"))
        for event in self.journal.read(after=after, until=until):
            if wanted and event.type not in exact and not (
                prefixes and event.type.startswith(prefixes)
            ):
                continue
            if actor is not None and event.actor != actor:
                continue
            if run is not None and event.run != run:
                continue
            if session is not None and event.session != session:
                continue
            yield event

    def event(self, seq: int) -> Event:
        for event in self.journal.read(after=seq - 1, until=seq):
            return event
        raise NotFoundError(f"no event with seq {seq} (head is {self.head})")

    # -- committing --------------------------------------------------------------------------

    def commit(
        self,
        decide: Callable[[State], Decision[T]],
        *,
        actor: str,
        session: str | None = None,
        run: str | None = None,
        causation: str | None = None,
        expect: Expectation | None = None,
    ) -> tuple[list[Event], T]:
        """Decide against the fresh state under the journal lock and append the result.

        ``decide`` must be pure (it may be called with any state); a decision with no
        events appends nothing.  Returns the appended records and the decision's result.

        Commits from several threads are grouped: while one thread holds the journal
        lock, the others queue, and the next to get the lock runs every queued commit
        in order, each deciding against the state the ones before it left, then writes
        them all with one write and one fsync.  Each commit is still atomic and sees a
        fresh state; only the fsync is shared.
        """
        pending: _Pending[T] = _Pending(decide, actor, session, run, causation, expect)
        self._run(pending)
        return pending.events, pending.result

    def _run(self, pending: _Pending[Any]) -> None:
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
        if self._projector is not None and pending.events:
            self._projector.wake()
        # Outside the journal lock: other writers need not wait for a checkpoint.
        if pending.events and self._state.seq - self._last_checkpoint >= \
                self.config.journal.checkpoint_every:
            with self._mutex:
                self._maybe_checkpoint()

    def _lead(self, own: _Pending[Any]) -> None:
        """As the leader: run every queued commit as one batch.

        The batch is decided, staged and written under _mutex and the journal lock,
        then fsynced with only the journal lock held (readers of the state need not
        wait for the disk), and acknowledged.  Then the lead passes to the first commit
        that queued meanwhile; that batch holds everyone who arrived during this one.
        (Passing the lead before the fsync, so the next batch is decided while this one
        syncs, measured slower: under the GIL it made many batches of one.)
        """
        batch: list[_Pending[Any]] = []
        wrote, offset = False, None
        try:
            self._gather_siblings()
            with self._mutex:
                with self._queue_lock:
                    batch = list(self._queue)
                    self._queue.clear()
                self._last_batch = len(batch)
                wrote, offset = self._run_batch(batch)
        except BaseException as exc:  # interrupted before the batch ran (Ctrl-C)
            if not batch:
                own.error, own.done = exc, True
                with self._queue_lock:
                    if own in self._queue:
                        self._queue.remove(own)
            self._pass_lead()
            for pending in batch:
                pending.done = True
                if pending is not own:
                    pending.wake.release()
            raise
        try:
            if offset is not None:
                assert isinstance(self.journal, FileJournal)
                self.journal.sync_to(offset)
            if wrote and self._projector is None:
                self._project_now()  # sync mode: files once the events are durable
        except BaseException as exc:
            for pending in batch:
                if pending.events:
                    pending.error = exc
            raise
        finally:
            self._pass_lead()
            for pending in batch:
                pending.done = True
                if pending is not own:
                    pending.wake.release()

    def _gather_siblings(self) -> None:
        """Wait briefly for the committers of the last batch to queue again.

        Right after a batch is acknowledged its committers are still on their way back
        (waking up, building their next call); a leader that starts at once would often
        run a batch of one and make them wait a whole fsync for the next.  Like
        PostgreSQL's ``commit_delay``, the leader waits up to _GATHER_SECONDS, and only
        when the last batch had more commits than are queued now: a lone writer never
        waits.
        """
        with self._gather:
            want = self._last_batch
            if len(self._queue) >= want:
                return
            deadline = time.monotonic() + _GATHER_SECONDS
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

    def _run_batch(self, batch: list[_Pending[Any]]) -> tuple[bool, int | None]:
        """Under _mutex: decide, stage and write ``batch``.

        Returns whether anything was written, and the offset still to sync (None: synced
        already, or nothing written).  If anything fails between the first staged event
        and the write, none of the batch is written and every commit in it fails (their
        decisions saw events that are not in the journal); the live state is folded
        again from the journal.
        """
        try:
            with self.journal.locked() as writer:
                self._catch_up()
                try:
                    for pending in batch:
                        self._stage(writer, pending)
                    staged = [p for p in batch if p.events]
                    if not staged:
                        return False, None
                    offset = writer.write(sync=False)
                except BaseException:
                    if any(p.events for p in batch):
                        for pending in batch:
                            pending.events = []
                        self._reload_state()
                    raise
                self._mark([e for p in staged for e in p.events])
            return True, offset
        except BaseException as exc:
            for pending in batch:
                if pending.error is None:
                    pending.error = exc
            return False, None

    def _project_now(self) -> None:
        """``projections.mode: sync``: write the files before the commit returns.  The
        commit is durable already, so a failure is logged, not raised; the files stay
        owed and the next commit, :meth:`flush` or open writes them."""
        try:
            self._project()
        except Exception as exc:
            log.error("projection.write_failed", home=str(self.home), error=str(exc))

    def _stage(self, writer: JournalWriter, pending: _Pending[Any]) -> None:
        """Decide one commit against the live state, stage its events and fold them."""
        # Decide under the configured limits: when they differ from the journal's, a
        # memory.limits_set goes first in the same append.  With nothing to append,
        # the journal's limits are put back (they stay the truth until recorded).
        try:
            limits = self._limits_events([])
            before = self._state.memory.limits
            if limits:
                change = limits[0]
                assert isinstance(change, LimitsSet)
                self._state.memory.limits = {"memory": change.memory, "user": change.user}
            self._in_batch.active = True
            try:
                decision = pending.decide(self._state)
            finally:
                self._in_batch.active = False
                self._state.memory.limits = before
            pending.result = decision.result
            payloads = list(decision.events)
            if not payloads:
                pending.events = []
                return
            if any(isinstance(p, LimitsSet) for p in payloads):
                limits = []
            drafts = [Draft(data=p, actor="system") for p in limits]
            drafts += [
                Draft(data=p, actor=pending.actor, session=pending.session, run=pending.run,
                      causation=pending.causation)
                for p in payloads
            ]
            events = writer.stage(drafts, expect=decision.expect or pending.expect)
        except Exception as exc:
            pending.error = exc
            return
        try:
            for event in events:
                self._state.apply(event)
        except BaseException:
            self._reload_state()
            raise
        pending.events = events
        if pending.then is not None:
            pending.result = pending.then(self._state, pending.result)

    def _reload_state(self) -> None:
        """Throw the live state away and fold it again from the journal (after a failure
        left it ahead of what was written)."""
        self._last_checkpoint = 0
        self._tracking = False
        try:
            self._state = self._initial_state()
            self._catch_up()
        finally:
            self._tracking = True
        # Whatever the files show, bring them all to the journal's state.
        self._covered = -1

    def _limits_events(self, payloads: Sequence[Payload]) -> list[Payload]:
        """A ``memory.limits_set`` first, when the configured limits differ from the journal's."""
        wanted = {
            "memory": self.config.memory.memory_char_limit,
            "user": self.config.memory.user_char_limit,
        }
        if self._state.memory.limits == wanted and self._state.seq > 0:
            return []
        if any(isinstance(p, LimitsSet) for p in payloads):
            return []
        return [LimitsSet(memory=wanted["memory"], user=wanted["user"])]

    def ensure_limits(self) -> None:
        """Journal the configured limits if they differ from those in force."""
        self.commit(lambda _s: Decision(events=self._limits_events([])), actor="system")

    # -- projections ---------------------------------------------------------------------------

    def projected_files(self, state: State | None = None) -> dict[str, bytes | None]:
        """Every projected file and the bytes it should hold (None: no file)."""
        state = state or self._state
        files: dict[str, bytes | None] = {}
        for renderer in RENDERERS:
            files.update(renderer.files(state, None))
        return files

    def _mark(self, events: Sequence[Event]) -> None:
        """Under _mutex: note the files ``events`` change (they are owed until written)."""
        if not events:
            return
        seq = events[-1].seq
        kinds = {type(e.data) for e in events}
        dirty = self._dirty
        for index, renderer in enumerate(RENDERERS):
            # A renderer that names the payload types it watches is skipped when none is
            # here (a commit of 10,000 memory events need not be shown to the skills one).
            watches = getattr(renderer, "watches", None)
            if watches is not None and not kinds.intersection(watches):
                continue
            for path in renderer.touched(events):
                dirty[(index, path)] = seq

    def _render_owed(self, full: bool) -> tuple[int, dict[str, bytes | None], int]:
        """The files owed (every file if ``full``), rendered at the head: (seq, files, covered)."""
        with self._mutex:
            self._catch_up()
            state = self._state
            if full:
                return state.seq, self.projected_files(state), self._covered
            wanted: dict[int, set[str]] = {}
            for index, path in self._dirty:
                wanted.setdefault(index, set()).add(path)
            desired: dict[str, bytes | None] = {}
            for index, paths in sorted(wanted.items()):
                desired.update(RENDERERS[index].files(state, paths))
            return state.seq, desired, self._covered

    def _project(self) -> None:
        """Bring the projected files up to the head (skipping files edited by hand).

        Rendering happens under _mutex, writing under the projection lock only, never
        the two nested the other way round; a writer never puts files of an older seq
        over a newer one (it renders again), and one that finds the manifest older than
        what its owed list covers (a lost manifest, another process's crash) writes
        every file.
        """
        full = self._covered < 0
        last_seq = -1
        for _attempt in range(20):
            seq, desired, covered = self._render_owed(full)
            with self.materializer.locked():
                on_disk = self.materializer.seq
                if on_disk > seq and not (full and seq == last_seq):
                    # Another writer got further: render again from a fresher head.  If
                    # the head has not moved, the files are ahead of the journal (a
                    # repair or a crash cut records they show): write them all.
                    full = full or seq == last_seq
                    last_seq = seq
                    continue
                if not full and on_disk < covered:
                    full = True
                    continue
                if desired or on_disk != seq:
                    drifted = [d.path for d in self.materializer.drift(desired)]
                    self.materializer.write(desired, seq=seq, skip=drifted)
            with self._mutex:
                self._settled(seq)
            return
        raise ProjectionError("could not bring the projected files up to date: other writers "
                            "kept moving them ahead of this handle's view of the journal")

    def _settled(self, seq: int) -> None:
        """Under _mutex: the files are current as of ``seq``."""
        self._dirty = {k: s for k, s in self._dirty.items() if s > seq}
        self._covered = max(self._covered, seq)

    def flush(self) -> None:
        """Write the projected files the last commits owe, now.

        With ``projections.mode: background`` (the default) a commit returns once its
        events are durable in the journal and the files follow a moment later; call
        this before reading MEMORY.md, USER.md or the skills tree from disk.  Closing
        the handle flushes too.  Raises what writing the files raised (the journal is
        unaffected: the next open or flush writes them).
        """
        self._project()

    def _refresh_stale_projections(self) -> None:
        """On open: rewrite projected files that are behind (or ahead of) the journal.

        A crash can leave a file that memoir wrote but the journal does not match: the
        process died between the journal write and the file write, or (durability
        ``batch``/``never``) the journal lost an unsynced tail the file already showed.
        Such a file is one memoir wrote, so it is not a hand edit; it is rewritten.  The
        check runs only when the manifest's seq differs from the journal's head.
        """
        if self.materializer.seq == self._state.seq:
            return
        with self._mutex, self.journal.locked(), self.materializer.locked():
            self._catch_up()
            desired = self.projected_files()
            drifted = [d.path for d in self.materializer.drift(desired)]
            self.materializer.write(desired, seq=self._state.seq, skip=drifted)
            self._settled(self._state.seq)

    def drift(self) -> list[Drift]:
        """Projected files edited by hand since memoir last wrote them."""
        with self._mutex:
            self._catch_up()
            return self.materializer.drift(self.projected_files())

    def target_drift(self, target: str) -> Drift | None:
        rel = memory_file(target)
        state = self._state
        return self.materializer.is_drifted(rel, lambda: render_memory_file(state, target))

    def rebuild(self, *, force: bool = False, from_scratch: bool = True) -> list[str]:
        """Rewrite every projected file from the journal.

        Refuses (DriftError) while a file holds hand edits, unless ``force``, which first
        copies each drifted file to ``<file>.bak.<unix seconds>``.
        """
        with self._mutex, self.journal.locked(), self.materializer.locked():
            if from_scratch:
                self._state = State().apply_all(self.journal.read())
            else:
                self._catch_up()
            desired = self.projected_files()
            drifted = self.materializer.drift(desired)
            if drifted and not force:
                names = ", ".join(d.path for d in drifted)
                raise DriftError(
                    f"{names} edited by hand; run `memoir adopt` to keep the edits, or "
                    "`memoir rebuild --force` to discard them (a .bak copy is kept)"
                )
            stamp = int(time.time())
            for d in drifted:
                self.materializer.backup(d.path, stamp)
            written = self.materializer.write(desired, seq=self._state.seq)
            self._settled(self._state.seq)
            self._maybe_checkpoint(force=True)
            return written

    # -- adoption of hand edits ------------------------------------------------------------------

    def adopt(self, *, run: str | None = None) -> tuple[str, list[Event]]:
        """Turn hand edits of MEMORY.md / USER.md into ``user`` events of one run.

        The edited file is read with Hermes's rules (split on the delimiter, strip, drop
        empties, drop exact duplicates), and the result must pass the same validation as
        any write: no threat pattern, within the limit.  Entries are matched by text, so
        unchanged entries keep their ids; an entry edited in place becomes a replace.
        """
        from memoir.adoption import plan_adoption

        run_id = run or short_id("adopt-")

        def decide(state: State) -> Decision[list[str]]:
            payloads: list[Payload] = []
            changed = []
            for target in TARGETS:
                rel = memory_file(target)
                drift = self.materializer.is_drifted(rel, render_memory_file(state, target))
                if drift is None or drift.actual is None:
                    continue
                try:
                    text = drift.actual.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise ValidationError(f"{rel}: not UTF-8 ({exc}); fix the file first") from None
                payloads += plan_adoption(state, target, parse_file(text), rel)
                changed.append(rel)
            from memoir.skills.adopt import adoption_events

            skill_payloads, skill_paths, _ignored = adoption_events(self, state)
            payloads += skill_payloads
            changed += skill_paths
            if not changed:
                return Decision(events=[], result=[])
            head = RunStarted(run_id=run_id, kind="adopt",
                              summary=f"adopted hand edits of {', '.join(changed)}")
            return Decision(events=[head, *payloads], result=changed)

        self.flush()
        self.materializer.reload()
        events, adopted = self.commit(decide, actor="user", run=run_id)
        with self._mutex, self.journal.locked(), self.materializer.locked():
            # Adopted files are rewritten in canonical form (what the journal now says) and
            # projected files deleted by hand are written back; edits that adoption left
            # alone (e.g. telemetry) stay untouched.
            self._catch_up()
            desired = self.projected_files()
            keep = set(adopted or ())
            still = [d.path for d in self.materializer.drift(desired) if d.path not in keep]
            self.materializer.write(desired, seq=self._state.seq, skip=still)
            self._settled(self._state.seq)
        return run_id, events

    # -- sessions ------------------------------------------------------------------------------

    def start_session(
        self,
        *,
        session_id: str | None = None,
        platform: str = "cli",
        parent: str | None = None,
        actor: str = "agent",
    ) -> Session:
        """Start a session pinned to the journal position of its start event."""
        from memoir.session import Session

        sid = session_id or short_id("s-")

        def decide(state: State) -> Decision[dict[str, str | None]]:
            # A generated id (48 random bits) needs no check, and skipping it keeps a
            # home with a long history from decoding every past session to start one.
            if session_id is not None and sid in state.sessions:
                raise ValidationError(f"session {sid!r} already exists; use memoir.session()")
            return Decision(events=[SessionStarted(session_id=sid, platform=platform,
                                                   parent=parent)])

        # The blocks are rendered right after the start event is folded, before any
        # other commit of the same group lands in the live state.
        pending: _Pending[dict[str, str | None]] = _Pending(
            decide, actor, sid, None, None, None,
            then=lambda state, _result: self._render_blocks(state),
        )
        self._run(pending)
        pinned = pending.events[-1].seq
        return Session(self, sid, pinned, actor=actor, blocks=pending.result)

    def session(self, session_id: str) -> Session:
        """Re-open a session that was started earlier (in any process)."""
        from memoir.session import Session

        sessions = self.state.sessions
        # A session started since the last checkpoint is found without decoding the
        # whole session history.
        info = sessions.peek(session_id) if isinstance(sessions, LazyDict) else \
            sessions.get(session_id)
        if info is None:
            raise NotFoundError(f"no session {session_id!r} in {self.home}")
        return Session(self, session_id, info.pinned_seq, actor=info.actor)

    def _render_blocks(self, state: State) -> dict[str, str | None]:
        return {
            t: render_block(t, state.memory.target(t).texts(), state.memory.limits[t])
            for t in TARGETS
        }

    def prompt_blocks(self, seq: int | None = None) -> dict[str, str | None]:
        """The MEMORY and USER prompt blocks rendered from the state at ``seq``."""
        with self._mutex:
            self._catch_up()
            if seq is None or seq == self._state.seq:
                return self._render_blocks(self._state)
        return self._render_blocks(self.view(seq))

    # -- maintenance -------------------------------------------------------------------------------

    def verify(self) -> VerifyReport:
        return self.journal.verify()

    def repair(self) -> RecoveryReport | None:
        if not isinstance(self.journal, FileJournal):
            return None
        report = self.journal.repair()
        if report is not None:
            with self._mutex:
                self.checkpoints.clear()
                self._last_checkpoint = 0
                self._state = State().apply_all(self.journal.read())
                self._covered = -1  # the files may show records the repair cut
        return report

    def status(self) -> dict[str, Any]:
        state = self.state
        from memoir.projections.memory import reread, usage_text

        return {
            "home": str(self.home),
            "head": state.seq,
            "head_hash": state.hash,
            "sessions": len(state.sessions),
            "runs": len(state.runs),
            "memory": {
                t: {
                    # As the file reads back (Hermes's view), not the raw journal list.
                    "entries": len(reread(state.memory.target(t).texts())),
                    "usage": usage_text(reread(state.memory.target(t).texts()),
                                        state.memory.limits[t]),
                    "limit": state.memory.limits[t],
                }
                for t in TARGETS
            },
            "drift": [d.path for d in self.drift()],
        }

    def close(self) -> None:
        """Write the files still owed, stop the background writer, close the journal."""
        if self._closed:
            return
        if self._projector is not None:
            self._projector.stop()
        try:
            self.flush()
        except Exception as exc:  # the journal has it all; the next open writes the files
            log.warning("projection.flush_failed", home=str(self.home), error=str(exc))
        with self._mutex:
            self._closed = True
            _OPEN.discard(self)
            self.materializer.close()
            self.journal.close()

    def __enter__(self) -> Memoir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()



class _Pending(Generic[T]):
    """One commit waiting in the group-commit queue, and what became of it."""

    __slots__ = ("actor", "causation", "decide", "done", "error", "events", "expect",
                 "result", "run", "session", "then", "wake")

    def __init__(
        self,
        decide: Callable[[State], Decision[Any]],
        actor: str,
        session: str | None,
        run: str | None,
        causation: str | None,
        expect: Expectation | None,
        *,
        then: Callable[[State, Any], T] | None = None,
    ) -> None:
        self.decide = decide
        self.actor = actor
        self.session = session
        self.run = run
        self.causation = causation
        self.expect = expect
        # Called with the live state right after this commit's events are folded.
        self.then = then
        self.events: list[Event] = []
        self.result: T = None  # type: ignore[assignment]
        self.error: BaseException | None = None
        self.done = False
        # Held from the start; released exactly once to wake the committing thread.
        self.wake = threading.Lock()
        self.wake.acquire()


class _Projector:
    """The background writer of one handle: a thread that runs :meth:`Memoir._project`
    when commits owe files.  Commits that land while it writes are coalesced into its
    next pass.  The thread ends after a second with nothing to do (and holds the handle
    only weakly while it waits), so idle or forgotten handles keep no thread alive."""

    IDLE_SECONDS = 1.0

    def __init__(self, home: Memoir, coalesce: float) -> None:
        self._home = weakref.ref(home)
        self.coalesce = coalesce
        self._cv = threading.Condition(threading.Lock())
        self._wanted = False
        self._stopped = False
        self._thread: threading.Thread | None = None
        self.error: Exception | None = None

    def wake(self) -> None:
        if self._wanted:
            return  # a pass is already due (checked without the lock: the common case)
        with self._cv:
            if self._stopped or self._wanted:
                return
            self._wanted = True
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=_projector_main, args=(self._home, self),
                    name="memoir-projector", daemon=True,
                )
                self._thread.start()
            else:
                self._cv.notify()

    def next_job(self) -> bool:
        """Wait for work, then let more commits gather: True to run a pass, False to end."""
        with self._cv:
            if not self._wanted and not self._stopped:
                self._cv.wait(self.IDLE_SECONDS)
            if self._stopped or not self._wanted:
                if self._thread is threading.current_thread():
                    self._thread = None
                return False
            # Commits arriving meanwhile join this pass (stop() cuts the wait short).
            deadline = time.monotonic() + self.coalesce
            while not self._stopped and (left := deadline - time.monotonic()) > 0:
                self._cv.wait(left)
            if self._stopped:
                return False
            self._wanted = False
            return True

    def retry_later(self) -> None:
        with self._cv:
            self._wanted = True

    def stop(self) -> None:
        with self._cv:
            self._stopped = True
            thread = self._thread
            self._cv.notify_all()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=30)


def _projector_main(ref: weakref.ReferenceType[Memoir], projector: _Projector) -> None:
    backoff = 0.05
    while projector.next_job():
        home = ref()
        if home is None:
            return
        try:
            home._project()
            projector.error = None
            backoff = 0.05
        except Exception as exc:
            projector.error = exc
            log.error("projection.write_failed", home=str(home.home), error=str(exc),
                      retry_in_seconds=backoff)
            projector.retry_later()
            time.sleep(backoff)
            backoff = min(backoff * 2, 5.0)
        del home


#: Open handles, flushed at interpreter exit (the background writer's threads are daemons).
_OPEN: weakref.WeakSet[Memoir] = weakref.WeakSet()


@atexit.register
def _flush_open_handles() -> None:
    for home in list(_OPEN):
        try:
            home.close()
        except Exception as exc:
            log.warning("projection.flush_failed", home=str(home.home), error=str(exc))
