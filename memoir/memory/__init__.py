"""Long-term memory: MEMORY.md (``memory``) and USER.md (``user``).

- :mod:`memoir.memory.decision` — the ``memory`` tool's semantics, decided purely against a
  state (Hermes's arguments, rules and results);
- :mod:`memoir.memory.adoption` — hand edits of the files turned into events;
- :mod:`memoir.memory.commands` — the tool run through the command layer, its schema
  and its handler.

The memory projection (entries, limits, renderings) is :mod:`memoir.projections.memory`.
"""

from memoir.memory.adoption import plan_adoption, plan_edit
from memoir.memory.commands import MEMORY_SCHEMA, memory_call, memory_tool
from memoir.memory.decision import MemoryOutcome, decide

__all__ = [
    "MEMORY_SCHEMA",
    "MemoryOutcome",
    "decide",
    "memory_call",
    "memory_tool",
    "plan_adoption",
    "plan_edit",
]
