"""The curator: lifecycle transitions, schedule, consolidation plans, reports.  (The
revert of any run, a curator pass's included, is the person's: :mod:`memoir.oversight`.)

The curator projection is :mod:`memoir.projections.curator`, its files are rendered by
:mod:`memoir.projections.render.curator`; the CLI group is :mod:`memoir.commands.curator`.
Importing this package registers nothing.
"""

from __future__ import annotations

from memoir.curator.config import CuratorConfig, curator_config
from memoir.curator.due import should_run
from memoir.curator.lifecycle import (
    LifecycleOutcome,
    Transition,
    automatic_transitions,
    candidates,
    transition_events,
)
from memoir.curator.passes import PassResult, decide_pass, run_pass
from memoir.curator.planner import rules_plan
from memoir.curator.plans import (
    Consolidation,
    Plan,
    Pruning,
    Refusal,
    Umbrella,
    load_plan,
    parse_plan,
    validate_plan,
)
from memoir.curator.schedule import idle_seconds, maybe_run
from memoir.curator.state_commands import pause, resume
from memoir.projections.render.curator import CuratorRenderer

__all__ = [
    "Consolidation",
    "CuratorConfig",
    "CuratorRenderer",
    "LifecycleOutcome",
    "PassResult",
    "Plan",
    "Pruning",
    "Refusal",
    "Transition",
    "Umbrella",
    "automatic_transitions",
    "candidates",
    "curator_config",
    "decide_pass",
    "idle_seconds",
    "load_plan",
    "maybe_run",
    "parse_plan",
    "pause",
    "resume",
    "rules_plan",
    "run_pass",
    "should_run",
    "transition_events",
    "validate_plan",
]
