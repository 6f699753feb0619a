"""memoir: event-sourced memory and learning for AI agents.

Every memory mutation is an event in an append-only journal; MEMORY.md, USER.md and
everything else are projections of it.  Start here::

    import memoir
    with memoir.open("~/.memoir") as home:
        session = home.start_session()
        session.call_tool("memory", {"action": "add", "target": "user",
                                     "content": "Prefers short answers"})
        print(session.prompt_blocks()["user"])

The names below are loaded on first use, so ``import memoir.ids`` (or the CLI's
``--version``) does not load the whole package.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memoir.api import Memoir
    from memoir.clock import Clock, FakeClock, SystemClock
    from memoir.config import Config, load_config
    from memoir.engine import CallContext, Caller, Decision, default_home
    from memoir.errors import (
        AdoptionConflict,
        ConfigError,
        ConflictError,
        DriftError,
        JournalCorrupted,
        JournalError,
        JournalLost,
        MemoirError,
        NotFoundError,
        ProjectionError,
        RejectedError,
        UnknownEventType,
        ValidationError,
    )
    from memoir.events import Draft, Event
    from memoir.journal import ExpectHead, ExpectUntouched, FileJournal, InMemoryJournal, Journal
    from memoir.projections.state import State
    from memoir.sessions.session import Session
    from memoir.tools import Tool, Toolset, tool_schemas

__all__ = [
    "AdoptionConflict",
    "CallContext",
    "Caller",
    "Clock",
    "Config",
    "ConfigError",
    "ConflictError",
    "Decision",
    "Draft",
    "DriftError",
    "Event",
    "ExpectHead",
    "ExpectUntouched",
    "FakeClock",
    "FileJournal",
    "InMemoryJournal",
    "Journal",
    "JournalCorrupted",
    "JournalError",
    "JournalLost",
    "Memoir",
    "MemoirError",
    "NotFoundError",
    "ProjectionError",
    "RejectedError",
    "Session",
    "State",
    "SystemClock",
    "Tool",
    "Toolset",
    "UnknownEventType",
    "ValidationError",
    "__version__",
    "default_home",
    "load_config",
    "open",
    "tool_schemas",
]

__version__ = "0.1.0"

#: Where each public name lives (imported on first access, PEP 562).
_EXPORTS: dict[str, str] = {
    "CallContext": "memoir.engine",
    "Caller": "memoir.engine",
    "Clock": "memoir.clock",
    "Config": "memoir.config",
    "ConfigError": "memoir.errors",
    "ConflictError": "memoir.errors",
    "Decision": "memoir.engine",
    "Draft": "memoir.events",
    "DriftError": "memoir.errors",
    "Event": "memoir.events",
    "ExpectHead": "memoir.journal",
    "ExpectUntouched": "memoir.journal",
    "FakeClock": "memoir.clock",
    "FileJournal": "memoir.journal",
    "InMemoryJournal": "memoir.journal",
    "JournalLost": "memoir.errors",
    "AdoptionConflict": "memoir.errors",
    "Journal": "memoir.journal",
    "JournalCorrupted": "memoir.errors",
    "JournalError": "memoir.errors",
    "Memoir": "memoir.api",
    "MemoirError": "memoir.errors",
    "NotFoundError": "memoir.errors",
    "ProjectionError": "memoir.errors",
    "RejectedError": "memoir.errors",
    "Session": "memoir.sessions.session",
    "State": "memoir.projections.state",
    "SystemClock": "memoir.clock",
    "Tool": "memoir.tools",
    "Toolset": "memoir.tools",
    "UnknownEventType": "memoir.errors",
    "ValidationError": "memoir.errors",
    "default_home": "memoir.engine",
    "load_config": "memoir.config",
    "tool_schemas": "memoir.tools",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'memoir' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def open(
    home: str | os.PathLike[str] | None = None,
    *,
    journal: Journal | None = None,
    config: Config | None = None,
    clock: Clock | None = None,
    readonly: bool = False,
    create: bool = True,
    follow: bool = False,
) -> Memoir:
    """Open (creating if needed) the memoir home at ``home``.

    The default home is ``$MEMOIR_HOME``, else ``~/.memoir``.  Pass ``journal`` to use
    another backend (e.g. :class:`InMemoryJournal`), ``clock`` to inject time;
    ``readonly=True`` opens an existing home without creating or writing anything;
    ``create=False`` refuses (:class:`NotFoundError`) a folder that is not yet a home;
    ``follow=True`` keeps the handle caught up with other writers (:meth:`Memoir.follow`).
    """
    handle: type[Memoir] = __getattr__("Memoir")
    return handle(home, journal=journal, config=config, clock=clock, readonly=readonly,
                  create=create, follow=follow)
