"""Forgetting content for good while the journal still verifies: :mod:`.plan` finds
what a selector names (nothing changes), :mod:`.carry` journals the forget and carries
it out (see its docstring for the steps)."""

from memoir.engine.forget.carry import ForgetInterrupted, finish_forgets, forget
from memoir.engine.forget.plan import ForgetPlan, plan_forget

__all__ = ["ForgetInterrupted", "ForgetPlan", "finish_forgets", "forget", "plan_forget"]
