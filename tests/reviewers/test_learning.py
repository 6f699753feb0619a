"""The learning loop: recorded turns, Hermes's nudge counters, background reviews that
only emit events, one run each."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memoir
from memoir.config import Config
from memoir.errors import ValidationError
from memoir.oversight.revert import revert_run
from memoir.projections.state import State
from memoir.reviewers.review import Review, ReviewRequest, run_review
from tests.support.paths import DATA, REPO


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")


def config(home: Path, **reviewers: Any) -> None:
    lines = ["reviewers:"] + [f"  {k}: {json.dumps(v)}" for k, v in reviewers.items()]
    (home / "config.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def turn(user: str, reply: str = "OK.", *, calls: list[tuple[str, str]] = (),  # type: ignore[assignment]
         at: str | None = None) -> list[dict[str, Any]]:
    """A user message, an assistant message making ``calls`` (name, arguments JSON) with
    their results, and the final reply."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": user}]
    if at:
        messages[0]["timestamp"] = at
    if calls:
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(calls)]})
        messages += [{"role": "tool", "tool_call_id": f"c{i}",
                      "content": json.dumps({"success": True})} for i in range(len(calls))]
    messages.append({"role": "assistant", "content": reply})
    return messages


# -- recording ---------------------------------------------------------------------------------


def test_a_turn_is_journaled_with_references_and_its_bodies_are_stored(home: Path) -> None:
    config(home, mode="off")
    with memoir.open(home) as mem:
        session = mem.start_session()
        done = session.record_turn(turn("My name is Ada.", at="2026-03-01T10:00:00Z",
                                        calls=[("memory", '{"action": "add"}')]))
        assert done.turns == (1,)
        (event,) = mem.events(types=["session.turn_recorded"])
        data = event.data
        assert (data.session_id, data.turn) == (session.id, 1)  # type: ignore[attr-defined]
        roles = [m.role for m in data.messages]  # type: ignore[attr-defined]
        assert roles == ["user", "assistant", "tool", "assistant"]
        assert data.messages[1].calls == ("memory",) and data.messages[1].valid == (True,)  # type: ignore[attr-defined]
        assert data.messages[0].at == "2026-03-01T10:00:00.000000+00:00"  # type: ignore[attr-defined]
        assert b"Ada" not in msgspec.json.encode(event)  # the body is not in the journal
        bodies = mem.learning.transcripts.get_many([m.ref for m in data.messages])  # type: ignore[attr-defined]
        assert bodies[0]["content"] == "My name is Ada."
        info = mem.state.sessions[session.id]
        assert info.turns == 1


@pytest.mark.parametrize(("messages", "words"), [
    ({"role": "user"}, "a conversation is a list"),
    (["hello"], "message 1: a message is an object"),
    ([{"role": "wizard", "content": "x"}], "unknown role 'wizard'"),
    ([{"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "nope",
                                         "content": "{}"}], "no earlier assistant message"),
    ([{"role": "user", "content": "x" * 1_000_001}], "more than 1,000,000 characters"),
    ([{"role": "user", "content": "x", "timestamp": "last week"}], "is not a time"),
    ([{"role": "assistant", "tool_calls": [{"type": "function"}]}], "needs 'function'"),
    ([], "nothing to record"),
])
def test_bad_input_is_one_clear_error_and_records_nothing(home: Path, messages: Any,
                                                          words: str) -> None:
    config(home, mode="off")
    with memoir.open(home) as mem:
        session = mem.start_session()
        head = mem.head
        with pytest.raises(ValidationError, match=words):
            session.record_turn(messages)
        assert mem.head == head
        assert not (home / ".memoir" / "transcripts").exists() or not any(
            p.stat().st_size for p in (home / ".memoir" / "transcripts").glob("pack-*"))


def test_fifty_megabytes_of_text_is_refused_before_anything_is_stored(home: Path) -> None:
    config(home, mode="off")
    with memoir.open(home) as mem:
        session = mem.start_session()
        huge = [{"role": "user", "content": "y" * 900_000} for _ in range(56)]
        with pytest.raises(ValidationError, match="more than 16,000,000 characters"):
            session.record_turn(huge)
        assert not list(mem.events(types=["session.turn_recorded"]))


# -- nudges -----------------------------------------------------------------------------------


def test_memory_counter_moves_per_user_turn_and_resets_on_a_valid_memory_call(
        home: Path) -> None:
    (home / "config.yaml").write_text("memory:\n  nudge_interval: 3\nskills:\n"
                                      "  creation_nudge_interval: 0\nreviewers:\n"
                                      "  mode: off\n", encoding="utf-8")
    with memoir.open(home) as mem:
        session = mem.start_session()
        due = [session.record_turn(turn(f"turn {i}")).due[0][1] for i in range(1, 4)]
        assert due == [(), (), ("memory",)]
        assert mem.state.sessions[session.id].turns_since_memory == 0
        session.record_turn(turn("four"))
        session.record_turn(turn("five", calls=[("memory", '{"action": "add"}')]))
        assert mem.state.sessions[session.id].turns_since_memory == 0  # reset by the call
        session.record_turn(turn("six", calls=[("memory", "{not json")]))
        assert mem.state.sessions[session.id].turns_since_memory == 1  # invalid: no reset


def test_skill_counter_moves_per_model_iteration(home: Path) -> None:
    (home / "config.yaml").write_text("memory:\n  nudge_interval: 0\nskills:\n"
                                      "  creation_nudge_interval: 5\nreviewers:\n"
                                      "  mode: off\n", encoding="utf-8")
    with memoir.open(home) as mem:
        session = mem.start_session()
        # Two iterations per turn (a tool call, then the answer): due on the third turn.
        due = [session.record_turn(turn(f"t{i}", calls=[("skills_list", "{}")])).due[0][1]
               for i in range(3)]
        assert due == [(), (), ("skills",)]
        assert mem.state.sessions[session.id].iters_since_skill == 0
        session.record_turn(turn("x", calls=[("skill_manage", '{"action": "create"}')]))
        # The call reset the counter; the answering iteration after it counts one.
        assert mem.state.sessions[session.id].iters_since_skill == 1


def test_counters_folded_from_the_journal_equal_the_live_ones(home: Path) -> None:
    (home / "config.yaml").write_text("memory:\n  nudge_interval: 2\nreviewers:\n"
                                      "  mode: off\n", encoding="utf-8")
    with memoir.open(home) as mem:
        session = mem.start_session()
        for i in range(7):
            session.record_turn(turn(f"turn {i}", calls=[("memory", "{}")] if i == 3 else []))
        live = mem.state.sessions[session.id]
        folded = State().apply_all(mem.journal.read()).sessions[session.id]
        assert folded == live
    # Another day, another interval in config.yaml: what was recorded folds the same.
    (home / "config.yaml").write_text("memory:\n  nudge_interval: 9\nreviewers:\n"
                                      "  mode: off\n", encoding="utf-8")
    with memoir.open(home) as mem:
        mem.rebuild()
        assert mem.state.sessions[session.id] == live


# -- reviews ----------------------------------------------------------------------------------


def _nudged(home: Path, mode: str, **extra: Any) -> None:
    (home / "config.yaml").write_text(
        f"memory:\n  nudge_interval: 1\nreviewers:\n  mode: {mode}\n"
        + "".join(f"  {k}: {json.dumps(v)}\n" for k, v in extra.items()), encoding="utf-8")


def test_a_due_review_saves_what_the_user_revealed_as_one_revertable_run(home: Path) -> None:
    _nudged(home, "sync", review_on_end=False)
    with memoir.open(home) as mem:
        session = mem.start_session()
        session.record_turn(turn("Hi, my name is Ada and I prefer short answers with code "
                                 "first. We use Postgres 16 in production."))
        texts = {t: mem.state.memory.target(t).texts() for t in ("memory", "user")}
        assert texts == {"memory": ["The team uses Postgres 16 in production."],
                         "user": ["Name: Ada.", "Prefers short answers with code first."]}
        (done,) = mem.events(types=["review.completed"])
        run = done.run
        assert run is not None and mem.state.runs[run].kind == "review"
        events = list(mem.events(run=run))
        assert {e.actor for e in events} == {"reviewer.memory"}
        assert [e.type for e in events] == ["run.started"] + ["memory.entry_added"] * 3 + [
            "review.completed"]
        assert done.data.summary == "User profile updated · Memory updated"  # type: ignore[attr-defined]
        revert_run(mem, run)
        assert mem.state.memory.target("user").texts() == []
        assert mem.state.memory.target("memory").texts() == []


def test_background_reviews_never_keep_record_turn_waiting_and_flush_waits(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _nudged(home, "background", review_on_end=False)
    gate = threading.Event()
    from memoir.reviewers import rules

    real = rules.RulesBackend.review

    def slow(self: rules.RulesBackend, review: Review) -> None:
        gate.wait(10)
        real(self, review)

    monkeypatch.setattr(rules.RulesBackend, "review", slow)
    with memoir.open(home) as mem:
        session = mem.start_session()
        started = time.monotonic()
        session.record_turn(turn("My name is Ada."))
        assert time.monotonic() - started < 2  # the review waits; record_turn did not
        assert not list(mem.events(types=["review.*"]))
        gate.set()
        mem.flush()
        assert [e.type for e in mem.events(types=["review.*"])] == ["review.completed"]
        assert mem.state.memory.target("user").texts() == ["Name: Ada."]


def test_reviews_still_queued_at_close_are_journaled_as_skipped(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _nudged(home, "background", review_on_end=False, close_timeout_seconds=0.2, idle_ms=0)
    from memoir.reviewers import rules

    running = threading.Event()

    def slow_review(self: object, request: object) -> None:
        running.set()
        time.sleep(1.0)

    monkeypatch.setattr(rules.RulesBackend, "review", slow_review)
    mem = memoir.open(home)
    session = mem.start_session()
    session.record_turn(turn("turn 0"))
    # The later turns must come while the first review runs (on a loaded machine the
    # worker may not have picked it up yet, and all three would merge into one review).
    assert running.wait(10)
    for i in range(1, 3):
        session.record_turn(turn(f"turn {i}"))
    mem.close()
    with memoir.open(home) as again:
        reviews = sorted(again.events(types=["review.*"]), key=lambda e: e.type)
        # The first review was running; the two due after it merged into one, which the
        # close left undone: journaled as skipped, covering every turn, none dropped.
        assert [e.type for e in reviews] == ["review.completed", "review.skipped"]
        assert reviews[0].data.through_turn == 1  # type: ignore[attr-defined]
        skipped = reviews[1].data
        assert skipped.through_turn == 3  # type: ignore[attr-defined]
        assert "closed before the review ran" in skipped.reason  # type: ignore[attr-defined]


def test_off_runs_no_review_and_the_session_end_reviews_what_is_left(home: Path) -> None:
    (home / "config.yaml").write_text("memory:\n  nudge_interval: 10\nreviewers:\n"
                                      "  mode: sync\n", encoding="utf-8")
    with memoir.open(home) as mem:
        with mem.start_session() as session:
            session.record_turn(turn("I'm a data scientist based in Lyon."))
            assert not list(mem.events(types=["review.*"]))  # not due yet
        (done,) = mem.events(types=["review.completed"])
        assert done.data.trigger == "end" and done.data.through_turn == 1  # type: ignore[attr-defined]
        assert mem.state.memory.target("user").texts() == ["Role: data scientist.",
                                                           "Based in Lyon."]
    config(home, mode="off")
    with memoir.open(home) as mem:
        with mem.start_session() as session:
            session.record_turn(turn("My name is Ada."))
        assert len(list(mem.events(types=["review.*"]))) == 1


class _Rogue:
    name = "rogue"

    def review(self, review: Review) -> None:
        assert "error" in review.call("terminal", {"command": "rm -rf /"})
        review.call("memory", {"action": "add", "target": "user", "content": "Likes tea."})
        raise RuntimeError("the model went silent")


def test_a_review_can_only_call_its_four_tools_and_a_failure_is_an_event(home: Path) -> None:
    config(home, mode="off")
    with memoir.open(home) as mem:
        session = mem.start_session()
        session.record_turn(turn("hello"))
        events = run_review(mem, mem.learning.transcripts,
                            ReviewRequest(session.id, 1, 1, ("memory",)), _Rogue())
        assert [e.type for e in events] == ["run.started", "memory.entry_added",
                                            "review.failed"]
        failed = events[-1].data
        assert failed.reason == "RuntimeError: the model went silent"  # type: ignore[attr-defined]
        assert all(e.run == events[0].run for e in events)
        assert {e.actor for e in events} == {"reviewer.memory"}


def test_the_llm_backend_unavailable_fails_the_review_with_its_reason(home: Path) -> None:
    (home / "config.yaml").write_text("memory:\n  nudge_interval: 1\nreviewers:\n"
                                      "  mode: sync\n  backend: llm\n  review_on_end: false\n",
                                      encoding="utf-8")
    with memoir.open(home) as mem:
        session = mem.start_session()
        session.record_turn(turn("My name is Ada."))
        (failed,) = mem.events(types=["review.failed"])
        assert "llm" in failed.data.reason  # type: ignore[attr-defined]


NAMES = ["Ada", "Bo", "Cy", "Di", "Ed", "Fa", "Gu", "Hi", "Io", "Ju", "Ka", "Lu", "Mo", "Ni",
         "Oz", "Pi", "Qu", "Ro", "Su", "Ty"]


def test_a_foreground_agent_and_its_background_review_write_at_once(home: Path) -> None:
    _nudged(home, "background", review_on_end=False, idle_ms=0)  # reviews run beside it
    with memoir.open(home) as mem:
        session = mem.start_session()
        for i in range(20):
            name = NAMES[i]
            session.record_turn(turn(f"I'm based in {name}ville. My name is {name}."))
            result = session.call_tool("memory", {"action": "add", "target": "memory",
                                                  "content": f"agent fact {i}"})
            assert result["success"], result
        mem.flush()
        assert len(mem.state.memory.target("memory").texts()) == 20
        reviews = [e.data for e in mem.events(types=["review.completed", "review.failed",
                                                     "review.skipped"])]
        # Reviews that piled up while one ran were merged: fewer than 20, every turn
        # covered, none failed or skipped.
        assert 1 <= len(reviews) <= 20
        assert all(r.__class__.__name__ == "ReviewCompleted" for r in reviews)
        assert max(r.through_turn for r in reviews) == 20  # type: ignore[attr-defined]
        user = mem.state.memory.target("user").texts()
        assert user == ["Based in Tyville.", "Name: Ty."]  # keyed facts replaced
        refused = list(mem.events(types=["memory.write_rejected"]))
        assert refused == []


def test_config_reviewers_keys() -> None:
    cfg = Config.model_validate({"reviewers": {"mode": "sync", "backend": "llm", "llm": {
        "base_url": "http://127.0.0.1:9/v1", "model": "m", "api_key_env": "KEY"}}})
    assert cfg.reviewers.llm.max_iterations == 16
    with pytest.raises(Exception, match="mode"):
        Config.model_validate({"reviewers": {"mode": "sometimes"}})


# -- properties ---------------------------------------------------------------------------------


_CORPUS = [json.loads(line)["text"] for line in
           (DATA / "review_corpus.jsonl").read_text(
               encoding="utf-8").splitlines()]
#: What a review's run may hold, whatever it reads.
_REVIEW_TYPES = {"run.started", "memory.entry_added", "memory.entry_replaced",
                 "memory.entry_removed", "memory.write_rejected", "review.completed",
                 "review.failed", "review.write_limit_reached"}


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.sampled_from(_CORPUS), min_size=1, max_size=12),
       prior=st.lists(st.sampled_from(_CORPUS), max_size=4))
def test_a_review_emits_only_its_own_kinds_and_reverting_it_restores_the_state(
        tmp_path_factory: pytest.TempPathFactory, texts: list[str], prior: list[str]) -> None:
    home = tmp_path_factory.mktemp("review")
    (home / "config.yaml").write_text("reviewers:\n  mode: sync\n  review_on_end: false\n"
                                      "memory:\n  nudge_interval: 1\n", encoding="utf-8")
    with memoir.open(home) as mem:
        session = mem.start_session()
        for text in prior:  # what earlier reviews saved
            session.record_turn(turn(text))
        before = mem.view()
        head = mem.head
        session.record_turn(turn(" ".join(texts)))
        reviews = [e for e in mem.events(types=["review.completed", "review.failed"],
                                         after=head)]
        assert len(reviews) == 1
        run = reviews[0].run
        assert run is not None
        after_turn = [e for e in mem.events(after=head) if e.type != "session.turn_recorded"]
        assert all(e.run == run for e in after_turn)  # nothing outside its run
        assert {e.type for e in after_turn} <= _REVIEW_TYPES
        assert {e.actor for e in after_turn} <= {"reviewer.memory"}
        if reviews[0].data.changes:  # type: ignore[attr-defined]
            revert_run(mem, run)
        for target in ("memory", "user"):
            assert mem.state.memory.target(target).texts() == \
                before.memory.target(target).texts()


def test_reviews_that_pile_up_are_merged_into_one_per_session() -> None:
    from memoir.reviewers.queue import merge

    a = ReviewRequest("s-1", 1, 3, ("memory",))
    b = ReviewRequest("s-1", 4, 6, ("skills",), "end")
    assert merge(a, b) == ReviewRequest("s-1", 1, 6, ("memory", "skills"), "end")


def test_a_queued_review_waits_for_its_session_to_be_quiet(home: Path) -> None:
    # A quiet period no test outlasts: whatever the machine's load, the session is
    # never quiet here, so nothing runs until flush() asks for the queued review.
    _nudged(home, "background", review_on_end=False, idle_ms=60_000)
    with memoir.open(home) as mem:
        session = mem.start_session()
        for i in range(5):  # a burst of turns, each making a review due
            session.record_turn(turn(f"I use vim {i}."))
        assert not list(mem.events(types=["review.*"]))  # still talking: nothing ran
        mem.learning.flush()
        reviews = [e.data for e in mem.events(types=["review.*"])]
        assert len(reviews) == 1  # the burst was merged into one review
        assert (reviews[0].from_turn if hasattr(reviews[0], "from_turn") else 1) == 1
        assert reviews[0].through_turn == 5  # type: ignore[attr-defined]


def test_a_queued_review_runs_on_its_own_once_the_session_is_quiet(home: Path) -> None:
    _nudged(home, "background", review_on_end=False, idle_ms=50)
    with memoir.open(home) as mem:
        session = mem.start_session()
        session.record_turn(turn("I use vim."))
        # No flush: the review comes by itself; read off the journal until it does.
        deadline = time.monotonic() + 60
        while not list(mem.events(types=["review.*"])):
            assert time.monotonic() < deadline, "the queued review never ran"
            time.sleep(0.02)


# -- the CLI: import, review, status ---------------------------------------------------------


def _cli(home: Path, *args: str) -> Any:
    from click.testing import CliRunner

    from memoir.cli import cli

    return CliRunner().invoke(cli, ["--home", str(home), *args])


def test_sessions_import_learns_from_files_and_keeps_their_dates(home: Path,
                                                                 tmp_path: Path) -> None:
    folder = tmp_path / "chats"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps(
        turn("I'm Ada, a backend engineer.", at="2025-01-02T03:04:05Z")
        + turn("We use Postgres 16.")), encoding="utf-8")
    (folder / "b.jsonl").write_text("\n".join(json.dumps(m) for m in turn(
        "Please never use emojis in your replies.")), encoding="utf-8")
    result = _cli(home, "--json", "sessions", "import", str(folder))
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(Path(r["file"]).name, r["turns"], len(r["runs"])) for r in rows] == [
        ("a.json", 2, 1), ("b.jsonl", 1, 1)]
    with memoir.open(home) as mem:
        first = mem.state.sessions[rows[0]["session"]]
        assert first.started_at.startswith("2025-01-02T03:04:05")
        assert first.ended_at is not None and first.reviewed_through == 2
        assert mem.state.memory.target("user").texts() == [
            "Name: Ada.", "Role: backend engineer.", "Prefers no emojis in replies."]
        assert mem.state.memory.target("memory").texts() == ["The team uses Postgres 16."]
    (tmp_path / "c.json").write_text(json.dumps(turn("We ship on Fridays.")),
                                     encoding="utf-8")
    at = _cli(home, "--json", "sessions", "import", "--at", "2024-06-01",
              str(tmp_path / "c.json"))
    with memoir.open(home) as mem:
        session = mem.state.sessions[json.loads(at.stdout)["session"]]
        assert session.started_at.startswith("2024-06-01T00:00:00")


def test_a_bad_conversation_file_is_refused_and_the_files_before_it_stay(
        home: Path, tmp_path: Path) -> None:
    good = tmp_path / "1-good.json"
    good.write_text(json.dumps(turn("I use zsh.")), encoding="utf-8")
    bad = tmp_path / "2-bad.json"
    bad.write_text(json.dumps([{"role": "user", "content": "x"},
                               {"role": "tool", "tool_call_id": "c9", "content": "{}"}]),
                   encoding="utf-8")
    broken = tmp_path / "3-broken.json"
    broken.write_text("[{", encoding="utf-8")
    result = _cli(home, "sessions", "import", str(good), str(bad))
    assert result.exit_code == 4
    assert "2-bad.json: message 2: a tool result for call 'c9'" in result.output
    with memoir.open(home) as mem:
        assert len([s for s in mem.state.sessions.values() if s.platform == "import"]) == 1
    result = _cli(home, "sessions", "import", str(broken))
    assert result.exit_code == 4 and "3-broken.json: not valid JSON (line 1" in result.output


def test_sessions_import_can_be_run_again(home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "chats"
    folder.mkdir()
    (folder / "1.json").write_text(json.dumps(turn("I use zsh.")), encoding="utf-8")
    (folder / "2.json").write_text("[{", encoding="utf-8")  # bad, in the middle
    (folder / "3.json").write_text(json.dumps(turn("We deploy with Nomad.")),
                                   encoding="utf-8")
    first = _cli(home, "sessions", "import", str(folder))
    assert first.exit_code == 4, first.output
    assert "refused " in first.output and "2.json: not valid JSON (line 1" in first.output
    assert "imported 2 conversation(s); 0 already imported, skipped; 1 refused" in \
        first.output

    (folder / "2.json").write_text(json.dumps(turn("My name is Ada.")), encoding="utf-8")
    again = _cli(home, "--json", "sessions", "import", str(folder))
    assert again.exit_code == 0, again.output
    rows = [json.loads(line) for line in again.stdout.splitlines()]
    assert [(Path(r["file"]).name, r["already_imported"]) for r in rows] == [
        ("1.json", True), ("2.json", False), ("3.json", True)]
    # The same conversation from another path is known too.
    copy = tmp_path / "elsewhere.jsonl"
    copy.write_text("\n".join(json.dumps(m) for m in turn("I use zsh.")), encoding="utf-8")
    third = _cli(home, "sessions", "import", str(copy))
    assert third.exit_code == 0 and "already imported, from" in third.output
    assert rows[0]["session"] in third.output
    with memoir.open(home) as mem:
        imported = [s for s in mem.state.sessions.values() if s.platform == "import"]
        assert len(imported) == 3
        reviews = [e for e in mem.events(types=["review.completed"])]
        assert len(reviews) == 3  # each conversation reviewed once


def test_sessions_import_says_when_the_rules_saved_nothing(home: Path,
                                                           tmp_path: Path) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(turn("What is 2 + 2?")), encoding="utf-8")
    result = _cli(home, "sessions", "import", str(chat))
    assert result.exit_code == 0, result.output
    assert "the reviews saved 0 change(s)" in result.output
    assert "reviewers.backend: llm" in result.output


def test_memoir_review_and_status_show_the_loop(home: Path) -> None:
    (home / "config.yaml").write_text("memory:\n  nudge_interval: 3\nreviewers:\n"
                                      "  mode: off\n", encoding="utf-8")
    with memoir.open(home) as mem:
        session = mem.start_session()
        session.record_turn(turn("My name is Ada.") + turn("We use uv."))
    status = json.loads(_cli(home, "--json", "status").stdout)
    (nudge,) = status["nudges"]
    assert nudge == {"session": session.id, "turns": 2, "reviewed_through": 0,
                     "memory": {"count": 2, "interval": 3},
                     "skills": {"count": 2, "interval": 10}}
    assert "memory 2/3, skills 2/10" in _cli(home, "status").output
    done = _cli(home, "review", "--session", session.id[:6])
    assert done.exit_code == 0 and "2 change(s): User profile updated · Memory updated" in \
        done.output
    runs = _cli(home, "runs", "--kind", "review").output
    assert "→ User profile updated · Memory updated" in runs


@pytest.mark.parametrize(("mode", "expected"), [
    ("off", ""),
    ("on", "User profile updated · Memory updated"),
    ("verbose", "User profile ➕ Name: Ada. · Memory ➕ The team uses uv."),
])
def test_review_summaries_in_the_three_modes(home: Path, mode: str, expected: str) -> None:
    (home / "config.yaml").write_text(f"memory:\n  nudge_interval: 1\nreviewers:\n  mode: sync"
                                      f"\n  review_on_end: false\ndisplay:\n"
                                      f"  memory_notifications: {mode}\n", encoding="utf-8")
    with memoir.open(home) as mem:
        mem.start_session().record_turn(turn("My name is Ada. We use uv."))
        (done,) = mem.events(types=["review.completed"])
        assert done.data.summary == expected  # type: ignore[attr-defined]


def test_a_bulk_import_reviews_every_conversation(home: Path, tmp_path: Path) -> None:
    (home / "config.yaml").write_text("reviewers:\n  queue_size: 2\n", encoding="utf-8")
    for i in range(7):
        (tmp_path / f"c{i}.json").write_text(json.dumps(turn(f"I use vim {i}.")),
                                             encoding="utf-8")
    result = _cli(home, "--json", "sessions", "import", *sorted(
        str(p) for p in tmp_path.glob("c*.json")))
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [len(r["runs"]) for r in rows] == [1] * 7
    with memoir.open(home) as mem:
        assert not list(mem.events(types=["review.skipped"]))


def test_a_full_store_drops_the_oldest_entries_reviews_wrote_never_anyone_elses(
        home: Path) -> None:
    (home / "config.yaml").write_text("memory:\n  nudge_interval: 1\n  user_char_limit: 80\n"
                                      "reviewers:\n  mode: sync\n  review_on_end: false\n",
                                      encoding="utf-8")
    with memoir.open(home) as mem:
        session = mem.start_session()
        session.call_tool("memory", {"action": "add", "target": "user",
                                     "content": "Set by the agent."})
        session.record_turn(turn("I use vim."))
        session.record_turn(turn("I use tmux daily."))
        assert mem.state.memory.target("user").texts() == [
            "Set by the agent.", "Uses vim.", "Uses tmux daily."]
        session.record_turn(turn("I prefer tables over long paragraphs."))
        # 80 characters: the oldest review entry made room; the agent's stays.
        assert mem.state.memory.target("user").texts() == [
            "Set by the agent.", "Uses tmux daily.", "Prefers tables over long paragraphs."]
        run = list(mem.events(types=["review.completed"]))[-1].run
        assert [e.type for e in mem.events(run=run)] == [
            "run.started", "memory.entry_removed", "memory.entry_added", "review.completed"]


def test_repeated_corrections_of_one_kind_become_a_skill_and_then_patch_it(
        home: Path) -> None:
    (home / "config.yaml").write_text("reviewers:\n  mode: sync\n", encoding="utf-8")
    with memoir.open(home) as mem:
        with mem.start_session() as session:
            session.record_turn(turn("Don't use emojis in your replies."))
            session.record_turn(turn("Please keep your answers under ten lines."))
        skill = mem.state.skills.skills["answer-style"]
        assert skill.created_by == "agent" and skill.category == "preferences"
        # Saved as facts ("Prefers no emojis in replies."), said as rules in the skill.
        assert "- No emojis in replies." in skill.content
        assert "- Keep answers under ten lines." in skill.content
        with mem.start_session() as session:
            session.record_turn(turn("Always include the sources you used."))
        content = mem.state.skills.skills["answer-style"].content
        assert content.count("\n- ") == 3 and "- Always include the sources used." in content
        # One correction of a kind is not a pattern yet.
        assert "git-workflow" not in mem.state.skills.skills


# -- crashes --------------------------------------------------------------------------------------

_RECORDER = r"""
import json, sys, memoir
home = sys.argv[1]
with memoir.open(home) as mem:
    session = mem.start_session()
    print(session.id, flush=True)
    i = 0
    while True:
        i += 1
        session.record_turn([
            {"role": "user", "content": f"I'm based in City{i}. We use Postgres {i}."},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "terminal",
                                                             "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c",
             "content": json.dumps({"success": False, "error": f"timeout after {i}s"})},
            {"role": "assistant", "content": "Done."}])
        if i == 5:
            print("going", flush=True)
"""


def test_a_process_killed_while_recording_and_reviewing_leaves_a_sound_home(
        home: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    (home / "config.yaml").write_text("memory:\n  nudge_interval: 1\nreviewers:\n"
                                      "  idle_ms: 0\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(REPO),
               MEMOIR_DURABILITY="always")
    proc = subprocess.Popen([sys.executable, "-c", _RECORDER, str(home)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    sid = proc.stdout.readline().strip()
    assert proc.stdout.readline().strip() == "going"
    # Recording and reviewing at full speed: kill it once reviews have landed (read off
    # the journal, not waited for), with more in flight.
    deadline = time.monotonic() + 120
    while True:
        with memoir.open(home, readonly=True) as mem:
            reviewed = sum(1 for _ in mem.events(types=["review.completed"]))
        if reviewed >= 2:
            break
        assert time.monotonic() < deadline and proc.poll() is None, "no review landed"
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    with memoir.open(home) as mem:
        report = mem.verify()
        assert report.records == mem.head
        turns = list(mem.events(types=["session.turn_recorded"], session=sid))
        assert len(turns) >= 5
        refs = [m.ref for e in turns for m in e.data.messages]  # type: ignore[attr-defined]
        assert len(mem.learning.transcripts.get_many(refs)) == len(refs)  # every body there
        # Reviews that ran are whole runs; the counters fold as recorded.
        for event in mem.events(types=["review.completed"]):
            assert event.run is not None and mem.state.runs[event.run].kind == "review"
        assert mem.state.sessions[sid].turns == len(turns)
        assert State().apply_all(mem.journal.read()).insights == mem.state.insights
        # The home goes on: the session can be ended and reviewed.
        mem.session(sid).end()
    with memoir.open(home) as mem:
        assert mem.state.sessions[sid].reviewed_through == len(turns)
