"""Hypothesis strategies for what memoir records beyond memory calls (those are in
:mod:`memoir.testing`): recorded turns, curator plans, hand edits of the projected
files, and whole command sequences mixing them.  Each draws from small, readable pools,
so a failing example shrinks to a few short, named things.

* :func:`turns` - one turn as chat-completions messages: the user's message, now and
  then an assistant message with tool calls (arguments valid JSON or not), their tool
  results (successes and errors), the reply, and timestamps.
* :func:`curator_plans` - plan data as Hermes's curator writes it (``consolidations``,
  ``prunings``, ``umbrellas``), over given skill names, now and then with an item
  memoir's rules refuse (a name that breaks the rules, a skill absorbed into itself).
* :func:`hand_edits` - a function from a MEMORY.md / USER.md text to the text a person
  saved: an entry added, removed or changed, blank lines, a stray delimiter.
* :func:`command_sequences` - lists of commands (``{"op": ...}``) over all of them,
  with reverts and curator passes; :func:`apply_commands` carries them out on a home.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st

import memoir
from memoir.curator.passes import run_pass
from memoir.curator.plans import plan_from_data
from memoir.errors import MemoirError
from memoir.oversight.revert import revert_run
from memoir.testing.builders import memory_commands, memory_texts
from memoir.testing.machine import SKILL_NAMES, skill_manage_calls

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["apply_commands", "command_sequences", "curator_plans", "hand_edits", "turns"]

_TOOLS = ("terminal", "read_file", "web_search", "memory")
_ERRORS = ("psql: could not connect to server: Connection refused",
           "FileNotFoundError: config.yaml", "HTTP 429 Too Many Requests",
           "permission denied", "")
_TIMES = ("2026-03-01T09:00:00Z", "2026-03-01T09:00:05+00:00", "2026-03-02T17:30:00Z", None)


def turns() -> SearchStrategy[list[dict[str, Any]]]:
    """One turn of a conversation (see the module docstring)."""

    @st.composite
    def turn(draw: st.DrawFn) -> list[dict[str, Any]]:
        user: dict[str, Any] = {"role": "user", "content": draw(memory_texts()) or "hi"}
        when = draw(st.sampled_from(_TIMES))
        if when is not None:
            user["timestamp"] = when
        messages = [user]
        for n in range(draw(st.integers(0, 2))):
            call_id = f"call_{n}"
            arguments = draw(st.one_of(
                st.fixed_dictionaries({"cmd": st.sampled_from(["make test", "ls", "psql"])}
                                      ).map(json.dumps),
                st.sampled_from(["{not json", "", "[]"])))
            messages.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": call_id, "type": "function",
                 "function": {"name": draw(st.sampled_from(_TOOLS)),
                              "arguments": arguments}}]})
            error = draw(st.sampled_from((None, *_ERRORS)))
            result = {"success": True} if error is None else {"success": False,
                                                               "error": error}
            messages.append({"role": "tool", "tool_call_id": call_id,
                             "content": json.dumps(result)})
        messages.append({"role": "assistant", "content": draw(st.sampled_from(
            ["Done.", "I could not do that.", "Here is the fix."]))})
        return messages

    return turn()


def curator_plans(names: Sequence[str] = SKILL_NAMES) -> SearchStrategy[dict[str, Any]]:
    """Plan data (see the module docstring)."""
    name = st.one_of(st.sampled_from(list(names)), st.sampled_from(
        ["Bad Name", "../escape", "x" * 70, "umbrella-tools"]))
    reason = st.sampled_from(["same tool", "superseded", "overlaps", ""])
    return st.fixed_dictionaries({}, optional={
        "consolidations": st.lists(st.fixed_dictionaries(
            {"from": name, "into": name, "reason": reason}), max_size=3),
        "prunings": st.lists(st.fixed_dictionaries({"name": name, "reason": reason}),
                             max_size=2),
        "umbrellas": st.lists(st.fixed_dictionaries(
            {"name": st.sampled_from(["umbrella-tools", "Bad Umbrella"]),
             "description": st.sampled_from(["Tools in one place", ""])}), max_size=1),
    })


def hand_edits() -> SearchStrategy[Callable[[str], str]]:
    """Edits a person makes to MEMORY.md or USER.md (see the module docstring); each
    is a named function, so a shrunk example reads as what was done."""
    delimiter = "\n§\n"

    def add(text: str) -> Callable[[str], str]:
        def added(before: str) -> str:
            return (before + delimiter if before else "") + text
        added.__name__ = f"add({text[:30]!r})"
        return added

    def drop(index: int) -> Callable[[str], str]:
        def dropped(before: str) -> str:
            entries = before.split(delimiter) if before else []
            if entries:
                del entries[index % len(entries)]
            return delimiter.join(entries)
        dropped.__name__ = f"remove(entry {index})"
        return dropped

    def change(index: int, text: str) -> Callable[[str], str]:
        def changed(before: str) -> str:
            entries = before.split(delimiter) if before else [""]
            entries[index % len(entries)] = text
            return delimiter.join(entries)
        changed.__name__ = f"replace(entry {index}, {text[:30]!r})"
        return changed

    def noise(kind: str) -> Callable[[str], str]:
        def noisy(before: str) -> str:
            return {"blank lines": "\n\n" + before + "\n\n", "stray delimiter":
                    before + delimiter, "crlf": before.replace("\n", "\r\n")}[kind]
        noisy.__name__ = kind
        return noisy

    return st.one_of(memory_texts().map(add), st.integers(0, 5).map(drop),
                     st.builds(change, st.integers(0, 5), memory_texts()),
                     st.sampled_from(["blank lines", "stray delimiter", "crlf"]).map(noise))


def command_sequences(*, max_size: int = 20) -> SearchStrategy[list[dict[str, Any]]]:
    """Commands over everything memoir records, in order (see the module docstring)."""
    command = st.one_of(
        memory_commands().map(lambda args: {"op": "memory", "args": args}),
        skill_manage_calls().map(lambda args: {"op": "skill_manage", "args": args}),
        turns().map(lambda messages: {"op": "record_turn", "messages": messages}),
        hand_edits().map(lambda edit: {"op": "hand_edit", "target": "MEMORY.md",
                                       "edit": edit}),
        curator_plans().map(lambda plan: {"op": "curator_pass", "plan": plan}),
        st.just({"op": "new_session"}),
        st.just({"op": "revert_last"}),
    )
    return st.lists(command, max_size=max_size)


def apply_commands(home: memoir.Memoir, commands: Iterable[dict[str, Any]]) -> list[Any]:
    """Carry out :func:`command_sequences`' commands on ``home``, in a session of their
    own (``new_session`` ends it and starts another); what each gave, in order: a tool's
    result, a recorded turn, a run id, or the :class:`~memoir.errors.MemoirError` that
    refused it (memoir refusing a bad command is an outcome here, not a failure)."""
    session = home.start_session()
    out: list[Any] = []
    for command in commands:
        op = command["op"]
        try:
            if op in ("memory", "skill_manage"):
                out.append(session.call_tool(op, command["args"]))
            elif op == "record_turn":
                out.append(session.record_turn(command["messages"]))
            elif op == "new_session":
                session.end()
                session = home.start_session()
                out.append(session.id)
            elif op == "hand_edit":
                out.append(_hand_edit(home, command["target"], command["edit"]))
            elif op == "curator_pass":
                plan, refusals = plan_from_data(command["plan"], source="test")
                out.append(run_pass(home, plan=plan, plan_refusals=refusals))
            elif op == "revert_last":
                runs = sorted(home.state.runs.values(), key=lambda r: r.first_seq)
                out.append(revert_run(home, runs[-1].id).run_id if runs else None)
            else:
                raise ValueError(f"unknown command {op!r}")
        except MemoirError as refused:
            out.append(refused)
    with contextlib.suppress(MemoirError):
        session.end()
    return out


def _hand_edit(home: memoir.Memoir, target: str, edit: Callable[[str], str]) -> Any:
    home.flush()
    path = home.home / "memories" / target
    before = path.read_text(encoding="utf-8") if path.is_file() else ""
    path.parent.mkdir(exist_ok=True)
    path.write_text(edit(before), encoding="utf-8", newline="")
    try:
        return home.adopt(force=True)[0]
    except MemoirError:
        home.rebuild()  # refused: the file goes back to what the journal says
        raise
