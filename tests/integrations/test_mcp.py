"""``memoir mcp``: the SDK's own client drives a real ``memoir mcp`` subprocess."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

import memoir
from memoir.memory.read import MEMORY_READ_SCHEMA
from memoir.threats.quoting import inert
from memoir.tools import tool_schemas

SKILL = textwrap.dedent("""\
    ---
    name: tabs-style
    description: How this user wants Python files indented.
    ---
    # Tabs style

    Indent with tabs, never spaces.
    """)


def _env() -> dict[str, str]:
    return {**os.environ, "MEMOIR_DEBUG": "1", "PYTHONUNBUFFERED": "1"}


def _params(home: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "memoir", "--home", str(home), "mcp", *extra],
                                 env=_env())


def _connect(home: Path, body: Callable[[ClientSession], Awaitable[Any]], *,
             client: str = "test-client", extra: tuple[str, ...] = ()) -> Any:
    async def main() -> Any:
        async with stdio_client(_params(home, *extra)) as (read, write), \
                ClientSession(read, write, client_info=types.Implementation(
                    name=client, version="1.2.3")) as session:
            await session.initialize()
            return await body(session)

    return anyio.run(main)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    memoir.open(path, create=True).close()
    return path


def _result(res: types.CallToolResult) -> dict[str, Any]:
    assert len(res.content) == 1 and isinstance(res.content[0], types.TextContent)
    data = json.loads(res.content[0].text)
    assert res.structured_content == data
    assert res.is_error == (data.get("success") is False)
    return data


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("memory", {"action": "add", "target": "memory", "content": "The build uses make."}),
    ("memory", {"action": "add", "target": "user", "content": "Prefers tabs."}),
    ("memory", {"action": "add", "target": "memory", "content": "The build uses make."}),
    ("memory", {"action": "replace", "target": "memory", "old_text": "make",
                "content": "The build uses ninja."}),
    ("memory", {"action": "bogus"}),
    ("memory", {"action": "add", "target": "memory", "content": 5}),
    ("skill_manage", {"action": "create", "name": "tabs-style", "content": SKILL}),
    ("skills_list", {}),
    ("skill_view", {"name": "tabs-style"}),
    ("skill_manage", {"action": "patch", "name": "tabs-style", "old_string": "never spaces",
                      "new_string": "never, ever spaces"}),
    ("skill_view", {"name": "missing-skill"}),
    ("memory_search", {"query": "build"}),
    ("session_search", {"query": "tabs"}),
    ("memory", {"action": "remove", "target": "user", "old_text": "tabs"}),
]


def test_tools_have_memoirs_exact_schemas_and_results(home: Path, tmp_path: Path) -> None:
    async def body(session: ClientSession) -> tuple[list[types.Tool], list[dict[str, Any]]]:
        listed = await session.list_tools()
        return listed.tools, [_result(await session.call_tool(name, args))
                              for name, args in CALLS]

    tools, results = _connect(home, body)
    expected = {s["function"]["name"]: s["function"] for s in tool_schemas()}
    expected["memory_read"] = MEMORY_READ_SCHEMA["function"]
    assert {t.name for t in tools} == set(expected)
    for tool in tools:
        assert tool.input_schema == expected[tool.name]["parameters"]
        if tool.name == "memory":  # worded for MCP: no prompt shows the blocks
            assert "shown to you at the start of every future session" not in \
                (tool.description or "")
            assert "in this server's instructions at the start of every future " \
                "conversation" in (tool.description or "")
        else:
            assert tool.description == expected[tool.name]["description"]

    # The same calls through the library on a twin home give the same results.
    twin = tmp_path / "twin"
    with memoir.open(twin, create=True) as mem:
        session = mem.start_session(platform="mcp")
        direct = [session.call_tool(name, args) for name, args in CALLS]
        session.end()
    assert len(results) == len(direct)

    def placed(result: dict[str, Any], where: Path) -> Any:
        # Paths in results are absolute (as Hermes's): each names its own home.
        return json.loads(json.dumps(result).replace(str(where), "<home>"))

    for (name, args), got, want in zip(CALLS, results, direct, strict=True):
        if name == "session_search":  # names the live session, whose id differs
            assert got["success"] is want["success"] is True, (args, got)
            continue
        assert placed(got, home) == placed(want, twin), (name, args)
    assert results[0]["success"] is True and results[4]["success"] is False


def test_every_write_names_the_client_and_the_session_ends_on_disconnect(home: Path) -> None:
    async def body(session: ClientSession) -> None:
        await session.call_tool("memory", {"action": "add", "target": "memory",
                                           "content": "Deploys go through CI."})
        await session.call_tool("skill_manage", {"action": "create", "name": "tabs-style",
                                                 "content": SKILL})

    _connect(home, body, client="Claude Desktop")
    with memoir.open(home, readonly=True) as mem:
        events = list(mem.journal.read())
    mine = [e for e in events if e.session is not None]
    assert mine[0].type == "session.started"
    assert mine[-1].type == "session.ended" and mine[-1].data.reason == "disconnected"
    assert mine[0].data.platform == "mcp"
    writes = [e for e in mine if e.type in ("memory.entry_added", "skill.created")]
    assert len(writes) == 2
    for event in mine:
        assert event.actor == "agent"
        assert event.meta == {"client": "Claude Desktop", "client_version": "1.2.3"}
    shown = subprocess.run([sys.executable, "-m", "memoir", "--home", str(home), "log",
                            "--type", "memory.entry_added"], capture_output=True, text=True,
                           env=_env(), check=True).stdout
    assert "client=Claude Desktop" in shown


def test_resources_are_the_frozen_blocks_and_the_skills(home: Path) -> None:
    with memoir.open(home) as mem, mem.start_session() as before:
        before.call_tool("memory", {"action": "add", "target": "user",
                                    "content": "Name is Ada."})

    async def body(session: ClientSession) -> dict[str, Any]:
        await session.call_tool("memory", {"action": "add", "target": "memory",
                                           "content": "Written during the connection."})
        await session.call_tool("skill_manage", {"action": "create", "name": "tabs-style",
                                                 "content": SKILL})
        listed = await session.list_resources()
        read = {}
        for resource in listed.resources:
            contents = (await session.read_resource(resource.uri)).contents
            read[str(resource.uri)] = (contents[0].text, contents[0].mime_type)  # type: ignore[union-attr]
        with pytest.raises(MCPError):
            await session.read_resource("memoir://skills/no-such-skill")
        with pytest.raises(MCPError):
            await session.read_resource("file:///etc/passwd")
        return read

    read = _connect(home, body)
    assert set(read) == {"memoir://memory", "memoir://user", "memoir://skills/tabs-style"}
    # Frozen at the pin: what was written before the connection, not during it.
    assert "Name is Ada." in read["memoir://user"][0]
    assert "Written during" not in read["memoir://memory"][0]
    assert read["memoir://skills/tabs-style"] == (SKILL, "text/markdown")


def test_malformed_calls_get_errors_and_the_server_lives_on(home: Path) -> None:
    async def body(session: ClientSession) -> list[Any]:
        seen: list[Any] = []
        with pytest.raises(MCPError) as unknown:
            await session.call_tool("no_such_tool", {})
        seen.append(unknown.value.code)
        for args in ({"action": "add", "target": "nowhere", "content": "x"},
                     {"action": "add", "target": "memory", "content": "x" * 100_000},
                     {"action": "add", "target": "memory", "content": "a\x00b"}):
            seen.append(_result(await session.call_tool("memory", args)))
        seen.append(_result(await session.call_tool(
            "memory", {"action": "add", "target": "memory", "content": "Still alive."})))
        return seen

    seen = _connect(home, body)
    assert seen[0] == types.INVALID_PARAMS
    for answer in seen[1:4]:
        assert answer["success"] is False and answer["error"]
    assert seen[-1]["success"] is True


def _raw_server(home: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "memoir", "--home", str(home), "mcp"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=_env())


def _send(proc: subprocess.Popen[bytes], message: dict[str, Any] | bytes) -> None:
    assert proc.stdin is not None
    line = message if isinstance(message, bytes) else json.dumps(message).encode()
    proc.stdin.write(line + b"\n")
    proc.stdin.flush()


def _receive(proc: subprocess.Popen[bytes], want_id: int) -> dict[str, Any]:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        assert line, "the server closed stdout"
        message = json.loads(line)  # every stdout line is a protocol message
        if message.get("id") == want_id:
            return message  # type: ignore[no-any-return]


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "raw\x1b[31m-client", "version": "0"}}}


def test_garbage_on_stdin_gets_errors_and_stdout_stays_protocol_only(home: Path) -> None:
    proc = _raw_server(home)
    try:
        _send(proc, INIT)
        assert "result" in _receive(proc, 1)
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(proc, b"{this is not json")
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                     "params": {"name": "memory", "arguments": "not an object"}})
        assert "error" in _receive(proc, 2)
        deep = b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"memory",' \
            b'"arguments":{"action":"add","target":"memory","content":' + b"[" * 20000 + \
            b"]" * 20000 + b"}}}"
        _send(proc, deep)
        _send(proc, {"jsonrpc": "2.0", "id": 3, "method": "no/such/method"})
        assert _receive(proc, 3)["error"]["code"] == types.METHOD_NOT_FOUND
        _send(proc, {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "memory", "arguments": {"action": "add", "target": "memory",
                                            "content": "Survived the garbage."}}})
        answer = _receive(proc, 4)["result"]
        assert json.loads(answer["content"][0]["text"])["success"] is True
    finally:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.wait(timeout=30)
        rest = proc.stdout.read()
    for line in rest.splitlines():
        json.loads(line)
    assert proc.returncode == 0
    with memoir.open(home, readonly=True) as mem:
        started = [e for e in mem.journal.read() if e.type == "session.started"]
    # Control characters of the client's name never reach the journal.
    assert started[0].meta == {"client": "raw [31m-client", "client_version": "0"}


def test_two_clients_write_at_once(home: Path) -> None:
    count = 15

    async def one(name: str) -> list[dict[str, Any]]:
        async def body(session: ClientSession) -> list[dict[str, Any]]:
            return [_result(await session.call_tool("memory", {
                "action": "add", "target": "memory", "content": f"{name} fact {i}."}))
                for i in range(count)]

        async with stdio_client(_params(home)) as (read, write), \
                ClientSession(read, write, client_info=types.Implementation(
                    name=name, version="1")) as session:
            await session.initialize()
            return await body(session)

    results: dict[str, list[dict[str, Any]]] = {}

    async def main() -> None:
        async def run(name: str) -> None:
            results[name] = await one(name)

        async with anyio.create_task_group() as group:
            group.start_soon(run, "alpha")
            group.start_soon(run, "beta")

    anyio.run(main)
    assert all(r["success"] for rs in results.values() for r in rs)
    with memoir.open(home, readonly=True) as mem:
        mem.verify()
        added = [e for e in mem.journal.read() if e.type == "memory.entry_added"]
        texts = {e.data.text for e in added}
        assert texts == {f"{n} fact {i}." for n in ("alpha", "beta") for i in range(count)}
        for event in added:
            assert event.meta is not None
            assert event.data.text.startswith(event.meta["client"])
        ended = [e for e in mem.journal.read() if e.type == "session.ended"]
        assert len(ended) == 2


CLIENT = textwrap.dedent("""\
    import sys, anyio, mcp_types as types
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def main():
        params = StdioServerParameters(command=sys.executable, args=[
            "-m", "memoir", "--home", sys.argv[1], "mcp"])
        async with stdio_client(params) as (r, w), ClientSession(
                r, w, client_info=types.Implementation(name="doomed", version="1")) as s:
            await s.initialize()
            print("ready", flush=True)
            i = 0
            while True:
                i += 1
                await s.call_tool("skill_manage", {"action": "create", "name": f"skill-{i}",
                    "content": "---\\nname: skill-%d\\ndescription: d\\n---\\nbody %s\\n"
                               % (i, "x" * 20000)})
    anyio.run(main)
    """)


def test_client_killed_mid_call_leaves_a_whole_journal_and_an_ended_session(
        home: Path, tmp_path: Path) -> None:
    psutil = pytest.importorskip("psutil")
    script = tmp_path / "client.py"
    script.write_text(CLIENT, encoding="utf-8")
    client = subprocess.Popen([sys.executable, str(script), str(home)], stdout=subprocess.PIPE,
                              env=_env())
    assert client.stdout is not None
    assert client.stdout.readline().strip() == b"ready"
    servers = psutil.Process(client.pid).children(recursive=True)
    assert servers
    # Some calls land (read off the journal, not waited for), then the client dies with
    # the next in flight.
    deadline = time.monotonic() + 120
    while True:
        with memoir.open(home, readonly=True) as mem:
            landed = sum(1 for e in mem.journal.read() if e.type == "skill.created")
        if landed >= 2:
            break
        assert time.monotonic() < deadline and client.poll() is None, "no call landed"
        time.sleep(0.05)
    client.send_signal(signal.SIGKILL)
    client.wait(timeout=10)
    _gone, alive = psutil.wait_procs(servers, timeout=30)
    assert not alive, "memoir mcp outlived its client"
    with memoir.open(home, readonly=True) as mem:
        mem.verify()
        events = list(mem.journal.read())
        created = [e for e in events if e.type == "skill.created"]
        assert created
        assert events[-1].type == "session.ended"
        assert events[-1].data.reason == "disconnected"
        assert len(mem.state.skills.skills) == len(created)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_http_refuses_a_public_address_without_a_token(home: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "memoir", "--home", str(home), "mcp",
                           "--http", "0.0.0.0:8765"], capture_output=True, text=True,
                          env={k: v for k, v in _env().items() if k != "MEMOIR_MCP_TOKEN"},
                          timeout=60)
    assert done.returncode == 2
    assert "--token" in done.stderr
    assert done.stdout == ""


def test_http_serves_sessions_behind_a_token(home: Path) -> None:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "memoir", "--home", str(home), "mcp", "--http",
         f"127.0.0.1:{port}"], env={**_env(), "MEMOIR_MCP_TOKEN": "s3cret"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                refused = httpx2.post(url, json=INIT)
                break
            except httpx2.TransportError:
                assert time.monotonic() < deadline, "the HTTP server never came up"
                time.sleep(0.1)
        assert refused.status_code == 401

        async def main() -> dict[str, Any]:
            async with httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret"}) as http, \
                    streamable_http_client(url, http_client=http) as (read, write), \
                    ClientSession(read, write, client_info=types.Implementation(
                        name="http-client", version="2")) as session:
                await session.initialize()
                return _result(await session.call_tool("memory", {
                    "action": "add", "target": "memory", "content": "Over HTTP."}))

        assert anyio.run(main)["success"] is True

        async def again() -> str | None:
            async with httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret"}) as http, \
                    streamable_http_client(url, http_client=http) as (read, write), \
                    ClientSession(read, write) as session:
                return (await session.initialize()).instructions

        # Another HTTP connection is told what the first one saved.
        assert "Over HTTP." in (anyio.run(again) or "")
        # Leaving the client sent DELETE: the session ends while the server runs on.
        deadline = time.monotonic() + 20
        while True:
            with memoir.open(home, readonly=True) as mem:
                events = list(mem.journal.read())
            if events[-1].type == "session.ended" or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert events[-1].type == "session.ended" and server.poll() is None
        started = [e for e in events if e.type == "session.started"]
        ended = [e for e in events if e.type == "session.ended"]
        assert len(started) == len(ended) == 2
    finally:
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=30)
    added = [e for e in events if e.type == "memory.entry_added"]
    assert added and added[0].meta == {"client": "http-client", "client_version": "2"}


def test_session_option_continues_a_session(home: Path) -> None:
    with memoir.open(home) as mem:
        first = mem.start_session(session_id="ongoing-1")
        first.call_tool("memory", {"action": "add", "target": "user", "content": "Name is Ada."})

    async def body(session: ClientSession) -> dict[str, Any]:
        return _result(await session.call_tool("memory", {
            "action": "add", "target": "memory", "content": "Continued over MCP."}))

    assert _connect(home, body, extra=("--session", "ongoing-1"))["success"] is True
    with memoir.open(home, readonly=True) as mem:
        events = list(mem.journal.read())
    added = [e for e in events if e.type == "memory.entry_added"]
    assert added[-1].session == "ongoing-1" and added[-1].meta is not None
    assert [e.type for e in events if e.type == "session.started"] == ["session.started"]
    assert events[-1].type == "session.ended" and events[-1].session == "ongoing-1"
    missing = subprocess.run([sys.executable, "-m", "memoir", "--home", str(home), "mcp",
                              "--session", "no-such-session"], capture_output=True, text=True,
                             env=_env(), timeout=60, stdin=subprocess.DEVNULL)
    assert missing.returncode == 3 and "no-such-session" in missing.stderr


def test_without_the_mcp_extra_the_command_says_how_to_get_it(home: Path) -> None:
    # The SDK made unimportable, as in an install without the mcp extra.
    code = ("import sys; sys.modules['mcp'] = None\n"
            "from memoir.cli import main\n"
            f"sys.argv = ['memoir', '--home', {str(home)!r}, 'mcp']\n"
            "main()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert "memoir mcp needs memoir's 'mcp' extra (memoir-agent[mcp])" in done.stderr
    assert f"{sys.executable} -m pip install 'mcp>=" in done.stderr and done.stdout == ""


def test_a_fact_saved_in_one_connection_is_in_the_next_connections_instructions(
        home: Path) -> None:
    async def first(session: ClientSession) -> dict[str, Any]:
        saved = _result(await session.call_tool("memory", {
            "action": "add", "target": "user", "content": "Prefers tabs over spaces."}))
        assert saved["success"] is True
        await session.call_tool("skill_manage", {"action": "create", "name": "tabs-style",
                                                 "content": SKILL})
        # Read back at once, in the same connection: memory_read shows it now.
        return _result(await session.call_tool("memory_read", {}))

    async def run(body: Callable[[ClientSession], Awaitable[Any]]) -> tuple[str, Any]:
        async with stdio_client(_params(home)) as (read, write), \
                ClientSession(read, write, client_info=types.Implementation(
                    name="desktop", version="1")) as session:
            init = await session.initialize()
            return init.instructions or "", await body(session)

    told, read_back = anyio.run(run, first)
    assert "Nothing is saved yet" in told and "Prefers tabs" not in told
    assert read_back["user"]["entries"] == ["Prefers tabs over spaces."]
    assert read_back["memory"]["entries"] == [] and read_back["success"] is True

    async def second(session: ClientSession) -> dict[str, Any]:
        return _result(await session.call_tool("memory_read", {"target": "user"}))

    told, read_back = anyio.run(run, second)
    assert "Prefers tabs over spaces." in told
    assert "USER PROFILE" in told and "tabs-style" in told  # the block and skills index
    assert read_back == {"success": True, "user": {
        "entries": ["Prefers tabs over spaces."], "entry_count": 1,
        "usage": read_back["user"]["usage"]}}
    # The instructions are the session's frozen context: its pin is the handshake's.
    with memoir.open(home, readonly=True) as mem:
        sessions = [e for e in mem.journal.read() if e.type == "session.started"]
        session = mem.session(sessions[-1].data.session_id)
        # quoted as data (issue 34): inert, between memoir's own tags
        assert f"<saved-memory>\n{inert(session.standing_context())}\n</saved-memory>" in told


def test_prompts_and_resource_templates_are_answered(home: Path) -> None:
    with memoir.open(home) as mem, mem.start_session() as s:
        s.call_tool("memory", {"action": "add", "target": "memory",
                               "content": "The build uses ninja."})
        s.call_tool("skill_manage", {"action": "create", "name": "tabs-style",
                                     "content": SKILL})

    async def body(session: ClientSession) -> tuple[Any, ...]:
        prompts = await session.list_prompts()
        plain = await session.get_prompt("memoir_context")
        focused = await session.get_prompt("memoir_context",
                                           {"message": "how should I indent python files"})
        templates = await session.list_resource_templates()
        with pytest.raises(MCPError, match="no prompt"):
            await session.get_prompt("nope")
        bad = _result(await session.call_tool("memory_read", {"target": "both"}))
        return prompts, plain, focused, templates, bad

    prompts, plain, focused, templates, bad = _connect(home, body)
    assert [p.name for p in prompts.prompts] == ["memoir_context"]
    assert [a.name for a in prompts.prompts[0].arguments or []] == ["message"]
    text = plain.messages[0].content.text
    assert "The build uses ninja." in text and "tabs-style" in text
    focused_text = focused.messages[0].content.text
    assert "## Skill: tabs-style (relevant to this message)" in focused_text
    assert "Indent with tabs" in focused_text
    assert [t.uri_template for t in templates.resource_templates] == ["memoir://skills/{name}"]
    assert bad["success"] is False and "Invalid target" in bad["error"]


def test_a_home_that_may_not_write_still_reads_and_each_write_says_why(home: Path) -> None:
    """A home whose key the signed journal does not trust (a new machine not yet
    admitted, a key revoked) serves its connections as a guest: the frozen memory in
    ``instructions`` and every read tool answer as usual; each write is an error result
    naming the owner's trust line; nothing is appended, and the server lives on."""
    from memoir.engine.signing import KEY_FILE

    with memoir.open(home) as mem, mem.start_session() as s:
        s.add_memory("The build uses make.")
        assert s.call_tool("skill_manage", {"action": "create", "name": "tabs-style",
                                            "content": SKILL})["success"] is True
    turned = subprocess.run([sys.executable, "-m", "memoir", "--home", str(home), "journal",
                             "upgrade"], capture_output=True, text=True, env=_env(),
                            check=False)
    assert turned.returncode == 0, turned.stderr
    (home / KEY_FILE).unlink()  # this machine's key is now one the owner never trusted
    made = subprocess.run([sys.executable, "-m", "memoir", "--home", str(home), "journal",
                           "key"], capture_output=True, text=True, env=_env(), check=False)
    trust_line = made.stdout.strip().splitlines()[-1].strip()
    assert trust_line.startswith("memoir journal trust "), made.stdout
    before = (home / "journal.jsonl").read_bytes()

    async def body(session: ClientSession) -> dict[str, dict[str, Any]]:
        calls = {
            "memory_read": {"target": "memory"},
            "memory_search": {"query": "make"},
            "skills_list": {},
            "skill_view": {"name": "tabs-style"},
            "session_search": {"query": "build"},
            "memory": {"action": "add", "target": "memory", "content": "A new fact."},
            "skill_manage": {"action": "create", "name": "other", "content": SKILL},
        }
        return {name: _result(await session.call_tool(name, args))
                for name, args in calls.items()}

    async def run() -> tuple[str, dict[str, dict[str, Any]]]:
        async with stdio_client(_params(home)) as (read, write), \
                ClientSession(read, write) as session:
            init = await session.initialize()
            return init.instructions or "", await body(session)

    told, got = anyio.run(run)
    assert "The build uses make." in told and "tabs-style" in told
    assert got["memory_read"]["memory"]["entries"] == ["The build uses make."]
    assert got["skill_view"]["success"] is True and "tabs" in got["skill_view"]["content"]
    for read in ("memory_search", "skills_list", "session_search"):
        assert got[read]["success"] is True, got[read]
    for write in ("memory", "skill_manage"):
        assert got[write]["success"] is False
        assert trust_line.removeprefix("memoir journal trust ").split()[0] in \
            got[write]["error"], got[write]
    assert (home / "journal.jsonl").read_bytes() == before  # not a byte appended


def test_a_guest_session_writes_nothing_and_says_why(tmp_path: Path) -> None:
    with memoir.open(tmp_path / "h", create=True) as mem:
        mem.start_session().add_memory("Uses uv for Python.")
        before = (tmp_path / "h" / "journal.jsonl").read_bytes()
        guest = mem.guest_session("the journal's owner must trust this home first")
        assert guest.guest is not None and guest.pinned_seq == mem.state.seq
        assert "Uses uv for Python." in (guest.prompt_blocks()["memory"] or "")
        assert guest.prompt("how do I install deps?").system  # rendered, not journaled
        done = guest.add_memory("Another fact.")
        assert done["success"] is False and "must trust this home first" in done["error"]
        with pytest.raises(memoir.ValidationError, match="records no turn"):
            guest.record_turn([{"role": "user", "content": "hi"}])
        guest.end()
        assert (tmp_path / "h" / "journal.jsonl").read_bytes() == before
