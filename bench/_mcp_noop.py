"""A no-op MCP server on stdio, built with the same SDK and low-level server as
``memoir mcp``: the baseline of ``bench/mcp_roundtrip.py``."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

TOOL = types.Tool(name="noop", description="Does nothing.",
                  input_schema={"type": "object", "properties": {}})


async def _list(_ctx: Any, _params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[TOOL])


async def _call(_ctx: Any, _params: Any) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text="{}")],
                                structured_content={})


async def _main() -> None:
    server: Server[Any] = Server("noop", on_list_tools=_list, on_call_tool=_call)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_main)
