"""The agent-facing tools: an explicit table of specs, their schemas and the dispatch.

The table itself is :mod:`memoir.tools.toolset`."""

from memoir.tools.toolset import (
    DEFAULT_TOOLS,
    HERMES_FLAGS,
    FunctionSchema,
    Handler,
    Tool,
    ToolSchema,
    Toolset,
    failure_result,
    for_model,
    strict_schema,
    tool_schemas,
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
