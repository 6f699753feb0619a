"""A home with something of everything the web view shows: agent writes in two
sessions (one through an MCP client), a transcript with tool calls, a person's adopted
hand edit (a run to revert), a skill, a skill candidate and a held skill write."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import memoir

SKILL = "---\nname: {0}\ndescription: how to {0}\n---\n# {0}\n\n1. Do it.\n"
ERROR = "psql: could not connect to server at 10.0.0.1:5432 (after 30s)"
CONFIG = ("reviewers:\n  mode: off\ninsights:\n  promote_after: 1\n  candidate_after: 1\n"
          "skills:\n  write_approval: approve\n")


def failing() -> list[dict[str, Any]]:
    """A turn where a tool call fails: what insights count."""
    return [
        {"role": "user", "content": "Run the migrations against staging."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function",
             "function": {"name": "terminal", "arguments": '{"cmd": "make migrate"}'}}]},
        {"role": "tool", "tool_call_id": "a",
         "content": json.dumps({"success": False, "error": ERROR})},
        {"role": "assistant", "content": "The database refused the connection."}]


def fixed() -> list[dict[str, Any]]:
    """The same failure, then a question to the person, then the call that worked:
    the insight's resolution is that call, never the question."""
    return [
        {"role": "user", "content": "Try the migrations again."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "b", "type": "function",
             "function": {"name": "terminal", "arguments": '{"cmd": "make migrate"}'}}]},
        {"role": "tool", "tool_call_id": "b",
         "content": json.dumps({"success": False, "error": ERROR})},
        {"role": "assistant", "content": "Are you on the VPN?"},
        {"role": "user", "content": "Yes, I am now."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {
                "name": "terminal",
                "arguments": '{"cmd": "make migrate PGHOST=10.0.0.1 PGSSLMODE=require"}'}}]},
        {"role": "tool", "tool_call_id": "c", "content": json.dumps({"success": True})},
        {"role": "assistant", "content": "Migrated."}]


def seed(home: Path) -> dict[str, str]:
    """Fill ``home``; returns the ids the tests look for."""
    home.mkdir(parents=True, exist_ok=True)
    with memoir.open(home) as mem:  # before write approval: the skill is made at once
        s = mem.start_session()
        s.call_tool("skill_manage", {"action": "create", "name": "deploy-staging",
                                     "content": SKILL.format("deploy-staging")})
        s.end()
    (home / "config.yaml").write_text(CONFIG, encoding="utf-8")
    with memoir.open(home) as mem:
        agent = mem.start_session()
        agent.call_tool("memory", {"action": "add", "target": "memory",
                                   "content": "Staging database is db-staging:5432."})
        agent.call_tool("memory", {"action": "add", "target": "user",
                                   "content": "Prefers answers with the command first."})
        agent.record_turn(failing())
        agent.record_turn(failing())
        agent.record_turn(fixed())
        held = agent.call_tool("skill_manage", {"action": "create", "name": "fix-psql",
                                                "content": SKILL.format("fix-psql")})
        agent.end()
        client = mem.start_session(platform="mcp", meta={"client": "Claude Desktop"})
        hostile = "The MCP client saw <b>bold</b> & <script>x</script>."
        client.call_tool("memory", {"action": "add", "target": "memory", "content": hostile})
        client.end()
        mem.flush()
        memory_md = home / "memories" / "MEMORY.md"
        memory_md.write_text(memory_md.read_text(encoding="utf-8")
                             + "\n§\nReleases happen on Tuesdays.", encoding="utf-8")
        adopted, _ = mem.adopt()
        mem.flush()
        # A skill folder a person placed by hand, not adopted yet: listed, not journaled.
        placed = home / "skills" / "on-call" / "SKILL.md"
        placed.parent.mkdir(parents=True)
        placed.write_text(SKILL.format("on-call"), encoding="utf-8")
        return {"agent_session": agent.id, "mcp_session": client.id, "adopted": adopted,
                "pending": held["pending_id"]}
