"""memoir.testing.strategies: each strategy draws what memoir accepts or refuses cleanly,
and shrinks to a readable minimal example."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

import memoir
from memoir.curator.plans import plan_from_data
from memoir.errors import MemoirError
from memoir.testing.strategies import (
    apply_commands,
    command_sequences,
    curator_plans,
    hand_edits,
    turns,
)

FAST = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


@FAST
@given(turn=turns())
def test_every_drawn_turn_is_recorded_or_refused_with_a_reason(turn: list[dict[str, Any]],
                                                               tmp_path_factory: Any) -> None:
    home = tmp_path_factory.mktemp("turns")
    (home / "journal.jsonl").touch()
    (home / "config.yaml").write_text("reviewers:\n  mode: off\njournal:\n  durability: "
                                      "never\n", encoding="utf-8")
    with memoir.open(home) as mem:
        session = mem.start_session()
        try:
            recorded = session.record_turn(turn)
        except MemoirError as exc:
            assert str(exc)  # refused, and says why
        else:
            assert recorded.turns  # type: ignore[attr-defined]


@FAST
@given(plan=curator_plans())
def test_every_drawn_plan_parses_into_items_or_refusals(plan: dict[str, Any]) -> None:
    try:
        parsed, refusals = plan_from_data(plan, source="test")
    except MemoirError as exc:
        assert str(exc)
    else:
        assert parsed is not None and isinstance(refusals, list)


@FAST
@given(edit=hand_edits(), before=st.sampled_from(["", "Uses uv.", "Uses uv.\n§\nTabs."]))
def test_hand_edits_are_text_to_text(edit: Any, before: str) -> None:
    after = edit(before)
    assert isinstance(after, str) and edit.__name__


def test_turns_shrink_to_a_short_readable_turn() -> None:
    smallest = find(turns(), lambda t: any(m["role"] == "tool" for m in t),
                    settings=settings(database=None, max_examples=500, derandomize=True))
    assert [m["role"] for m in smallest] == ["user", "assistant", "tool", "assistant"]
    assert len(repr(smallest)) < 400


def test_command_sequences_shrink_to_the_one_command_that_matters() -> None:
    smallest = find(command_sequences(), lambda cs: any(c["op"] == "revert_last" for c in cs),
                    settings=settings(database=None, max_examples=500, derandomize=True))
    # Shrinking is a search with a time budget: on an idle machine it ends at the revert
    # alone; on a loaded one it may stop with a simple call or two before it.
    assert smallest[-1] == {"op": "revert_last"} and len(smallest) <= 3, smallest
    assert len(repr(smallest)) < 400


def test_the_sequences_reach_every_kind_of_command() -> None:
    seen: set[str] = set()

    @settings(max_examples=200, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(command_sequences(max_size=5))
    def collect(commands: list[dict[str, Any]]) -> None:
        seen.update(c["op"] for c in commands)

    collect()
    assert seen == {"memory", "skill_manage", "record_turn", "hand_edit", "curator_pass",
                    "new_session", "revert_last"}


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(commands=command_sequences(max_size=12))
def test_any_command_sequence_keeps_the_guarantees(commands: list[dict[str, Any]],
                                                   tmp_path_factory: Any) -> None:
    """Carried out on a real home, any sequence leaves it consistent: the fold of its
    journal is its live state, its files are what that state renders, it verifies."""
    from memoir.projections.state import State
    from memoir.testing.recorded import unprojected, visible_state

    home = tmp_path_factory.mktemp("sequence")
    (home / "journal.jsonl").touch()
    (home / "config.yaml").write_text("reviewers:\n  mode: off\njournal:\n  durability: "
                                      "never\nepisodic:\n  semantic: off\n", encoding="utf-8")
    with memoir.open(home) as mem:
        results = apply_commands(mem, commands)
        assert len(results) == len(commands)
        assert visible_state(State().apply_all(mem.events())) == visible_state(mem.state)
        assert unprojected(mem) == []
        assert mem.verify().records == mem.head
