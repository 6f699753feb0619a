"""memoir: event-sourced memory and learning for AI agents.

Every memory mutation is an event in an append-only journal; MEMORY.md, USER.md and
everything else are projections of it.  Start here::

    import memoir
    with memoir.open("~/.memoir") as home:
        session = home.start_session()
        session.call_tool("memory", {"action": "add", "target": "user",
                                     "content": "Prefers short answers"})
        print(session.prompt_blocks()["user"])
"""

from __future__ import annotations

import os

from memoir import curator as _curator  # noqa: F401  (curator folds and reports)
from memoir import events as _events  # noqa: F401  (registers the event types)
from memoir import skills as _skills  # noqa: F401  (skill folds, renderer, tools)
from memoir.clock import Clock, FakeClock, SystemClock
from memoir.config import Config, load_config
from memoir.errors import (
    ConfigError,
    ConflictError,
    DriftError,
    JournalCorrupted,
    JournalError,
    MemoirError,
    NotFoundError,
    RejectedError,
    UnknownEventType,
    ValidationError,
)
from memoir.events import (
    Draft,
    Event,
    ExpectHead,
    ExpectUntouched,
    FileJournal,
    InMemoryJournal,
    Journal,
)
from memoir.home import Decision, Memoir, default_home
from memoir.projections.state import State
from memoir.session import Session
from memoir.tools import tool_schemas

__all__ = [
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
    "Memoir",
    "MemoirError",
    "NotFoundError",
    "RejectedError",
    "Session",
    "State",
    "SystemClock",
    "UnknownEventType",
    "ValidationError",
    "__version__",
    "default_home",
    "load_config",
    "open",
    "tool_schemas",
]

__version__ = "0.1.0"


def open(
    home: str | os.PathLike[str] | None = None,
    *,
    journal: Journal | None = None,
    config: Config | None = None,
    clock: Clock | None = None,
) -> Memoir:
    """Open (creating if needed) the memoir home at ``home``.

    The default home is ``$MEMOIR_HOME``, else ``~/.memoir``.  Pass ``journal`` to use
    another backend (e.g. :class:`InMemoryJournal`), ``clock`` to inject time.
    """
    return Memoir(home, journal=journal, config=config, clock=clock)
