"""Replay memory-tool calls against a real Hermes Agent install and print what happened.

This is a standalone script, not a test module: run it with the Python of a virtualenv that
has ``hermes-agent`` installed (``MEMOIR_HERMES_PYTHON``), never with memoir's own venv, and
never import it from pytest. ``tests/support/oracle.py`` is the helper that drives it.

Input (stdin, one JSON document)::

    {"memory_char_limit": 2200, "user_char_limit": 1375,
     "turns": [[{"action": "add", "target": "memory", "content": "..."}, ...], ...]}

Each op holds the keyword arguments of one ``memory`` tool call (``action``, ``target``,
``content``, ``old_text``, ``operations``); only the keys present are passed, so a missing
``target`` takes Hermes's own default exactly as the agent loop does.  An op
``{"hand_edit": {"file": "MEMORY.md", "text": "..."}}`` instead writes that text to the
file, as a person editing it between calls would (its record has a null result).

Output (stdout, one JSON document)::

    {"hermes_version": "0.19.0", "home": "<temp HERMES_HOME, already deleted>",
     "turns": [[{"raw": "<tool result string>", "result": {...},
                 "memory_md": "<file text>" | null, "user_md": "<file text>" | null}, ...]],
     "system_prompt": {"memory": "<frozen block>" | null, "user": "<frozen block>" | null}}

``raw`` is the tool's JSON string as returned, so wire formats (key order, ``ensure_ascii``)
can be compared byte for byte. When a call raises instead of returning, the op's record holds
``"exception": {"type": ..., "message": ...}`` and ``raw``/``result`` are null. The
``system_prompt`` blocks come from a fresh store loaded from the home after the last op,
i.e. what the next session would see. ``home`` lets callers normalise the temp path that
drift errors embed (``drift_backup``).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

# The memory tool's keyword arguments; anything else in an op is a bug in the caller's doc.
TOOL_ARGUMENTS = ("action", "target", "content", "old_text", "operations")

DEFAULT_MEMORY_CHAR_LIMIT = 2200
DEFAULT_USER_CHAR_LIMIT = 1375


def _read_text(path: Path) -> str | None:
    """Return a file's exact content, or None when it does not exist."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    # surrogateescape keeps undecodable bytes visible instead of failing the whole run.
    return data.decode("utf-8", errors="surrogateescape")


def _tool_kwargs(op: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(op) - set(TOOL_ARGUMENTS))
    if unknown:
        raise SystemExit(f"hermes_oracle: unknown op keys {unknown}; allowed {TOOL_ARGUMENTS}")
    return {key: op[key] for key in TOOL_ARGUMENTS if key in op}


def _write_config(home: Path) -> None:
    # The approval gate is off by default; say so explicitly so the oracle never stages
    # writes even if a future default changes.
    (home / "config.yaml").write_text("memory:\n  write_approval: false\n", encoding="utf-8")


def run(doc: dict[str, Any]) -> dict[str, Any]:
    """Execute every turn of ``doc`` through Hermes's memory tool in a throwaway home."""
    memory_limit = int(doc.get("memory_char_limit", DEFAULT_MEMORY_CHAR_LIMIT))
    user_limit = int(doc.get("user_char_limit", DEFAULT_USER_CHAR_LIMIT))
    turns = doc.get("turns", [])

    with tempfile.TemporaryDirectory(prefix="hermes-oracle-") as tmp:
        home = Path(tmp)
        # Hermes resolves its home from the environment on every call; set it before import.
        os.environ["HERMES_HOME"] = str(home)
        _write_config(home)

        # Hermes lives in its own venv, so memoir's type checker cannot see it.
        from tools.memory_tool import (  # type: ignore[import-not-found]
            MemoryStore,
            get_memory_dir,
            memory_tool,
        )

        store = MemoryStore(memory_char_limit=memory_limit, user_char_limit=user_limit)
        store.load_from_disk()
        memories = get_memory_dir()

        turn_records: list[list[dict[str, Any]]] = []
        for turn in turns:
            # The agent resets the per-turn consolidation-failure counter at turn start.
            store.reset_consolidation_failures()
            records: list[dict[str, Any]] = []
            for op in turn:
                record: dict[str, Any] = {"raw": None, "result": None}
                if "hand_edit" in op:
                    # A person (or another program) rewrites a memory file between calls.
                    edit = op["hand_edit"]
                    (memories / edit["file"]).write_bytes(edit["text"].encode("utf-8"))
                    record["memory_md"] = _read_text(memories / "MEMORY.md")
                    record["user_md"] = _read_text(memories / "USER.md")
                    records.append(record)
                    continue
                try:
                    raw = memory_tool(**_tool_kwargs(op), store=store)
                except Exception as exc:
                    record["exception"] = {"type": type(exc).__name__, "message": str(exc)}
                else:
                    record["raw"] = raw
                    record["result"] = json.loads(raw)
                record["memory_md"] = _read_text(memories / "MEMORY.md")
                record["user_md"] = _read_text(memories / "USER.md")
                records.append(record)
            turn_records.append(records)

        fresh = MemoryStore(memory_char_limit=memory_limit, user_char_limit=user_limit)
        fresh.load_from_disk()
        system_prompt = {
            "memory": fresh.format_for_system_prompt("memory"),
            "user": fresh.format_for_system_prompt("user"),
        }

    return {
        "hermes_version": importlib.metadata.version("hermes-agent"),
        "home": str(home),
        "turns": turn_records,
        "system_prompt": system_prompt,
    }


def main() -> int:
    doc = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    # Keep stdout for the single JSON document: anything Hermes prints goes to stderr.
    real_stdout = sys.stdout
    sys.stdout = sys.stderr
    try:
        output = run(doc)
    finally:
        sys.stdout = real_stdout
    # ASCII-only output survives any locale and round-trips lone surrogates.
    real_stdout.write(json.dumps(output, ensure_ascii=True))
    real_stdout.write("\n")
    real_stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
