"""The projector: the follower that keeps the projected files up to the journal.

It keeps a ledger of the files commits owe (per renderer and path, the last seq that
touched it) and writes them through the materializer, the only writer of projected
files.  With ``projections.mode: background`` (the default) a thread of the handle
writes them ``coalesce_ms`` after a commit, so a burst of commits costs one rewrite;
:meth:`Projector.flush` writes what is owed at once, and closing flushes.  With
``sync`` each commit writes its files before it returns.  Either way:

- files are rendered at the head the handle has caught up to, and a writer never puts
  files of an older seq over newer ones (it checks the manifest's seq under the
  projection lock and renders again);
- files edited by hand are skipped (drift);
- a process that dies with files owed leaves the manifest's seq behind the journal's
  head, and the next open rewrites the stale files (:meth:`Projector.opened`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Collection, Sequence

from memoir.engine.live import LiveState
from memoir.engine.materializer import Drift, Materializer, unwritable
from memoir.errors import ProjectionError
from memoir.events.types import Event
from memoir.logs import get_logger
from memoir.projections.memory import TARGETS
from memoir.projections.render import RENDERERS, Renderer, render_all
from memoir.projections.render.memory import memory_file, render_memory_file
from memoir.projections.screen import screened
from memoir.projections.state import State
from memoir.worker import Worker

__all__ = ["Projector"]

log = get_logger("memoir.engine")

#: How far back a memory file is compared with the journal's past renderings when the
#: manifest does not say when memoir last wrote it.
HISTORY_SCAN = 100_000

#: How long the writer thread waits for work before it ends (seconds).
IDLE_SECONDS = 1.0


class Projector:
    """Writes the projected files a handle's commits owe (see the module docstring).

    ``background``: a writer thread coalescing commits for ``coalesce`` seconds;
    otherwise the committing thread writes before its commit returns.
    """

    def __init__(
        self,
        live: LiveState,
        materializer: Materializer,
        *,
        background: bool = True,
        coalesce: float = 0.02,
        renderers: Sequence[Renderer] = RENDERERS,
    ) -> None:
        self.live = live
        self.materializer = materializer
        self.renderers = tuple(renderers)
        self._by_name = {r.name: r for r in self.renderers}
        # Files owed: (renderer name, path or token) -> last seq touching it.  Together
        # with the files as of _covered it is what the files must show.
        self._dirty: dict[tuple[str, str], int] = {}
        self._covered = 0
        #: Projected files found deleted when the home was opened and written again.
        self.restored: list[str] = []
        self._writer = _background_writer(self, coalesce) if background else None
        materializer.recognise = self.rendered_before

    # -- the follower protocol -------------------------------------------------------------

    @property
    def seq(self) -> int:
        """The seq the files are known to be current as of (-1: unknown)."""
        return self._covered

    @property
    def background(self) -> bool:
        """Whether a writer thread writes the files (else each commit does)."""
        return self._writer is not None

    @property
    def owed(self) -> int:
        """How many files (or skill folders) are owed a write."""
        return len(self._dirty)

    @property
    def error(self) -> Exception | None:
        """What the background writer's last pass raised (None after a good pass)."""
        return self._writer.error if self._writer is not None else None

    def opened(self) -> None:
        """Rewrite files that are behind (or ahead of) the journal after a crash.

        A crash can leave a file that memoir wrote but the journal does not match: the
        process died between the journal write and the file write, or (durability
        ``batch``/``never``) the journal lost an unsynced tail the file already showed.
        Such a file is memoir's, not a hand edit; it is rewritten.  The check runs only
        when the manifest's seq differs from the journal's head.
        """
        m = self.materializer
        if m.readonly:
            self._covered = self.live.state.seq
            return
        try:
            if m.interrupted:
                swept = m.sweep()  # a writer died mid-write: its temp files go
                if swept:
                    log.warning("projection.temp_files_removed", files=swept)
            missing = m.missing()
            if m.seq != self.live.state.seq or m.failed or m.interrupted or missing:
                self.rewrite(lambda drifted: [d.path for d in drifted])
                self._report(m.last_failed)
                back = [rel for rel in missing
                        if rel not in m.last_failed and m.read(rel) is not None]
                self.restored = back
                if back:
                    log.info("projection.restored", files=back,
                             why="deleted by hand; written again from the journal")
            self._covered = self.live.state.seq
        except Exception as exc:
            # The home opens all the same: the journal is whole, and the files stay owed
            # (status reports them, the next flush tries again).
            log.error("projection.write_failed", home=str(m.home), error=str(exc))
            self.reset()

    def folded(self, events: Sequence[Event]) -> None:
        """Under the state mutex: note the files ``events`` change (owed until written)."""
        if not events:
            return
        seq = events[-1].seq
        kinds = {type(e.data) for e in events}
        dirty = self._dirty
        for renderer in self.renderers:
            # A commit of 10,000 memory events need not be shown to the skills renderer.
            if not kinds.intersection(renderer.watches):
                continue
            for path in renderer.touched(events):
                dirty[(renderer.name, path)] = seq

    def advanced(self, *, committed: bool) -> None:
        if self.materializer.readonly:
            return
        if self._writer is not None:
            self._writer.request()
        elif committed:
            # Sync mode: the commit is durable already, so a failure is logged, not
            # raised; the files stay owed and the next commit, flush or open writes them.
            try:
                self.project()
            except Exception as exc:
                log.error("projection.write_failed", home=str(self.materializer.home),
                          error=str(exc))

    def reset(self) -> None:
        """Whatever the files show, bring them all to the journal's state next time."""
        self._covered = -1

    def flush(self) -> None:
        """Write the files owed, now; raise what writing them raised (the journal is
        unaffected: the next open or flush writes them).  A pass the background writer
        had already begun is waited for: once flush returns, nothing writes the files
        until the next commit, not even a pass that had been asked for (it is withdrawn:
        this one does its work)."""
        if self._writer is not None:
            self._writer.withdraw()
        self.project()
        if self._writer is not None:
            self._writer.wait_pass()

    def close(self, *, flush: bool = True) -> None:
        """Stop the writer thread and write what is owed (a failure is logged: the
        journal has it all, and the next open writes the files)."""
        if self._writer is not None:
            self._writer.stop(timeout=30)
        if not flush:
            return
        try:
            self.project()
        except Exception as exc:
            log.warning("projection.flush_failed", home=str(self.materializer.home),
                        error=str(exc))

    # -- writing ---------------------------------------------------------------------------

    def projected_files(self, state: State | None = None) -> dict[str, bytes | None]:
        """Every projected file and the bytes it should hold (None: no file)."""
        return render_all(state or self.live.state, self.renderers)

    def _render_owed(self, full: bool) -> tuple[int, dict[str, bytes | None], int]:
        """The files owed (every file if ``full``), rendered at the head: (seq, files, covered)."""
        with self.live.mutex:
            self.live.catch_up()
            state = self.live.state
            if full:
                return state.seq, self.projected_files(state), self._covered
            wanted: dict[str, set[str]] = {}
            for name, path in self._dirty:
                wanted.setdefault(name, set()).add(path)
            desired: dict[str, bytes | None] = {}
            for renderer in self.renderers:
                paths = wanted.get(renderer.name)
                if paths:
                    desired.update(renderer.files(state, paths))
            return state.seq, desired, self._covered

    def project(self) -> None:
        """Bring the projected files up to the head (skipping files edited by hand).

        Rendering happens under the state mutex, writing under the projection lock only,
        never the two nested the other way round; a writer never puts files of an older
        seq over a newer one (it renders again), and one that finds the manifest older
        than what its ledger covers (a lost manifest, another process's crash) writes
        every file.
        """
        if self.materializer.readonly:
            return
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
                    # No journal reads here: this thread holds the projection lock.
                    edits, blocked = unwritable(
                        self.materializer.drift(desired, recognise=False))
                    self.materializer.write(desired, seq=seq, skip=edits, blocked=blocked)
                failed = dict(self.materializer.last_failed)
            with self.live.mutex:
                self.settled(seq)
                if failed:
                    self.reset()  # the next pass tries every file again
            self._report(failed, raise_=True)
            return
        raise ProjectionError("could not bring the projected files up to date: other writers "
                              "kept moving them ahead of this handle's view of the journal")

    def _report(self, failed: dict[str, str], *, raise_: bool = False) -> None:
        """Log (or raise) the files a pass could not write."""
        if not failed:
            return
        shown = "; ".join(f"{rel}: {why}" for rel, why in sorted(failed.items())[:5])
        more = f" and {len(failed) - 5} more" if len(failed) > 5 else ""
        message = (f"could not write {len(failed)} projected file(s): {shown}{more}; the "
                   "journal has every change, and the files are written again on the next "
                   "flush (`memoir status` lists them)")
        if raise_:
            raise ProjectionError(message)
        log.error("projection.write_failed", home=str(self.materializer.home), error=message)

    def settled(self, seq: int) -> None:
        """Under the state mutex: the files are current as of ``seq``."""
        self._dirty = {k: s for k, s in self._dirty.items() if s > seq}
        self._covered = max(self._covered, seq)

    def rewrite(self, skip: Callable[[list[Drift]], Collection[str]], *,
                refold: bool = False) -> list[str]:
        """Write every projected file at the head, under the state mutex, the journal
        lock and the projection lock (nothing moves meanwhile); ``skip`` gets the files
        edited by hand and names those to leave alone (it may back them up, or raise
        to write nothing).  ``refold``: fold the state from the first record first.
        Files that could not be written are in ``materializer.last_failed``."""
        live = self.live
        with live.mutex, live.journal.locked(), self.materializer.locked():
            if refold:
                live.refold()
            else:
                live.catch_up()
            desired = self.projected_files()
            drifted = self.materializer.drift(desired)
            edits, blocked = unwritable(drifted)
            skipped = set(skip([d for d in drifted if d.path in edits]))
            accepted = {d.path: d.actual for d in drifted
                        if d.path not in skipped and d.actual is not None}
            written = self.materializer.write(desired, seq=live.state.seq, skip=skipped,
                                              replace=accepted, blocked=blocked)
            self.settled(live.state.seq)
            return written

    def drift(self) -> list[Drift]:
        """Projected files edited by hand since memoir last wrote them."""
        with self.live.mutex:
            self.live.catch_up()
            return self.materializer.drift(self.projected_files())

    def renderer(self, name: str) -> Renderer:
        return self._by_name[name]

    def rendered_before(self, rel: str, actual: bytes) -> bool:
        """Whether ``actual`` is what memoir rendered for the memory file ``rel`` at some
        seq (from the file's last known write, or the last HISTORY_SCAN seqs, to the
        head): such a file is memoir's own, whatever the manifest says — a process that
        died between renaming the file and recording it leaves one."""
        target = next((t for t in TARGETS if memory_file(t) == rel), None)
        if target is None:
            return False
        live = self.live
        with live.mutex:
            live.catch_up()
            head = live.state.seq
        known = self.materializer.written_at(rel) or self.materializer.seq
        start = min(known, head) if known else max(0, head - HISTORY_SCAN)
        state = live.view(start)
        if render_memory_file(state, target) == actual:
            return True
        for event in screened(live.journal.read(after=start, until=head), state.keys):
            state.apply(event)
            data = event.data
            if getattr(data, "target", None) == target and \
                    render_memory_file(state, target) == actual:
                return True
        return False


def _background_writer(projector: Projector, coalesce: float) -> Worker:
    """The background writer of one projector: commits that land while it writes join
    its next pass; it holds the projector only weakly, and its thread ends after
    :data:`IDLE_SECONDS` with nothing to do, so a forgotten handle keeps no thread."""
    ref = weakref.ref(projector)
    home = str(projector.materializer.home)

    def work() -> None:
        found = ref()
        if found is not None:
            found.project()

    def failed(exc: Exception, retry_in: float | None) -> None:
        log.error("projection.write_failed", home=home, error=str(exc),
                  retry_in_seconds=retry_in)

    return Worker("memoir-projector", work, coalesce=coalesce, idle=IDLE_SECONDS,
                  retry=True, on_error=failed)
