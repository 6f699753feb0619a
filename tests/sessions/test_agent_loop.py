"""The Python API as an agent uses it: docs/agent-loop.md's loop runs with the OpenAI SDK
against a real local HTTP server speaking chat completions; tool results for the model;
typed and strict schemas; sessions as context managers; session ids; mypy on a user's
script."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import memoir
from tests.support.paths import REPO

DOC = REPO / "docs" / "agent-loop.md"
_FENCE = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


class _Model:
    """A scripted chat-completions model: on the first user turn it saves a memory, then
    answers; it records every request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(body)
        last = body["messages"][-1]
        message: dict[str, Any]
        if last["role"] == "user" and "I'm Ada" in last["content"]:
            args = {"action": "add", "target": "user",
                    "content": "Name: Ada. Likes short answers, code first."}
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "memory", "arguments": json.dumps(args)}},
                {"id": "call_2", "type": "function",
                 "function": {"name": "memory", "arguments": "{not json"}}]}
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": "Noted." if last["role"] == "tool"
                       else "You're welcome."}
            finish = "stop"
        return {"id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion",
                "created": 0, "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


@pytest.fixture
def model_server() -> Iterator[tuple[str, _Model]]:
    model = _Model()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            size = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(size))
            assert self.path.endswith("/chat/completions"), self.path
            data = json.dumps(model.reply(body)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", model
    server.shutdown()
    server.server_close()


def test_the_documented_agent_loop_runs_against_a_real_server(
        model_server: tuple[str, _Model], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("openai")
    url, model = model_server
    home = tmp_path / "home"
    monkeypatch.setenv("MEMOIR_HOME", str(home))
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")
    code = _FENCE.findall(DOC.read_text(encoding="utf-8"))[0]
    exec(compile(code, "docs/agent-loop.md", "exec"), {"__name__": "__docs__"})
    assert capsys.readouterr().out.splitlines() == ["assistant: Noted.",
                                                    "assistant: You're welcome."]
    first = model.requests[0]
    assert sorted(t["function"]["name"] for t in first["tools"]) == [
        "memory", "memory_search", "session_search", "skill_manage", "skill_view", "skills_list"]
    tool_replies = [m for m in model.requests[1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_replies] == ["call_1", "call_2"]
    saved, bad = (json.loads(m["content"]) for m in tool_replies)
    assert saved["success"] is True and saved["message"] == "Entry added."
    assert bad["success"] is False and "not valid JSON" in bad["error"]
    with memoir.open(home) as mem:
        (added,) = mem.events(types=["memory.entry_added"], actor="agent")
        assert added.session is not None
        assert len(list(mem.events(types=["session.turn_recorded"]))) == 2
        assert list(mem.events(types=["session.summarized"]))
        ended = list(mem.events(types=["session.ended"]))
        assert [e.session for e in ended] == [added.session]
        # What the model saved is in the next session's prompt, not in this one's.
        assert "Name: Ada." in (mem.start_session().prompt_blocks()["user"] or "")
    system = first["messages"][0]["content"]
    assert "Name: Ada" not in system
    assert system.startswith("You are a helpful assistant.")


def test_tool_messages_take_plain_dicts_and_never_raise(home: Path) -> None:
    with memoir.open(home) as mem, mem.start_session() as session:
        message = {"role": "assistant", "tool_calls": [
            {"id": "a", "type": "function",
             "function": {"name": "memory", "arguments": '{"action": "add", "content": "x"}'}},
            {"id": "b", "type": "function", "function": {"name": "nope", "arguments": "{}"}},
            {"id": "c", "type": "function"},
        ]}
        replies = session.tool_messages(message)
        assert [r["tool_call_id"] for r in replies] == ["a", "b", "c"]
        results = [json.loads(r["content"]) for r in replies]
        assert results[0]["success"] is True
        assert "Unknown tool 'nope'" in results[1]["error"]
        assert results[2] == {"error": "The tool call names no function.", "success": False}
        assert session.tool_messages({"role": "assistant", "content": "hi"}) == []


def test_results_for_the_model_are_hermes_s_with_its_flags_and_paths(home: Path) -> None:
    # Issue 38 item 4: the flags agents and Hermes's own review and curator read reach
    # the model, and paths are absolute, as in Hermes's results.
    with memoir.open(home) as mem:
        session = mem.start_session()
        created = session.call_tool("skill_manage", {
            "action": "create", "name": "deploy",
            "content": "---\nname: deploy\ndescription: Ship it.\n---\nSteps.\n"})
        viewed = session.call_tool("skill_view", {"name": "deploy"})
        review = mem.start_session(actor="reviewer.skills")
        unread = review.call_tool("skill_manage", {"action": "create", "name": "learned",
                                                   "content": "---\nname: learned\n"
                                                   "description: d\n---\nSteps.\n"})
        patched = review.call_tool("skill_manage", {"action": "patch", "name": "learned",
                                                    "old_string": "Steps",
                                                    "new_string": "More steps"})
        pruned = review.call_tool("skill_manage", {"action": "delete", "name": "learned"})
    assert created["_change"] == {"description": "Ship it."}
    assert Path(created["skill_md"]) == home / "skills/deploy/SKILL.md"
    assert Path(viewed["skill_dir"]).is_absolute()
    assert unread["success"] is True
    assert patched["_read_before_write_required"] is True
    assert pruned["_fail_closed"] is True
    for result in (created, viewed, patched, pruned):
        assert all(k in memoir.tools.HERMES_FLAGS for k in result if k.startswith("_"))


def test_strict_schemas_close_every_object_and_null_means_absent(home: Path) -> None:
    plain = memoir.tool_schemas()
    strict = memoir.tool_schemas(strict=True)
    assert [s["function"]["name"] for s in strict] == [s["function"]["name"] for s in plain]
    for schema in strict:
        function = schema["function"]
        assert function["strict"] is True
        params = function["parameters"]

        def check(node: Any) -> None:
            if isinstance(node, dict):
                if node.get("type") == "object" or "properties" in node:
                    assert node["additionalProperties"] is False
                    assert sorted(node["required"]) == sorted(node["properties"])
                for value in node.values():
                    check(value)
            elif isinstance(node, list):
                for value in node:
                    check(value)

        check(params)
    memory = next(s for s in strict if s["function"]["name"] == "memory")
    props = memory["function"]["parameters"]["properties"]  # type: ignore[index]
    assert "null" in props["old_text"]["type"]
    assert "old_text" not in (plain[0]["function"]["parameters"].get("required") or [])
    # A strict model sends null for what it leaves out; that is an argument not given.
    with memoir.open(home) as mem:
        result = mem.start_session().call_tool("memory", {
            "action": "add", "target": "memory", "content": "fact", "old_text": None,
            "operations": None})
    assert result["success"] is True


def test_a_session_is_a_context_manager_that_ends_once(home: Path) -> None:
    with memoir.open(home) as mem:
        with mem.start_session() as session:
            session.call_tool("memory", {"action": "add", "content": "x"})
        session.end()  # already ended: nothing more
        ended = list(mem.events(types=["session.ended"]))
        assert len(ended) == 1 and ended[0].data.reason == "closed"  # type: ignore[attr-defined]
        with pytest.raises(RuntimeError), mem.start_session() as failing:
            raise RuntimeError("the agent crashed")
        last = list(mem.events(types=["session.ended"]))[-1]
        assert last.session == failing.id and last.data.reason == "error"  # type: ignore[attr-defined]


@pytest.mark.parametrize("bad", ["bad id/..", "../x", "", ".hidden", "a" * 129, "x y",
                                 "s\n1"])
def test_session_ids_that_could_name_paths_are_refused(home: Path, bad: str) -> None:
    with memoir.open(home) as mem:
        head = mem.head
        with pytest.raises(memoir.ValidationError, match="session id"):
            mem.start_session(session_id=bad)
        assert mem.head == head
        assert mem.start_session(session_id="agent-7:run.1").id == "agent-7:run.1"


def test_projection_error_is_exported() -> None:
    assert issubclass(memoir.ProjectionError, memoir.MemoirError)


_TYPED = '''
from openai.types.chat import ChatCompletionMessageParam

import memoir
import memoir.sdk
from memoir.sessions.turns import RecordedTurns

messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hi"}]
with memoir.open() as home, home.start_session() as session:
    messages += memoir.sdk.tool_messages(session, {})
    messages.append(memoir.sdk.tool_result_message(session, {}))
    result = session.call_tool("memory", {"action": "add", "content": "x"})
    ok: bool = result["success"]
    usage: str = result.get("usage", "")
    listed = session.call_tool("skills_list")
    count: int = listed.get("count", 0)
    read = session.call_tool("memory_read", {"target": "user"})
    entries: list[str] = read["user"]["entries"] if "user" in read else []
    other: dict[str, object] = session.call_tool(str(ok), {})
    added = session.add_memory("The build uses make.")
    kept: list[str] = session.memory_entries("user")
    found = session.search_sessions("deploy", limit=2)
    recorded: RecordedTurns = session.record_turn([])
    turns: tuple[int, ...] = recorded.turns
    plain = session.tool_messages({})
    role: str = plain[0]["role"] if plain else "tool"
'''


def test_mypy_strict_accepts_a_users_script_with_the_sdk_types(tmp_path: Path) -> None:
    """The doc's loop, a typed loop against the SDK's message types and the per-tool
    results type-check under --strict; a mistyped result key or target does not."""
    pytest.importorskip("openai")
    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent))
    if mypy is None:
        pytest.skip("mypy is not installed in this environment")
    code = _FENCE.findall(DOC.read_text(encoding="utf-8"))[-1]
    script = tmp_path / "agent.py"
    script.write_text(code + "\nfrom collections.abc import Mapping\n"
                      "with memoir.open() as home:\n"
                      "    session = home.start_session()\n"
                      "    reply: Mapping[str, object] = session.tool_result_message({})\n",
                      encoding="utf-8")
    good = tmp_path / "good.py"
    good.write_text(_TYPED, encoding="utf-8")
    bad = tmp_path / "bad.py"
    bad.write_text("import memoir\nwith memoir.open() as home, home.start_session() as s:\n"
                   "    usage = s.call_tool('memory', {})['usag']\n"
                   "    s.add_memory('x', target='users')\n", encoding="utf-8")
    done = subprocess.run([mypy, "--strict", "--no-incremental", str(script), str(good),
                           str(bad)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, check=False)
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert all(line.startswith("bad.py") for line in errors), done.stdout
    assert any('"usag"' in line for line in errors), done.stdout
    assert any("users" in line for line in errors), done.stdout
