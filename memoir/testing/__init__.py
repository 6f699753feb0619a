"""Test doubles, journal builders and Hypothesis strategies for code that uses memoir.

Everything here is public and stable enough to build tests on::

    from hypothesis import given
    from memoir.testing import FakeClock, build_journal, memory_command_lists, replay

    @given(memory_command_lists())
    def test_replay_is_deterministic(commands):
        journal = build_journal(None, commands, clock=FakeClock())
        assert replay(journal) == replay(journal)

* :class:`FakeClock` and :class:`InMemoryJournal` — the clock and the journal to inject.
* :func:`build_journal` — a journal holding what a list of ``memory`` tool calls records.
* :func:`replay` — the state folded from a journal from scratch.
* Strategies (need ``hypothesis``: the ``testing`` extra): :func:`memory_texts`,
  :func:`memory_commands`, :func:`memory_command_lists`, :func:`memory_drafts`.
* Recorded history (:mod:`memoir.testing.recorded`): ``recorded``, ``replay_commands``,
  ``recorded_variants``, ``check_history``; :class:`HomeMachine`, a Hypothesis state
  machine of a home (:mod:`memoir.testing.machine`); the journal contract as tests:
  :mod:`memoir.testing.journal_conformance`.  These are importable from here too, and
  are imported only when first used (they need Hypothesis).

Texts never hold lone surrogates (``"\\ud800"``): JSON cannot carry them, so the journal
refuses them (``ValidationError``) and no agent framework can send them.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

__all__ = [
    "FakeClock",
    "HomeMachine",
    "InMemoryJournal",
    "build_journal",
    "check_history",
    "memory_command_lists",
    "memory_commands",
    "memory_drafts",
    "memory_texts",
    "recorded",
    "recorded_variants",
    "replay",
    "replay_commands",
]

if TYPE_CHECKING:  # what a type checker sees; at run time, __getattr__ below
    from memoir.clock import FakeClock
    from memoir.journal import InMemoryJournal
    from memoir.testing.builders import (
        build_journal,
        memory_command_lists,
        memory_commands,
        memory_drafts,
        memory_texts,
        replay,
    )
    from memoir.testing.machine import HomeMachine
    from memoir.testing.recorded import (
        check_history,
        recorded,
        recorded_variants,
        replay_commands,
    )

#: Where each name is defined; imported on first use, so importing this package (the
#: pytest plugin does, in every pytest session of an environment with memoir) loads
#: nothing else of memoir.
_LAZY = {"FakeClock": "memoir.clock", "InMemoryJournal": "memoir.journal",
         "HomeMachine": "memoir.testing.machine", "recorded": "memoir.testing.recorded",
         "replay_commands": "memoir.testing.recorded",
         "recorded_variants": "memoir.testing.recorded",
         "check_history": "memoir.testing.recorded",
         **{name: "memoir.testing.builders" for name in (
             "ADVERSARIAL_TEXTS", "build_journal", "memory_command_lists",
             "memory_commands", "memory_drafts", "memory_texts", "replay")}}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'memoir.testing' has no attribute {name!r}")


class _Package(types.ModuleType):
    """This package, which keeps ``recorded`` the function: importing the submodule of
    that name would otherwise bind the module over it."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _LAZY and isinstance(value, types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
