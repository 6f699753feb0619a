"""The engine of a memoir home: the journal, the live state, the commit path and the
followers of the journal, put together.

:class:`Engine` opens a home (its config, journal, checkpoints and projected files),
commits decisions (:meth:`Engine.commit`), answers reads (state, views at any seq,
events) and keeps the followers — the projector first — up to date.  Sessions,
adoption and status sit above it, in :class:`memoir.api.Memoir`.
"""

from __future__ import annotations

import atexit
import os
import time
import weakref
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from memoir.clock import Clock, SystemClock
from memoir.config import Config, load_config
from memoir.engine.checkpoints import CheckpointStore
from memoir.engine.commit import Caller, CommitQueue, Decision, Pending
from memoir.engine.files import FilesView
from memoir.engine.followers import Follower, Followers
from memoir.engine.limits import ConfiguredLimits
from memoir.engine.live import LiveState, Progress
from memoir.engine.maintenance import HomeCheck, accept_journal_loss, verify_home
from memoir.engine.materializer import Drift, Materializer
from memoir.engine.opening import check_home, open_home_journal, seen_seq
from memoir.engine.projector import Projector
from memoir.engine.reading import Reading
from memoir.engine.seals import Seals, load_key
from memoir.engine.signing import Signing, pin_on_first_sight, pinned_owner
from memoir.errors import (
    ConfigError,
    DriftError,
    JournalError,
    JournalLost,
    ProjectionError,
    ValidationError,
)
from memoir.events.maintenance import JournalRepaired
from memoir.events.types import Event
from memoir.fs.folder import Folder
from memoir.journal import Expectation, Journal, RecoveryReport, VerifyReport
from memoir.layout import JOURNAL_FILE, default_home
from memoir.logs import get_logger
from memoir.projections.render import renderers_for
from memoir.projections.state import State

__all__ = ["JOURNAL_FILE", "Engine", "HomeCheck", "default_home"]

log = get_logger("memoir.engine")

T = TypeVar("T")


class Engine(Reading):
    """An open memoir home, safe to share between threads (many processes may open the
    same home at once).  ``followers`` come after the projector, always the first.
    ``readonly``: nothing in the home is created or written (commits are refused), so a
    read-only home or file system can be verified, searched and shown.  ``accept_loss``:
    take a journal that ends before what its checkpoints and files show (records were
    lost) as it is — see :class:`JournalLost`."""

    def __init__(
        self,
        home: str | os.PathLike[str] | None = None,
        *,
        journal: Journal | None = None,
        config: Config | None = None,
        clock: Clock | None = None,
        followers: Iterable[Follower] = (),
        readonly: bool = False,
        accept_loss: bool = False,
        create: bool = True,
        lazy: bool = False,
        progress: Progress | None = None,
    ) -> None:
        home = Path(home).expanduser() if home is not None else default_home()
        self.home = Path(os.path.abspath(home))  # results' paths open as they are
        self.readonly = readonly
        check_home(self.home, must_exist=journal is None and not create and not readonly)
        if not readonly:
            self.home.mkdir(parents=True, exist_ok=True)
        self.config = config or load_config(self.home)
        self.clock = clock or SystemClock()
        key = load_key(self.config.journal.key_file, self.home)
        self.checkpoints = CheckpointStore(Folder(self.home, ".memoir/checkpoints"), key=key)
        self._key = key
        # Projected files are fsynced like the journal unless durability is "never": a
        # file half-written by a crash would otherwise look like a hand edit.
        self.materializer = Materializer(
            self.home, fsync=self.config.journal.durability != "never", readonly=readonly,
            lock_timeout=self.config.journal.lock_timeout_seconds,
            external_dirs=self.config.skills.external_dirs)
        try:
            journal, seen, acknowledged = open_home_journal(
                self.home, self.config, self.clock, journal, readonly=readonly,
                seen=seen_seq(self.checkpoints, self.materializer), accept_loss=accept_loss)
        except BaseException:
            self.materializer.close()
            raise
        self.journal = journal
        #: Seals of the journal's appends, when the home has a key (memoir.engine.seals);
        #: a journal that keeps them seals each append in its own transaction.
        self.seals = Seals(self.home, key, journal) if key and not readonly and \
            journal.persistent else None
        if self.seals is not None and journal.keeps_seals:
            journal.sealer = self.seals.line
        self.files = FilesView(self.materializer)
        self.live = LiveState(journal, self.checkpoints,
                              checkpoint_every=self.config.journal.checkpoint_every,
                              save_checkpoints=not readonly,
                              pinned=pinned_owner(self.home))
        self.projector = Projector(
            self.live, self.materializer, renderers=renderers_for(self.home.absolute()),
            background=self.config.projections.mode == "background",
            coalesce=self.config.projections.coalesce_ms / 1000)
        self.followers = Followers([self.projector, *followers])
        self.limits = ConfiguredLimits(self.config.memory.memory_char_limit,
                                       self.config.memory.user_char_limit)
        self.signing = Signing(self.home, journal)  # signs appends on a signed journal
        self.commits = CommitQueue(self.live, self.limits, written=self._written,
                                   before=self.signing)
        self._closed = False
        # A handle belongs to the process that opened it (see _own_process).
        self._pid = os.getpid()
        self.live.listener = self.followers
        self.live.progress = progress
        lazy = lazy and readonly
        try:
            # Lazy: a reader of the journal's end folds nothing until it asks for the
            # state; the loss check then reads the tail from the file's end.
            if not lazy:
                self.journal.recover(acknowledged=acknowledged)
                self.live.catch_up()
                if not readonly:
                    pin_on_first_sight(self)
            head = self.journal.tail_seq() if lazy else self.live.state.seq
            if head < acknowledged:
                raise JournalLost(self.home / JOURNAL_FILE, head, acknowledged)
            lost = accept_loss and self.live.state.seq < seen
            if lost:
                accept_journal_loss(self)
        except BaseException:
            self.materializer.close()
            self.journal.close()
            raise
        for follower in self.followers:
            follower.opened()
        self.followers.active = True
        _OPEN.add(self)
        if lost:
            head = self.live.state.seq
            marker = JournalRepaired(
                cut_bytes=0, kept_head=head, saved_to="",
                reason=f"loss accepted: the journal ended at seq {head}, the home had seen "
                       f"seq {seen}; files that showed more were kept as .bak copies")
            self.commit(lambda _state: Decision(events=[marker]), by="system")

    def _written(self, events: Sequence[Event]) -> None:
        """A batch's events were written (under the journal lock): seal, tell followers."""
        if self.seals is not None:
            self.seals.written(events)
        self.followers.folded(events)

    # -- reading -------------------------------------------------------------------------------

    def rewrite_files(self, skip: Callable[[list[Drift]], Collection[str]]) -> list[str]:
        """Write every projected file at the head but those ``skip`` names among the
        ones edited by hand (see :meth:`Projector.rewrite`); the files written."""
        return self.projector.rewrite(skip)

    def backup_file(self, rel: str, stamp: int) -> Path | None:
        """Copy the projected file ``rel`` to ``<file>.bak.<stamp>`` (Hermes's naming);
        the copy's path (None: no file there)."""
        return self.materializer.backup(rel, stamp)

    def clear_caches(self) -> None:
        """Forget the checkpoints and kept prompts (the journal was cut: pins may have
        moved); the state is folded from the journal when next needed."""
        self.checkpoints.clear()
        self.kept_prompts().clear()

    # -- committing --------------------------------------------------------------------------

    def commit(self, decide: Callable[[State], Decision[T]], *, by: Caller | str,
               expect: Expectation | None = None) -> tuple[list[Event], T]:
        """Decide against the fresh state under the journal lock and append the result.

        ``decide`` must be pure (it may be called with any state); a decision with no
        events appends nothing.  ``by`` says who commits (a :class:`Caller`, or just an
        actor's name): its actor, session, run and meta go on every record, and a run it
        names with a kind is started by the first commit of it that lands.  Returns the
        appended records and the decision's result.  Commits from several threads share
        writes and syncs (see :mod:`memoir.engine.commit`); each is still atomic and
        sees a fresh state.
        """
        pending: Pending[T] = Pending(decide, by, expect)
        self.run(pending)
        return pending.events, pending.result

    def commit_with_files(self, decide: Callable[[State, FilesView], Decision[T]], *,
                          by: Caller | str, expect: Expectation | None = None
                          ) -> tuple[list[Event], T]:
        """:meth:`commit` for a decision that must also see the projected files (whether
        one was edited by hand): it gets a read-only :class:`FilesView` as well."""
        files = self.files
        return self.commit(lambda state: decide(state, files), by=by, expect=expect)

    def _own_process(self) -> None:
        """Refuse to work in a forked child: its copies of the parent's locks and
        descriptors would let both write at once (and a lock held by one of the
        parent's threads at the fork is never released in the child)."""
        if os.getpid() != self._pid:
            raise JournalError(
                f"this handle of {self.home} was opened by process {self._pid}; this is a "
                f"forked child (process {os.getpid()}): open the home again in the child "
                "(memoir.open), a handle does not cross fork()")

    def run(self, pending: Pending[Any]) -> None:
        """Run one commit through the queue, then let the followers and checkpoints
        catch up with it (outside the journal lock: other writers need not wait)."""
        self._own_process()
        if self.readonly:
            raise ValidationError(f"{self.home} is open read-only; nothing can be written "
                                  "through this handle")
        self.commits.run(pending)
        if pending.events:
            self.followers.advanced(committed=True)
            self.live.checkpoint_if_due()

    def ensure_limits(self) -> None:
        """Journal the configured limits if they differ from those in force."""
        self.commit(lambda state: Decision(events=self.limits.events(state)), by="system")

    # -- projected files -------------------------------------------------------------------------

    def projected_files(self, state: State | None = None) -> dict[str, bytes | None]:
        """Every projected file and the bytes it should hold (None: no file)."""
        return self.projector.projected_files(state)

    def flush(self) -> None:
        """Do now what the followers owe: write the projected files the last commits owe.

        With ``projections.mode: background`` (the default) a commit returns once its
        events are durable in the journal and the files follow a moment later; call
        this before reading MEMORY.md, USER.md or the skills tree from disk.  Closing
        the handle flushes too.  Raises what writing the files raised (the journal is
        unaffected: the next open or flush writes them).
        """
        self._own_process()
        for follower in self.followers:
            follower.flush()

    def drift(self) -> list[Drift]:
        """Projected files edited by hand since memoir last wrote them."""
        return self.projector.drift()

    def rebuild(self, *, force: bool = False, from_scratch: bool = True) -> list[str]:
        """Rewrite every projected file from the journal.

        Refuses (DriftError) while a file holds hand edits, unless ``force``, which first
        copies each drifted file to ``<file>.bak.<unix seconds>``.
        """

        def skip(drifted: list[Drift]) -> list[str]:
            if drifted and not force:
                names = ", ".join(d.path for d in drifted)
                raise DriftError(
                    f"{names} edited by hand; run `memoir adopt` to keep the edits, or "
                    "`memoir rebuild --force` to discard them (a .bak copy is kept)"
                )
            stamp = int(time.time())
            for d in drifted:
                self.materializer.backup(d.path, stamp)
            return []

        with self.live.mutex:
            written = self.projector.rewrite(skip, refold=from_scratch)
            self.live.maybe_checkpoint(force=True)
        failed = self.materializer.last_failed
        if failed:
            shown = "; ".join(f"{rel}: {why}" for rel, why in sorted(failed.items()))
            raise ProjectionError(f"rebuilt from {self.live.state.seq} events, but could "
                                  f"not write {shown}")
        return written

    # -- maintenance -------------------------------------------------------------------------------

    def verify(self, progress: Progress | None = None) -> VerifyReport:
        """Read every record and check the hash chain (JournalCorrupted names damage)."""
        return self.journal.verify(progress)

    def verify_home(self, *, deep: bool = False) -> HomeCheck:
        """Check what the journal alone cannot (:func:`~memoir.engine.maintenance.verify_home`):
        the seals, and with ``deep`` every checkpoint against a fold from seq 1."""
        return verify_home(self.home, self.journal, self.checkpoints, self._key, deep=deep,
                           state=self.state)

    @property
    def keyed(self) -> bool:
        """Whether the home has a key (its appends are sealed)."""
        return self._key is not None

    def reseal(self) -> int:
        """Seal the records no seal covers (a person vouches for them: written without
        the key, or by a writer killed before it sealed); how many were sealed."""
        if self._key is None:
            raise ConfigError("no key: set $MEMOIR_KEY or journal.key_file to seal")
        if self.readonly:
            raise ValidationError("this handle is read-only; open the home to write")
        return Seals(self.home, self._key, self.journal).reseal(self.journal)

    def repair(self, *, salvage: bool = False) -> RecoveryReport | None:
        """Repair the journal (see :meth:`Journal.repair`); the state is folded again and
        every projected file is owed (the files may show records the repair cut)."""
        report = self.journal.repair(salvage=salvage)
        if report is not None and self.seals is not None:
            self.seals.cut(self.journal.head())
        if report is not None:
            with self.live.mutex:
                self.checkpoints.clear()
                self.live.last_checkpoint = 0
                self.live.refold()
        return report

    def close(self, *, flush: bool = True) -> None:
        """Flush the followers (the projected files still owed), close the journal.

        ``flush=False`` leaves what is owed undone, as a crash would (the next open of
        the home does it).
        """
        if self._closed:
            return
        if os.getpid() != self._pid:
            flush = False  # a forked child leaves the parent's work to the parent
        for follower in self.followers:
            follower.close(flush=flush)
        if self.seals is not None:
            self.seals.close()
        with self.live.mutex:
            self._closed = True
            _OPEN.discard(self)
            self.materializer.close()
            self.journal.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: Open handles, flushed at interpreter exit (the background writer's threads are daemons).
_OPEN: weakref.WeakSet[Engine] = weakref.WeakSet()


@atexit.register
def _flush_open_handles() -> None:
    for engine in list(_OPEN):
        try:
            engine.close()
        except Exception as exc:
            log.warning("projection.flush_failed", home=str(engine.home), error=str(exc))
