"""An insight resolves with the fix: the successful call that followed the repeated
failure (or a fix the person confirmed), not the assistant's question in between."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import memoir
from memoir.insights.resolution import confirms_fix, later_resolutions, tool_errors
from memoir.insights.signatures import signature
from memoir.projections.state import State

ERROR = "ssh: connect to host db.internal port 22: Connection timed out"
SIG = signature("terminal", ERROR)
CMD = '{"cmd": "ssh db.internal pg_dump app"}'


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")


def _call(n: str, ok: bool, cmd: str = CMD) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": None, "tool_calls": [
                {"id": n, "type": "function",
                 "function": {"name": "terminal", "arguments": cmd}}]},
            {"role": "tool", "tool_call_id": n,
             "content": json.dumps({"success": True, "output": "dumped"} if ok else
                                   {"success": False, "error": ERROR})}]


def _turn(user: str, *calls: list[dict[str, Any]], reply: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": user}, *[m for c in calls for m in c],
            {"role": "assistant", "content": reply}]


def _asked_then_fixed(n: str) -> list[list[dict[str, Any]]]:
    """The failure, the assistant's question, the person's answer, the call that works."""
    return [_turn("Dump the production database.", _call(n + "a", False),
                  reply="The connection timed out. Are you on the VPN?"),
            _turn("Yes, I just connected to the VPN.", _call(n + "b", True),
                  reply="Done: the dump is in app.sql.")]


def _home(home: Path) -> None:
    (home / "config.yaml").write_text("reviewers:\n  mode: off\n", encoding="utf-8")


def test_the_resolution_is_the_call_that_worked_after_the_question(home: Path) -> None:
    _home(home)
    with memoir.open(home) as mem:
        for n in "xyz":  # the same failure in three sessions: an insight
            session = mem.start_session()
            for turn in _asked_then_fixed(n):
                session.record_turn(turn)
            session.end()
        item = mem.state.insights.signatures[SIG]
        assert item.state == "insight" and item.count == 3
        assert item.resolution == (f'terminal succeeded with {CMD}, after the person said '
                                   f'"Yes, I just connected to the VPN."')
        assert "Are you on the VPN" not in (item.resolution or "")
        hint = mem.start_session().tool_error_hint("terminal", ERROR)
        assert hint and "ssh db.internal pg_dump app" in hint and "VPN?" not in hint
        resolved = list(mem.events(types=["insight.resolved"]))
        assert len(resolved) == 3
        assert {(e.data.how, e.data.turn) for e in resolved} == {("call", 1)}  # type: ignore[attr-defined]
        # The insight tables rebuilt from the journal equal the live ones.
        assert State().apply_all(mem.journal.read()).insights == mem.state.insights
        assert State().apply_all(mem.journal.read()).sessions == mem.state.sessions


def test_questions_between_repeated_failures_and_the_fix(home: Path) -> None:
    _home(home)
    with memoir.open(home) as mem:
        session = mem.start_session()
        session.record_turn(_turn("Dump prod.", _call("a", False), reply="Is the VPN up?"))
        session.record_turn(_turn("I think so.", _call("b", False),
                                  reply="Still timing out. Can you reconnect?"))
        assert mem.state.insights.signatures[SIG].resolution is None
        session.record_turn(_turn("Reconnected.", _call("c", True), reply="Done."))
        item = mem.state.insights.signatures[SIG]
        assert item.resolution == (f'terminal succeeded with {CMD}, after the person said '
                                   f'"Reconnected."')
        (event,) = mem.events(types=["insight.resolved"])
        assert event.data.turn == 2  # type: ignore[attr-defined]
        assert mem.state.sessions[session.id].unresolved == {}


def test_a_fix_the_person_confirms(home: Path) -> None:
    _home(home)
    with memoir.open(home) as mem:
        session = mem.start_session()
        session.record_turn(_turn(
            "Dump prod.", _call("a", False),
            reply="The bastion drops idle keys. Run `ssh-add ~/.ssh/prod` and try again."))
        sessions = mem.state.sessions[session.id]
        assert sessions.unresolved[SIG][1].startswith("The bastion drops idle keys.")
        session.record_turn([{"role": "user", "content": "That worked, thanks!"},
                             {"role": "assistant", "content": "Great."}])
        assert mem.state.insights.signatures[SIG].resolution == (
            "The bastion drops idle keys. Run `ssh-add ~/.ssh/prod` and try again. "
            '(the person confirmed: "That worked, thanks!")')
        (event,) = mem.events(types=["insight.resolved"])
        assert event.data.how == "confirmed"  # type: ignore[attr-defined]


def test_no_resolution_without_a_fix(home: Path) -> None:
    _home(home)
    with memoir.open(home) as mem:
        session = mem.start_session()
        session.record_turn(_turn("Dump prod.", _call("a", False), reply="Are you on the VPN?"))
        session.record_turn([{"role": "user", "content": "It still doesn't work."},
                             {"role": "assistant", "content": "Odd."}])
        for _ in range(2):  # a call that works three turns later is not this error's fix
            session.record_turn([{"role": "user", "content": "Something else."},
                                 {"role": "assistant", "content": "Sure."}])
        session.record_turn(_turn("Now list the files.", _call("b", True, '{"cmd": "ls"}'),
                                  reply="Here they are."))
        assert mem.state.insights.signatures[SIG].resolution is None
        assert not list(mem.events(types=["insight.resolved"]))


def test_what_a_turn_says_of_its_own_errors() -> None:
    asked = tool_errors(_turn("x", _call("a", False), reply="Are you on the VPN?"))
    assert asked[0].resolution is None and asked[0].suggested is None
    proposed = tool_errors(_turn("x", _call("a", False), reply="Connect to the VPN first."))
    assert proposed[0].resolution is None and proposed[0].suggested == \
        "Connect to the VPN first."
    fixed = tool_errors(_turn("x", _call("a", False), _call("b", True), reply="Done."))
    assert fixed[0].resolution == f"terminal succeeded with {CMD}" and \
        fixed[0].suggested is None
    # A later turn that fails the same way first does not resolve the earlier error.
    again = _turn("retry", _call("c", False), _call("d", True), reply="ok")
    assert later_resolutions({SIG: ("terminal", "", 1)}, again) == []


@pytest.mark.parametrize("text", [
    "That worked, thanks!", "it works now", "Fixed it, I restarted docker.",
    "ok that did the trick", "all good now", "Solved.", "ya funciona, gracias",
    "ça marche maintenant", "Es funktioniert jetzt.", "works now :)"])
def test_the_person_saying_it_works(text: str) -> None:
    assert confirms_fix(text)


@pytest.mark.parametrize("text", [
    "It still doesn't work.", "Not fixed yet.", "That didn't work either.",
    "Still failing with the same error.", "Can you try again?", "Es funktioniert nicht.",
    "ça ne marche pas", "Dump prod please."])
def test_the_person_not_saying_it_works(text: str) -> None:
    assert not confirms_fix(text)
