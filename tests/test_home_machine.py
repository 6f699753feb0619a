"""memoir's own suite runs the shipped state machine (memoir.testing.machine): a bounded
number of examples here, more under ``-m slow``."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import rule

from memoir.testing.machine import HomeMachine

TestHomeMachine = HomeMachine.TestCase
TestHomeMachine.settings = settings(max_examples=50, stateful_step_count=30, deadline=None,
                                    suppress_health_check=[HealthCheck.too_slow])


class _Longer(HomeMachine):
    pass


@pytest.mark.slow
def test_the_home_machine_for_longer() -> None:
    case = _Longer.TestCase
    case.settings = settings(max_examples=300, stateful_step_count=50, deadline=None,
                             suppress_health_check=list(HealthCheck))
    case().runTest()


class _WritesBehindTheJournal(HomeMachine):
    """A user's rule with a bug: it writes MEMORY.md itself instead of through memoir."""

    @rule()
    def scribble(self) -> None:
        self.home.flush()
        target = self.path / "memories" / "MEMORY.md"
        target.parent.mkdir(exist_ok=True)
        target.write_text("written behind memoir's back", encoding="utf-8")


def test_a_subclass_rule_that_breaks_a_guarantee_is_caught() -> None:
    case = _WritesBehindTheJournal.TestCase
    case.settings = settings(max_examples=30, stateful_step_count=10, deadline=None,
                             suppress_health_check=list(HealthCheck), print_blob=False)
    with pytest.raises(AssertionError, match=r"memories/MEMORY\.md"):
        case().runTest()
