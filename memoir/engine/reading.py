"""Reading an open home: the state at the head or at any seq, the journal's records,
filtered.  :class:`~memoir.engine.engine.Engine` is a :class:`Reading` with a live state
and a journal; the writing side (commits, files, maintenance) is the engine's own."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypeVar

from memoir.engine.live import LiveState
from memoir.engine.projector import Projector
from memoir.engine.prompts import PROMPTS, PromptCache
from memoir.errors import NotFoundError
from memoir.events.types import Event
from memoir.fs.folder import Folder
from memoir.journal import Journal
from memoir.journal.interface import SharedBodies
from memoir.projections.state import State

__all__ = ["Reading"]

T = TypeVar("T")


class Reading:
    """The read side of an open home (see the module docstring)."""

    home: Path
    readonly: bool
    journal: Journal
    live: LiveState
    projector: Projector
    _key: bytes | None

    @property
    def restored(self) -> list[str]:
        """Projected files found deleted by hand when the home opened, and written again
        from the journal then."""
        return list(self.projector.restored)

    @property
    def head(self) -> int:
        """The last seq in the journal (after reading what other processes appended)."""
        self.live.catch_up()
        return self.live.state.seq

    @property
    def state(self) -> State:
        """The live state, caught up.  Treat it as read-only; use :meth:`view` to keep one."""
        self.live.catch_up()
        return self.live.state

    def view(self, seq: int | None = None) -> State:
        """An independent copy of the state at ``seq`` (default: the head)."""
        return self.live.view(seq)

    def events(
        self,
        *,
        types: Iterable[str] = (),
        actor: str | None = None,
        run: str | None = None,
        session: str | None = None,
        after: int = 0,
        until: int | None = None,
        reverse: bool = False,
        where: Callable[[Event], bool] | None = None,
    ) -> Iterator[Event]:
        """Journal records filtered by type (exact or ``prefix.*``), actor, run, session,
        seq and any ``where``; newest first with ``reverse`` (read from the journal's end,
        so the last few records of a long journal are cheap)."""
        wanted = tuple(types)
        exact = {t for t in wanted if not t.endswith("*")}
        prefixes = tuple(t[:-1] for t in wanted if t.endswith("*"))
        read = self.journal.read_reverse if reverse else self.journal.read
        for event in read(after=after, until=until):
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
            if where is not None and not where(event):
                continue
            yield event

    def event(self, seq: int) -> Event:
        found = self.record(seq)
        if found is None:
            raise NotFoundError(f"no event with seq {seq} (head is {self.head})")
        return found

    def record(self, seq: int) -> Event | None:
        """The record at ``seq`` (None: there is none), read from the nearest position
        the journal knows, not by a scan from the start."""
        return next(iter(self.journal.read(after=seq - 1, until=seq)), None)

    @property
    def persistent(self) -> bool:
        """Whether the journal outlives this handle (a file; not an in-memory journal)."""
        return self.journal.persistent

    @property
    def bodies(self) -> SharedBodies | None:
        """Where a shared journal keeps recorded messages' bodies (None: the home alone)."""
        return self.journal if isinstance(self.journal, SharedBodies) else None

    def at(self, seq: int | None, use: Callable[[State], T]) -> T:
        """``use(state)`` with the state at ``seq`` (default: the head): the live state
        itself at the head, under its mutex and not copied (opening a session on a long
        history stays fast); before it, the memory part of the state, which is what a
        past prompt needs (:meth:`LiveState.memory_view`)."""
        live = self.live
        with live.mutex:
            live.catch_up()
            if seq is None or seq == live.state.seq:
                return use(live.state)
        return use(live.memory_view(seq))

    def kept_prompts(self) -> PromptCache:
        """The kept prompt blocks of this home's sessions (:mod:`memoir.engine.prompts`)."""
        return PromptCache(Folder(self.home, PROMPTS), key=self._key,
                           readonly=self.readonly or not self.journal.persistent)
