"""The agent-facing tools: an explicit table of specs, their schemas and the dispatch.

A :class:`Toolset` is an immutable list of :class:`Tool` (an OpenAI-style function
schema and a handler).  :data:`DEFAULT_TOOLS` is every tool memoir answers; a caller
that may use only some gets ``DEFAULT_TOOLS.only({...})`` — how a background reviewer
is limited to its four tools by construction, whatever else exists.

Schemas follow the OpenAI chat-completions ``tools`` format (``{"type": "function",
"function": {name, description, parameters}}``) so any agent framework can register
them; the argument names and meanings are Hermes's.  A handler gets the engine, the
caller's :class:`~memoir.engine.caller.CallContext` and the arguments, and returns the
tool's result dict.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Required, TypedDict, cast

from memoir.engine.caller import CallContext
from memoir.engine.port import Home
from memoir.errors import MemoirError
from memoir.insights.pipeline import MEMORY_SEARCH_SCHEMA, memory_search_tool
from memoir.logs import get_logger
from memoir.memory.commands import MEMORY_SCHEMA, memory_tool
from memoir.recall.tool import SESSION_SEARCH_SCHEMA, session_search_tool
from memoir.skills.tools import (
    SKILL_MANAGE_SCHEMA,
    SKILL_VIEW_SCHEMA,
    SKILLS_LIST_SCHEMA,
    skill_manage_tool,
    skill_view_tool,
    skills_list_tool,
)

__all__ = [
    "DEFAULT_TOOLS",
    "HERMES_FLAGS",
    "FunctionSchema",
    "Handler",
    "Tool",
    "ToolSchema",
    "Toolset",
    "failure_result",
    "for_model",
    "strict_schema",
    "tool_schemas",
]

log = get_logger("memoir.tools")

Handler = Callable[[Home, CallContext, dict[str, Any]], dict[str, Any]]


class FunctionSchema(TypedDict, total=False):
    """A function's schema, shaped as the OpenAI SDK's ``FunctionDefinition``."""

    name: Required[str]
    description: str
    parameters: dict[str, object]
    strict: bool | None


class ToolSchema(TypedDict, total=False):
    """One tool's schema, shaped as the OpenAI SDK's ``ChatCompletionFunctionToolParam``,
    so ``tools=memoir.tool_schemas()`` type-checks against the SDK."""

    type: Required[Literal["function"]]
    function: Required[FunctionSchema]


@dataclass(frozen=True)
class Tool:
    """One agent-facing tool: its JSON schema and the function that answers it."""

    schema: dict[str, Any]
    handler: Handler

    @property
    def name(self) -> str:
        return str(self.schema["function"]["name"])


class Toolset:
    """An immutable set of tools, by name (see the module docstring)."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise ValueError(f"two tools are named {tool.name!r}")
            self._tools[tool.name] = tool

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools[name] for name in sorted(self._tools))

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __repr__(self) -> str:
        return f"Toolset({sorted(self._tools)})"

    @property
    def names(self) -> list[str]:
        return sorted(self._tools)

    def only(self, names: Collection[str]) -> Toolset:
        """The tools named in ``names`` (all of them must exist here)."""
        unknown = sorted(set(names) - set(self._tools))
        if unknown:
            raise ValueError(f"no such tool(s): {', '.join(unknown)}; "
                             f"available: {', '.join(self.names)}")
        return Toolset(self._tools[name] for name in names)

    def plus(self, *tools: Tool) -> Toolset:
        """These tools and ``tools`` (names must not clash)."""
        return Toolset([*self._tools.values(), *tools])

    def schemas(self, *, strict: bool = False) -> list[ToolSchema]:
        """The JSON schemas of the tools, sorted by name (copies).  ``strict``: the
        variant for OpenAI's strict function calling (see :func:`strict_schema`)."""
        out = [cast(ToolSchema, copy.deepcopy(tool.schema)) for tool in self]
        return [strict_schema(schema) for schema in out] if strict else out

    def dispatch(self, engine: Home, ctx: CallContext, name: str,
                 args: dict[str, Any]) -> dict[str, Any]:
        """Answer one call of tool ``name``; an unknown name gets an error result.

        Never raises: a tool call that fails (a full disk, a journal that cannot be
        locked, arguments nested too deep) is answered with an error result, as Hermes's
        tools answer, and logged; whatever was not journaled did not happen.
        """
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self.names)
            return {"error": f"Unknown tool '{name}'. Available: {known}.", "success": False}
        try:
            return for_model(tool.handler(engine, ctx, args))
        except Exception as exc:
            return failure_result(name, exc)


#: Every agent-facing tool memoir answers.
DEFAULT_TOOLS = Toolset([
    Tool(MEMORY_SCHEMA, memory_tool),
    Tool(SKILL_MANAGE_SCHEMA, skill_manage_tool),
    Tool(SKILL_VIEW_SCHEMA, skill_view_tool),
    Tool(SKILLS_LIST_SCHEMA, skills_list_tool),
    Tool(SESSION_SEARCH_SCHEMA, session_search_tool),
    Tool(MEMORY_SEARCH_SCHEMA, memory_search_tool),
])


def strict_schema(schema: ToolSchema) -> ToolSchema:
    """``schema`` for OpenAI's strict mode (structured outputs): ``"strict": true``, every
    object closed (``additionalProperties: false``) and listing all its properties as
    required, an optional property made nullable instead (the model sends ``null`` for
    it, which the tools treat as absent)."""
    function = schema["function"]
    params = copy.deepcopy(function.get("parameters") or {"type": "object",
                                                            "properties": {}})
    return {"type": "function", "function": {**function, "parameters": _closed(params),
                                             "strict": True}}


def _closed(node: Any) -> Any:
    if isinstance(node, list):
        return [_closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _closed(value) for key, value in node.items()}
    if node.get("type") == "object" or "properties" in node:
        properties = node.setdefault("properties", {})
        required = set(node.get("required", []))
        for key, value in properties.items():
            if key not in required:
                properties[key] = _nullable(value)
        node["required"] = list(properties)
        node["additionalProperties"] = False
    return node


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    kind = node.get("type")
    if isinstance(kind, str):
        return {**node, "type": [kind, "null"]}
    if isinstance(kind, list):
        return node if "null" in kind else {**node, "type": [*kind, "null"]}
    return {"anyOf": [node, {"type": "null"}]}


#: Keys of Hermes's results that start with ``_`` yet are read — by the agent and by
#: Hermes's own background review and curator — so they reach the model as in Hermes.
HERMES_FLAGS = frozenset({"_read_before_write_required", "_fail_closed", "_archived",
                          "_change"})


def for_model(result: dict[str, Any], home: Path | None = None) -> dict[str, Any]:
    """A tool result as the model gets it: Hermes's result as Hermes gives it — its
    flags (:data:`HERMES_FLAGS`) kept and paths absolute, so a path opens as it is
    (a drift backup, a skill's folder) — without any other key that starts with ``_``
    (memoir's own bookkeeping, should a handler add one).  ``home`` is unused (kept
    for callers of earlier versions, which made paths relative to it)."""
    del home
    return {key: value for key, value in result.items()
            if not key.startswith("_") or key in HERMES_FLAGS}


def failure_result(name: str, exc: BaseException) -> dict[str, Any]:
    """The error result of a tool call that failed (logged, never raised)."""
    log.error("tool.failed", tool=name, error=repr(exc))
    if isinstance(exc, MemoirError):
        why = str(exc)
    elif isinstance(exc, OSError):
        why = f"the memory home could not be written ({exc.strerror or exc})"
    elif isinstance(exc, RecursionError):
        why = "the arguments are nested too deeply"
    else:
        why = f"an internal error ({type(exc).__name__})"
    return {"error": f"The {name} call failed and changed nothing: {why}.", "success": False}


def tool_schemas(*, strict: bool = False) -> list[ToolSchema]:
    """The JSON schemas of every agent-facing tool, sorted by name (copies), ready for
    ``tools=`` of a chat-completions request; ``strict=True`` for OpenAI's strict mode."""
    return DEFAULT_TOOLS.schemas(strict=strict)
