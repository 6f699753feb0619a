"""The public surface: ``memoir.open``, handles, sessions, tool schemas, views and ``__all__``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import memoir
from memoir.engine.commit import Caller
from memoir.events.memory import EntryAdded


def test_all_is_sorted_and_every_name_exists() -> None:
    assert memoir.__all__ == sorted(memoir.__all__)
    assert len(set(memoir.__all__)) == len(memoir.__all__)
    for name in memoir.__all__:
        assert hasattr(memoir, name), name


def test_open_defaults_to_memoir_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MEMOIR_HOME", str(tmp_path / "from-env"))
    with memoir.open() as mem:
        assert mem.home == tmp_path / "from-env"
        assert (tmp_path / "from-env" / "journal.jsonl").exists()


def test_open_falls_back_to_dot_memoir_in_the_home_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("MEMOIR_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    with memoir.open() as mem:
        assert mem.home == tmp_path / ".memoir"
    assert memoir.default_home() == tmp_path / ".memoir"


def test_open_expands_a_user_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    with memoir.open("~/agent-memory") as mem:
        assert mem.home == tmp_path / "agent-memory"


def test_head_counts_journal_records(home: Path) -> None:
    with memoir.open(home) as mem:
        assert mem.head == 0
        session = mem.start_session()
        assert mem.head == session.pinned_seq
        session.call_tool("memory", {"action": "add", "content": "x"})
        assert mem.head == session.pinned_seq + 1


def test_session_surface(home: Path) -> None:
    with memoir.open(home) as mem:
        session = mem.start_session()
        assert isinstance(session, memoir.Session)
        assert isinstance(session.id, str) and session.id
        assert isinstance(session.pinned_seq, int)
        assert session.prompt_blocks() == {"memory": None, "user": None}
        by_dict = session.call_tool("memory", {"action": "add", "content": "dict args"})
        by_json = session.call_tool("memory", json.dumps({"action": "add", "target": "user",
                                                          "content": "json args"}))
        assert by_dict["success"] is True and by_json["target"] == "user"
        assert session.call_tool("memory", None)["success"] is False
        unknown = session.call_tool("no_such_tool", {})
        assert unknown["success"] is False and "no_such_tool" in unknown["error"]
        listed = session.call_tool("memory", "[1, 2]")
        assert listed["success"] is False


def _check_json_schema(node: Any, where: str) -> None:
    assert isinstance(node, dict), where
    kind = node.get("type")
    assert kind in {"object", "array", "string", "integer", "number", "boolean"}, where
    if kind == "object":
        props = node.get("properties", {})
        assert isinstance(props, dict), where
        for name, sub in props.items():
            _check_json_schema(sub, f"{where}.{name}")
        for name in node.get("required", []):
            assert name in props, f"{where}: required {name!r} is not a property"
    if kind == "array":
        _check_json_schema(node["items"], f"{where}[]")
    if "enum" in node:
        assert isinstance(node["enum"], list) and node["enum"], where
    if "description" in node:
        assert isinstance(node["description"], str) and node["description"], where


def test_tool_schemas_are_openai_function_schemas() -> None:
    schemas = memoir.tool_schemas()
    assert isinstance(schemas, list) and schemas
    names = [s["function"]["name"] for s in schemas]
    assert names == sorted(names) and "memory" in names
    for schema in schemas:
        assert set(schema) == {"type", "function"} and schema["type"] == "function"
        function = schema["function"]
        assert set(function) >= {"name", "description", "parameters"}
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", function["name"])
        assert isinstance(function["description"], str) and function["description"]
        assert function["parameters"]["type"] == "object"
        _check_json_schema(function["parameters"], function["name"])
        json.dumps(schema)  # serialisable as is


def test_memory_schema_has_hermes_arguments() -> None:
    (schema,) = [s for s in memoir.tool_schemas() if s["function"]["name"] == "memory"]
    params = schema["function"]["parameters"]
    assert set(params["properties"]) == {"action", "target", "content", "old_text",
                                         "operations"}
    assert params["required"] == ["target"]
    assert params["properties"]["target"]["enum"] == ["memory", "user"]
    assert params["properties"]["action"]["enum"] == ["add", "replace", "remove"]
    assert params["properties"]["operations"]["items"]["required"] == ["action"]


def test_tool_schemas_are_copies() -> None:
    memoir.tool_schemas()[0]["function"]["name"] = "changed"
    assert memoir.tool_schemas()[0]["function"]["name"] != "changed"


def test_view_reads_state_at_any_seq_and_is_independent(home: Path) -> None:
    with memoir.open(home) as mem:
        session = mem.start_session()
        session.call_tool("memory", {"action": "add", "content": "one"})
        middle = mem.head
        session.call_tool("memory", {"action": "add", "content": "two"})
        assert mem.view(middle).memory.memory.texts() == ["one"]
        assert mem.view().memory.memory.texts() == ["one", "two"]
        assert mem.view(0).memory.memory.texts() == []
        snapshot = mem.view()
        snapshot.memory.memory.entries.clear()
        assert mem.view().memory.memory.texts() == ["one", "two"]
        with pytest.raises(memoir.NotFoundError):
            mem.view(mem.head + 1)


def test_events_filters(home: Path) -> None:
    with memoir.open(home) as mem:
        session = mem.start_session()
        session.call_tool("memory", {"action": "add", "content": "agent note"})
        mem.commit(lambda _s: memoir.Decision(events=[
            EntryAdded(target="user", entry_id="e-u", text="Ada")]),
                by=Caller(actor="user", run="r-1"))
        assert [e.type for e in mem.events(types=["memory.*"])] == [
            "memory.limits_set", "memory.entry_added", "memory.entry_added"]
        assert [e.data.text for e in mem.events(actor="user")] == ["Ada"]  # type: ignore[attr-defined]
        assert [e.run for e in mem.events(run="r-1")] == ["r-1"]
        assert all(e.session == session.id for e in mem.events(session=session.id))
        assert [e.seq for e in mem.events(after=2, until=3)] == [3]


def test_errors_are_memoir_errors_and_builtin_kinds() -> None:
    assert issubclass(memoir.NotFoundError, LookupError)
    assert issubclass(memoir.ValidationError, ValueError)
    assert issubclass(memoir.RejectedError, memoir.ValidationError)
    for name in ("ConfigError", "ConflictError", "DriftError", "JournalCorrupted",
                 "NotFoundError", "ValidationError"):
        assert issubclass(getattr(memoir, name), memoir.MemoirError)


def test_unknown_session_is_not_found(home: Path) -> None:
    with memoir.open(home) as mem, pytest.raises(memoir.NotFoundError, match="no session"):
        mem.session("s-missing")

