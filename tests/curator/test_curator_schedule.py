"""The schedule (spec §4.2): interval, paused, enabled, deferred first run, and an idle
gate measured from the journal that actually holds passes back."""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path

import pytest

from memoir.clock import FakeClock, parse_ts
from memoir.config import load_config
from memoir.curator import maybe_run, pause, resume, run_pass, should_run
from memoir.curator.config import CuratorConfig, curator_config
from memoir.curator.schedule import DEFERRED, idle_seconds
from memoir.errors import ConfigError, ValidationError
from memoir.projections.curator import CuratorState
from tests.support.curator import START, create, open_home, use

T0 = parse_ts(START)


def test_first_check_defers_the_first_pass_by_one_interval(home: Path) -> None:
    clock = FakeClock(START)
    m = open_home(home, clock=clock)
    assert should_run(m.state.curator, T0, CuratorConfig()) == (False, DEFERRED)
    assert maybe_run(m) is None
    cur = m.state.curator
    assert cur.last_run_at == T0.isoformat() and cur.run_count == 0
    assert cur.last_run_summary is not None
    assert cur.last_run_summary.startswith("deferred first run — ")
    m.flush()
    assert (home / "skills/.curator_state").exists()
    clock.advance(hours=167)
    assert maybe_run(m, idle_for=math.inf) is None
    clock.advance(hours=1)
    result = maybe_run(m, idle_for=math.inf)
    assert result is not None and m.state.curator.run_count == 1


def test_a_second_deferral_is_not_journaled(home: Path) -> None:
    m = open_home(home)
    maybe_run(m)
    head = m.head
    maybe_run(m)
    assert m.head == head


def test_paused_and_disabled_curators_never_run_by_schedule(home: Path) -> None:
    cur = CuratorState(last_run_at=(T0 - dt.timedelta(days=30)).isoformat())
    assert should_run(cur, T0, CuratorConfig()) == (True, "due")
    assert should_run(cur, T0, CuratorConfig(enabled=False))[1] == "disabled"
    cur.paused = True
    assert should_run(cur, T0, CuratorConfig())[1] == "paused"


def test_interval_is_configurable_in_hours() -> None:
    cur = CuratorState(last_run_at=T0.isoformat())
    cfg = CuratorConfig(interval_hours=24)
    assert not should_run(cur, T0 + dt.timedelta(hours=23), cfg)[0]
    assert should_run(cur, T0 + dt.timedelta(hours=24), cfg)[0]


def test_pause_and_resume_are_journaled_runs_and_gate_the_schedule(home: Path) -> None:
    clock = FakeClock(START)
    m = open_home(home, clock=clock)
    maybe_run(m)
    run = pause(m)
    assert run is not None and m.state.runs[run].kind == "cli"
    assert pause(m) is None  # already paused: nothing appended
    m.flush()
    assert '"paused": true' in (home / "skills/.curator_state").read_text()
    clock.advance(days=30)
    assert maybe_run(m, idle_for=math.inf) is None
    assert resume(m) is not None
    assert maybe_run(m, idle_for=math.inf) is not None


def test_idle_gate_waits_for_the_agent_to_be_quiet(home: Path) -> None:
    clock = FakeClock(START)
    m = open_home(home, clock=clock)
    maybe_run(m)
    create(m, "tool")
    clock.advance(hours=200)
    use(m, "tool")  # the agent is active right now
    clock.advance(minutes=30)
    assert idle_seconds(m, clock.now()) == pytest.approx(1800)
    assert maybe_run(m) is None
    clock.advance(hours=2)
    assert maybe_run(m) is not None


def test_background_events_do_not_count_as_activity(home: Path) -> None:
    clock = FakeClock(START)
    m = open_home(home, clock=clock)
    create(m, "tool", actor="agent")  # the agent at work (a person asked for the skill)
    clock.advance(hours=5)
    run_pass(m)  # curator events only
    assert idle_seconds(m, clock.now()) == pytest.approx(5 * 3600)
    assert idle_seconds(open_home(home / "empty"), T0) == math.inf


def test_an_explicit_idle_time_overrides_the_journal(home: Path) -> None:
    clock = FakeClock(START)
    m = open_home(home, clock=clock)
    maybe_run(m)
    clock.advance(days=8)
    create(m, "tool")
    assert maybe_run(m, idle_for=60) is None
    assert maybe_run(m, idle_for=3 * 3600) is not None


def test_manual_run_bypasses_the_schedule_but_needs_the_curator_enabled(home: Path) -> None:
    m = open_home(home, curator={"enabled": False})
    with pytest.raises(ValidationError, match="disabled"):
        run_pass(m)
    assert maybe_run(m) is None
    m2 = open_home(home / "other")
    pause(m2)
    assert run_pass(m2) is not None


def test_config_section_has_hermes_defaults_and_refuses_bad_values(home: Path) -> None:
    cfg = curator_config(open_home(home).config)
    assert (cfg.enabled, cfg.interval_hours, cfg.min_idle_hours, cfg.stale_after_days,
            cfg.archive_after_days, cfg.prune_builtins, cfg.consolidate) == (
        True, 168, 2, 30, 90, True, False)
    (home / "x").mkdir()
    (home / "x" / "config.yaml").write_text("curator:\n  stale_after_days: 0\n")
    with pytest.raises(ConfigError, match=r"curator\.stale_after_days"):
        load_config(home / "x")
