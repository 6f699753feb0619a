"""Configuration like a good tool: every problem at once with its line, did-you-mean,
Hermes's config.yaml accepted (what memoir does not use is reported, not refused),
``memoir config show|check``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import memoir
from memoir.cli import cli
from memoir.config import check_config, load_config
from memoir.errors import ConfigError

#: A config.yaml as a Hermes user has it (the parts that matter here).
HERMES_CONFIG = """\
model:
  default: anthropic/claude-sonnet-4
  provider: openrouter
agent:
  max_turns: 90
terminal:
  backend: local
memory:
  memory_enabled: true
  user_profile_enabled: false
  memory_char_limit: 2200
  user_char_limit: 1375
  provider: ""
  nudge_interval: 10
skills:
  creation_nudge_interval: 10
  external_dirs: []
  guard_agent_created: false
  template_vars: true
  inline_shell: false
curator:
  enabled: true
  interval_hours: 168
  backup:
    enabled: true
    keep: 5
display:
  memory_notifications: on
auxiliary:
  curator:
    provider: auto
"""


def test_a_hermes_config_is_used_as_it_is(home: Path) -> None:
    (home / "config.yaml").write_text(HERMES_CONFIG, encoding="utf-8")
    report = check_config(home)
    assert report.problems == [] and report.config is not None
    assert report.ignored == ["model", "agent", "terminal", "auxiliary", "memory.provider",
                              "skills.template_vars", "skills.inline_shell", "curator.backup"]
    config = report.config
    assert config.memory.user_profile_enabled is False
    assert config.skills.creation_nudge_interval == 10
    assert config.display.memory_notifications == "on"  # YAML's bare `on` is a boolean
    # user_profile_enabled: false keeps USER out of the prompt, as in Hermes.
    with memoir.open(home) as mem:
        session = mem.start_session()
        session.call_tool("memory", {"action": "add", "target": "user", "content": "Ada"})
        session.call_tool("memory", {"action": "add", "target": "memory", "content": "uv"})
        blocks = mem.start_session().prompt_blocks()
        assert blocks["user"] is None and "uv" in (blocks["memory"] or "")
        assert mem.prompt_blocks()["user"] is None


def test_every_problem_at_once_with_its_line_and_a_suggestion(home: Path) -> None:
    (home / "config.yaml").write_text(
        "memory:\n  memory_char_limt: 3000\n  user_char_limit: -5\n"
        "curator:\n  interval_hours: soon\nmemroy:\n  x: 1\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(home)
    assert list(caught.value.problems) == [
        "config.yaml:2: memory.memory_char_limt: unknown key (did you mean "
        "'memory_char_limit' or 'user_char_limit' or 'memory_enabled'?)",
        "config.yaml:3: memory.user_char_limit: Input should be greater than or equal to 1",
        "config.yaml:5: curator.interval_hours: Input should be a valid number, unable to "
        "parse string as a number",
        "config.yaml:6: memroy: not a section (did you mean 'memory'?)",
    ]
    result = CliRunner().invoke(cli, ["--home", str(home), "status"])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == ("memoir: error: the configuration has 4 problems (each below); "
                        "nothing was done")
    assert [line.split(":")[0] for line in lines[1:]] == ["  problem"] * 4


def test_a_yaml_error_names_its_line_and_column(home: Path) -> None:
    (home / "config.yaml").write_text("memory:\n  memory_char_limit: 3000\n bad: [\n",
                                      encoding="utf-8")
    report = check_config(home)
    assert report.config is None
    (problem,) = report.problems
    assert problem.startswith("config.yaml:3:") and "not valid YAML" in problem


def test_config_check_and_show(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (home / "config.yaml").write_text(HERMES_CONFIG, encoding="utf-8")
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")
    runner = CliRunner()
    check = runner.invoke(cli, ["--home", str(home), "config", "check"])
    assert check.exit_code == 0 and "ok: " in check.output
    assert "ignored: model (a Hermes setting memoir does not use)" in check.output
    shown = json.loads(runner.invoke(cli, ["--home", str(home), "config", "show",
                                           "--json"]).stdout)
    assert shown["config"]["memory"]["user_profile_enabled"] is False
    assert shown["config"]["journal"]["durability"] == "never"
    assert shown["sources"]["journal.durability"] == "$MEMOIR_DURABILITY"
    assert shown["sources"]["memory.user_profile_enabled"] == "config.yaml:10"
    text = runner.invoke(cli, ["--home", str(home), "config", "show"]).output
    assert "  user_profile_enabled: false  # config.yaml:10" in text
    (home / "config.yaml").write_text("memory:\n  nudge: 3\n", encoding="utf-8")
    bad = runner.invoke(cli, ["--home", str(home), "config", "check", "--json"])
    assert bad.exit_code == 1
    assert json.loads(bad.stdout)["problems"] == [
        "config.yaml:2: memory.nudge: unknown key (did you mean 'nudge_interval'?)"]
