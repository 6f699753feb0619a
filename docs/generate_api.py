"""Write docs/api.md, memoir's API reference, from the docstrings and signatures.

Run ``./dev api`` (or ``python docs/generate_api.py > docs/api.md``); the test suite
fails when docs/api.md is not what this prints.  Why a script of ours and not pdoc or
Sphinx: the docs are markdown read on the forge and in the checkout, checked by tests
(links, paths, commands); one generated markdown page keeps the reference there, with
the same checks, and adds no dependency.  It documents what ``import memoir`` exports
(and, from there, the methods of its classes that do not start with ``_``), the tool
result types, :mod:`memoir.sdk` and :mod:`memoir.testing`.
"""

from __future__ import annotations

import enum
import importlib
import inspect
import sys
import typing
from collections.abc import Callable, Iterator
from typing import Any

SECTIONS: list[tuple[str, str, list[str]]] = [
    ("Opening a home", "memoir", ["open", "default_home", "load_config", "Memoir"]),
    ("Sessions and tools", "memoir", ["Session", "tool_schemas", "Toolset", "Tool"]),
    ("Tool results", "memoir.tools.results", [
        "ToolMessage", "MemoryResult", "MemoryReadResult", "TargetEntries",
        "SkillManageResult", "SkillsListResult", "SkillViewResult", "SessionSearchResult",
        "MemorySearchResult"]),
    ("Recording", "memoir.sessions.turns", ["RecordedTurns"]),
    ("Typed for the OpenAI SDK", "memoir.sdk", ["tool_messages", "tool_result_message",
                                               "tools"]),
    ("Writing events yourself", "memoir", ["Caller", "CallContext", "Decision", "Draft",
                                          "Event", "State"]),
    ("Journals", "memoir", ["Journal", "FileJournal", "InMemoryJournal", "ExpectHead",
                            "ExpectUntouched"]),
    ("Clocks and configuration", "memoir", ["Clock", "SystemClock", "FakeClock", "Config"]),
    ("Errors", "memoir", ["MemoirError", "ValidationError", "NotFoundError", "ConflictError",
                          "AdoptionConflict", "DriftError", "RejectedError", "ConfigError",
                          "ProjectionError", "JournalError", "JournalCorrupted",
                          "JournalLost", "UnknownEventType"]),
]


def _doc(obj: Any) -> str:
    text = inspect.getdoc(obj) or ""
    return text.strip()


def _annotation(value: Any) -> str:
    if value is inspect.Parameter.empty:
        return ""
    text = value if isinstance(value, str) else inspect.formatannotation(value)
    return text.replace("typing.", "").replace("collections.abc.", "")


def _default(value: Any) -> str:
    if value is inspect.Parameter.empty:
        return ""
    if value is None or isinstance(value, bool | int | float | str):
        return repr(value)
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    return "…"


def _signature(fn: Callable[..., Any], name: str) -> str:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return f"{name}(…)"
    parts = []
    star = False
    for param in sig.parameters.values():
        if param.name == "self":
            continue
        if param.kind is param.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        prefix = {param.VAR_POSITIONAL: "*", param.VAR_KEYWORD: "**"}.get(param.kind, "")
        if param.kind is param.VAR_POSITIONAL:
            star = True
        text = prefix + param.name
        annotation = _annotation(param.annotation)
        if annotation:
            text += f": {annotation}"
        default = _default(param.default)
        if default:
            text += f" = {default}" if annotation else f"={default}"
        parts.append(text)
    returns = _annotation(sig.return_annotation)
    return f"{name}({', '.join(parts)})" + (f" -> {returns}" if returns else "")


def _members(cls: type) -> Iterator[tuple[str, Any]]:
    """The public methods and properties of ``cls`` that memoir defines (not those of
    ``object``, msgspec, pydantic or the standard library)."""
    seen = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith("memoir"):
            continue
        for name, value in sorted(vars(klass).items()):
            if name.startswith("_") or name in seen:
                continue
            seen.add(name)
            if isinstance(value, property | staticmethod | classmethod) or \
                    inspect.isfunction(value):
                yield name, value


def _typed_dict(cls: type) -> list[str]:
    hints = typing.get_type_hints(cls, include_extras=False)
    required = getattr(cls, "__required_keys__", frozenset())
    rows = ["| key | type | |", "|---|---|---|"]
    for key, hint in hints.items():
        rows.append(f"| `{key}` | `{_annotation(hint)}` | "
                    f"{'required' if key in required else ''} |")
    return rows


def _class(name: str, cls: type) -> list[str]:
    out = [f"### class `{name}`", ""]
    bases = [b.__name__ for b in cls.__bases__ if b is not object]
    if issubclass(cls, BaseException) and bases:
        out += [f"A subclass of `{'`, `'.join(bases)}`.", ""]
    doc = _doc(cls)
    if doc:
        out += [doc, ""]
    if typing.is_typeddict(cls):
        return [*out, *_typed_dict(cls), ""]
    if issubclass(cls, BaseException):
        return out
    for member, value in _members(cls):
        if isinstance(value, property):
            fget = value.fget
            returns = _annotation(inspect.signature(fget).return_annotation) if fget else ""
            out += [f"#### `{name}.{member}`" + (f" → `{returns}`" if returns else "")
                    + " (property)", ""]
            target: Any = fget
        else:
            fn = value.__func__ if isinstance(value, staticmethod | classmethod) else value
            out += [f"#### `{name}.{_signature(fn, member)}`", ""]
            target = fn
        doc = _doc(target)
        if doc:
            out += [doc, ""]
    return out


#: The first section: the ten calls most users need, run by tests/test_docs.py (with
#: ``home`` set to a fresh folder).
EVERYDAY = """## The everyday calls

Open a home; add, replace and remove entries; list them; search sessions and memory;
get a turn's prompt; record a turn; undo a run or forget a text. A write through the
handle (`add_memory`) is a person's (actor `user`, a run of its own); a session's are the
agent's. Every other call is in the reference below.

```python
import memoir
from memoir.oversight.forget import forget, plan_forget
from memoir.oversight.revert import revert_run

with memoir.open(home) as h:                                     # 1. open (creates it)
    added = h.add_memory("The staging API runs on port 8443.")   # 2. add, as a person
    print(added["message"], added["usage"], added["run"])      # its run: revertible
    with h.start_session() as s:                                 # an agent's session
        s.replace_memory("port 8443", "The staging API runs on port 9443.")  # 3. replace
        s.add_memory("Prefers short answers.", target="user")
        s.remove_memory("short answers", target="user")          # 4. remove
        s.record_turn([                                          # 5. record a turn
            {"role": "user", "content": "Why does the deploy to staging time out?"},
            {"role": "assistant", "content": "The VPN was down; it works again."},
        ])
        prompt = s.prompt("How do I reach staging?")             # 6. the whole prompt
        print(prompt.system[:60])
    for entry in h.state.memory.target("memory").entries:        # 7. list
        print(entry.id, entry.text)
    print(h.search_memory("staging port"))                       # 8. search memory
    print(h.search_sessions("deploy timeout")["results"])        # 9. search sessions
    note = h.add_memory("Releases go out on Tuesdays.")
    revert_run(h, note["run"])                                   # 10. undo a run...
    forget(h, plan_forget(h, "text", "staging API"))             # ...or forget a text
```
"""


def render() -> str:
    out = ["# API reference", "",
           "Generated by `docs/generate_api.py` from the docstrings and signatures "
           "(`./dev api` writes it again; the tests check it is current). The guides "
           "say how the pieces fit: [agent-loop.md](agent-loop.md), "
           "[architecture.md](architecture.md).", "", EVERYDAY]
    for title, module_name, names in SECTIONS:
        module = importlib.import_module(module_name)
        out += [f"## {title}", "", f"From `{module_name}`.", ""]
        for name in names:
            obj = getattr(module, name)
            if inspect.isclass(obj):
                out += _class(name, obj)
            elif callable(obj):
                out += [f"### `{_signature(obj, name)}`", "", _doc(obj), ""]
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
