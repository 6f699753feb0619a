"""The port between the domains and the engine: what domain code may use of an open
home.

Domain functions (memory, skills, the curator, recall, reviewers, the prompt, the
person's tools) take a :class:`Home`, not the :class:`~memoir.engine.engine.Engine`:
the state and views of it, the journal's records, commits, the configuration, the
clock and the files view, plus a few named operations for what they need of the
internals.  :class:`~memoir.engine.engine.Engine` (and the API's ``Memoir``) is one;
the layer test keeps code outside ``engine/`` and ``api.py`` off the internals
(journal, projector, materializer, checkpoints, seals, followers, the commit queue).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path
from typing import Protocol, TypeVar

from memoir.clock import Clock
from memoir.config import Config
from memoir.engine.commit import Caller, Decision
from memoir.engine.files import FilesView
from memoir.engine.materializer import Drift
from memoir.engine.prompts import PromptCache
from memoir.events.types import Event
from memoir.journal import Expectation
from memoir.journal.interface import SharedBodies
from memoir.projections.state import State

__all__ = ["Home"]

T = TypeVar("T")


class Home(Protocol):
    """What domain code may use of an open home (see the module docstring)."""

    home: Path
    config: Config
    clock: Clock
    readonly: bool
    files: FilesView

    @property
    def state(self) -> State:
        """The state at the head (after catching up with other processes)."""

    @property
    def head(self) -> int:
        """The last seq in the journal."""

    @property
    def persistent(self) -> bool:
        """Whether the journal outlives this handle."""

    @property
    def bodies(self) -> SharedBodies | None:
        """Where a shared journal keeps recorded messages' bodies for every home (None:
        this home keeps them alone)."""

    def view(self, seq: int | None = None) -> State:
        """An independent copy of the state at ``seq`` (default: the head)."""

    def at(self, seq: int | None, use: Callable[[State], T]) -> T:
        """``use(state)`` with the state at ``seq``, not copied at the head."""

    def events(self, *, types: Iterable[str] = (), actor: str | None = None,
               run: str | None = None, session: str | None = None, after: int = 0,
               until: int | None = None, reverse: bool = False,
               where: Callable[[Event], bool] | None = None) -> Iterator[Event]:
        """Journal records, filtered."""

    def record(self, seq: int) -> Event | None:
        """The record at ``seq`` (None: there is none)."""

    def commit(self, decide: Callable[[State], Decision[T]], *, by: Caller | str,
               expect: Expectation | None = None) -> tuple[list[Event], T]:
        """Decide against the fresh state under the journal lock and append."""

    def commit_with_files(self, decide: Callable[[State, FilesView], Decision[T]], *,
                          by: Caller | str, expect: Expectation | None = None
                          ) -> tuple[list[Event], T]:
        """:meth:`commit` for a decision that also sees the projected files."""

    def flush(self) -> None:
        """Write the projected files the last commits owe."""

    def kept_prompts(self) -> PromptCache:
        """The kept prompt blocks of the home's sessions."""

    def backup_file(self, rel: str, stamp: int) -> Path | None:
        """Copy a projected file to ``<file>.bak.<stamp>``."""

    def rewrite_files(self, skip: Callable[[list[Drift]], Collection[str]]) -> list[str]:
        """Write every projected file but the hand-edited ones ``skip`` names."""
