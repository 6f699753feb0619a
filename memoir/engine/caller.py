"""The call context: who is calling a tool, in which session and run, and what this
caller has been shown and holds — the per-call state every tool handler gets.

A :class:`~memoir.sessions.session.Session` owns one for its agent; a reviewer builds its own
(its actor, its run, its own read marks), so the same handlers serve both without
any per-session state hidden elsewhere.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from memoir.engine.commit import Caller

__all__ = ["CallContext", "HeldEntries", "ReadMark", "is_background"]

#: What ``skill_view`` showed a caller: (skill name, file path, sha256 of the text).
ReadMark = tuple[str, str, str]
#: Per memory target: (the target's entries in the journal state then, the entries the
#: caller holds in memory) — Hermes answers a replace or remove without ``old_text``
#: from the latter.
HeldEntries = dict[str, tuple[list[str], list[str]]]


def is_background(actor: str) -> bool:
    """Whether ``actor`` works without a person present (a reviewer or the curator)."""
    return actor.startswith("reviewer.") or actor == "curator"


@dataclass
class CallContext:
    """Per-caller state of tool calls (see the module docstring).

    ``run_kind``: when set, the first write that lands starts run ``run`` (a
    ``run.started`` of that kind, ``run_summary`` its summary, in the same append) — how a
    CLI edit or a review becomes one run.
    """

    actor: str
    session: str | None = None
    run: str | None = None
    run_kind: str | None = None
    #: The summary of the ``run.started`` a first write lands (default: the write's own).
    run_summary: str | None = None
    #: The caller's own facts, carried as the ``meta`` of the records its calls write
    #: (the MCP client of a session, say).
    meta: dict[str, str] | None = None
    #: What skill_view showed this caller (read-before-write for background actors).
    viewed: set[ReadMark] = field(default_factory=set)
    #: The memory entries this caller last held, per target.
    held: HeldEntries = field(default_factory=dict)
    #: Memory consolidation failures in the current turn (spec §1.6).
    failures: int = 0
    #: Whether this caller's reads are recorded (a skill view's ``skill.viewed``); a guest
    #: session, which may not append, reads without a trace.
    records_reads: bool = True
    #: Serialises the calls of one caller (a session used from several threads).
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def caller(self, *, starts_run: bool = True) -> Caller:
        """Who this context's commits are by; ``starts_run=False`` for a commit that
        must not start the context's run (a read recorded, not a write)."""
        return Caller(actor=self.actor, session=self.session, run=self.run,
                      run_kind=self.run_kind if starts_run else None,
                      run_summary=self.run_summary, meta=self.meta)

    def new_turn(self) -> None:
        """A new user turn: the consolidation-failure count starts again."""
        with self.lock:
            self.failures = 0
