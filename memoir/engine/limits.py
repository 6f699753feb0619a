"""The character limits of config.yaml, journaled where they differ from the journal's.

Limits are part of the journaled state (so an old session's prompt never changes when
config.yaml does).  When the configured limits differ from those in force, a commit is
decided under the configured ones and appends a ``memory.limits_set`` (actor
``system``) before its own events; a commit that appends nothing leaves the journal's
limits in force.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from memoir.events.memory import LimitsSet
from memoir.events.types import Payload
from memoir.projections.state import State

__all__ = ["ConfiguredLimits"]


class ConfiguredLimits:
    """The prelude of every commit: the configured limits (see the module docstring)."""

    def __init__(self, memory: int, user: int) -> None:
        self.wanted = {"memory": memory, "user": user}

    def events(self, state: State, payloads: Sequence[Payload] = ()) -> list[Payload]:
        """A ``memory.limits_set`` when the limits in force differ from the configured
        ones (or nothing was ever journaled), unless ``payloads`` set limits already."""
        if state.memory.limits == self.wanted and state.seq > 0:
            return []
        if any(isinstance(p, LimitsSet) for p in payloads):
            return []
        return [LimitsSet(memory=self.wanted["memory"], user=self.wanted["user"])]

    @contextmanager
    def deciding(self, state: State, prelude: Sequence[Payload]) -> Iterator[None]:
        """Let a decision see the limits ``prelude`` sets; put the journal's back after."""
        before = state.memory.limits
        if prelude:
            change = prelude[0]
            assert isinstance(change, LimitsSet)
            state.memory.limits = {"memory": change.memory, "user": change.user}
        try:
            yield
        finally:
            state.memory.limits = before
