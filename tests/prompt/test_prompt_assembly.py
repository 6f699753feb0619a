"""The full prompt of a turn: documented order, frozen parts from the pin, relevant
skills under a cap and a threshold, recalled sessions fenced and journaled so any past
turn's prompt renders again exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memoir
from memoir.cli import cli
from memoir.recall.relevance import SkillScorer
from memoir.skills.tools import skill_manage_call


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")


def _skill(mem: memoir.Memoir, name: str, description: str, body: str,
           category: str | None = None) -> None:
    args = {"action": "create", "name": name,
            "content": f"---\nname: {name}\ndescription: {description}\n---\n{body}\n"}
    if category:
        args["category"] = category
    assert skill_manage_call(mem, args, by="user")["success"]


def test_the_prompt_assembles_its_parts_in_order_and_renders_again(home: Path) -> None:
    (home / "config.yaml").write_text("reviewers:\n  mode: off\n", encoding="utf-8")
    with memoir.open(home) as mem:
        mem.start_session().call_tool("memory", {"action": "add", "target": "user",
                                                 "content": "Name: Ada."})
        _skill(mem, "postgres-upgrade", "Upgrade PostgreSQL major versions safely.",
               "Use pg_upgrade --link on a snapshot; test on staging first.", "databases")
        _skill(mem, "react-perf", "Speed up slow React renders.",
               "Memoize rows with React.memo and filters with useMemo.", "frontend")
        _skill(mem, "old-skill", "Something archived.", "Gone.")
        skill_manage_call(mem, {"action": "delete", "name": "old-skill"}, by="user")
        with mem.start_session() as past:
            past.record_turn([{"role": "user", "content": "We planned the Postgres 16 upgrade "
                               "with a maintenance window."},
                              {"role": "assistant", "content": "Plan written."}])
        session = mem.start_session()
        prompt = session.prompt("How do we upgrade Postgres to 16 again?")
        assert prompt.memory is None and prompt.user is not None and "Ada" in prompt.user
        index = prompt.skills_index or ""
        assert index.index("  databases:") < index.index("  frontend:")
        assert "    - postgres-upgrade: Upgrade PostgreSQL major versions safely." in index
        assert "old-skill" not in index
        assert [s["name"] for s in prompt.skills] == ["postgres-upgrade"]
        assert prompt.system.index("USER PROFILE") < prompt.system.index("## Skills") < \
            prompt.system.index("## Skill: postgres-upgrade")
        assert [h["session"] for h in prompt.recalled] == [past.id]
        assert prompt.user_message.startswith("How do we upgrade Postgres to 16 again?\n\n"
                                              "<memory-context>\n[System note: recalled")
        assert prompt.user_message.endswith("</memory-context>")
        assert "<memory-context>" not in prompt.system
        (recorded,) = mem.events(types=["session.context_recalled"])
        assert recorded.seq == prompt.recalled_at
        # Later sessions would be recalled now; the recorded turn renders as it was.
        with mem.start_session() as later:
            later.record_turn([{"role": "user", "content": "Postgres 16 upgrade done."},
                               {"role": "assistant", "content": "Great."}])
    result = CliRunner().invoke(cli, ["--home", str(home), "--json", "prompt", "--session",
                                      session.id, "--message",
                                      "How do we upgrade Postgres to 16 again?"])
    assert result.exit_code == 0, result.output
    again = json.loads(result.stdout)
    assert again["system"] == prompt.system and again["user_message"] == prompt.user_message
    assert again["recalled_at"] == prompt.recalled_at


def test_nothing_relevant_nothing_recalled_is_just_the_blocks(home: Path) -> None:
    (home / "config.yaml").write_text("reviewers:\n  mode: off\n", encoding="utf-8")
    with memoir.open(home) as mem:
        prompt = mem.start_session().prompt("hello there")
        assert (prompt.skills_index, prompt.skills, prompt.recalled) == (None, [], [])
        assert prompt.system == "" and prompt.user_message == "hello there"


_WORDS = st.sampled_from([
    "postgres", "upgrade", "react", "memo", "docker", "disk", "prune", "kong", "rate", "limit",
    "terraform", "state", "lock", "jwt", "token", "refresh", "csv", "utf8", "excel",
])


@settings(max_examples=50, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(skills=st.dictionaries(st.from_regex(r"[a-z]{3,8}", fullmatch=True),
                              st.lists(_WORDS, min_size=1, max_size=12).map(" ".join),
                              max_size=30),
       message=st.lists(_WORDS, min_size=0, max_size=8).map(" ".join),
       limit=st.integers(0, 5), threshold=st.floats(0, 1))
def test_the_cap_and_the_threshold_hold_for_any_skills(skills: dict[str, str], message: str,
                                                       limit: int, threshold: float) -> None:
    scorer = SkillScorer(skills)
    top = scorer.top(message, limit=limit, threshold=threshold)
    assert len(top) <= limit
    assert all(score >= threshold for _, score in top)
    assert all(0 <= score <= 1 + 1e-9 for _, score in scorer.score(message))
    assert list(top) == sorted(top, key=lambda kv: (-kv[1], kv[0]))


def test_rendering_a_prompt_read_only_writes_nothing(home: Path) -> None:
    (home / "config.yaml").write_text("reviewers:\n  mode: off\n", encoding="utf-8")
    with memoir.open(home) as mem:
        with mem.start_session() as past:
            past.record_turn([{"role": "user", "content": "We use Kong."},
                              {"role": "assistant", "content": "OK."}])
        sid = mem.start_session().id
    before = sorted((p.relative_to(home), p.stat().st_mtime_ns) for p in home.rglob("*")
                    if p.is_file())
    result = CliRunner().invoke(cli, ["--home", str(home), "--json", "prompt", "--session",
                                      sid, "--message", "What gateway do we use?"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["recalled"] == []  # nothing indexed, nothing created
    after = sorted((p.relative_to(home), p.stat().st_mtime_ns) for p in home.rglob("*")
                   if p.is_file())
    assert after == before


def test_a_sessions_frozen_blocks_are_kept_and_checked_before_use(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import memoir.prompt.blocks as prompt_module

    with memoir.open(home) as mem:
        mem.start_session().call_tool("memory", {"action": "add", "content": "fact one"})
        session = mem.start_session()
        frozen = session.prompt_blocks()
        mem.start_session().call_tool("memory", {"action": "add", "content": "fact two"})
    cached = home / ".memoir" / "prompts" / f"{session.id}.json"
    assert cached.is_file()
    real = prompt_module.blocks_at
    calls: list[int] = []
    monkeypatch.setattr(prompt_module, "blocks_at",
                        lambda engine, seq=None: calls.append(1) or real(engine, seq))
    with memoir.open(home) as mem:
        assert mem.session(session.id).prompt_blocks() == frozen
        assert calls == []  # answered from the kept blocks
    data = json.loads(cached.read_text(encoding="utf-8"))
    data["body"]["blocks"]["memory"] = "forged"
    cached.write_text(json.dumps(data), encoding="utf-8")
    with memoir.open(home) as mem:
        assert mem.session(session.id).prompt_blocks() == frozen  # digest caught it
        assert calls == [1]
    (home / "config.yaml").write_text("memory:\n  memory_enabled: false\n", encoding="utf-8")
    with memoir.open(home) as mem:
        assert mem.session(session.id).prompt_blocks()["memory"] is None  # not the cache


def test_a_kept_prompt_opens_its_session_and_a_repair_forgets_it(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with memoir.open(home) as mem:
        session = mem.start_session(actor="agent")
        frozen = session.prompt_blocks()
    import memoir.prompt.blocks as prompt_module

    monkeypatch.setattr(prompt_module, "blocks_at",
                        lambda *a, **k: pytest.fail("the blocks were rendered again"))
    with memoir.open(home) as mem:
        again = mem.session(session.id)
        assert (again.pinned_seq, again.actor, again.prompt_blocks()) == (
            session.pinned_seq, "agent", frozen)
    monkeypatch.undo()
    result = CliRunner().invoke(cli, ["--home", str(home), "repair"])
    assert result.exit_code == 0, result.output
    assert not list((home / ".memoir" / "prompts").glob("*.json"))
