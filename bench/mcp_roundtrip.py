"""An MCP ``memory add`` round trip over stdio (issue 12's target).

Three things are measured in the same run, on the same disk:

* the round trip of a ``memory`` add through ``memoir mcp`` (the SDK's client, a real
  subprocess, stdio), per call;
* the round trip of a no-op tool on a server built with the same SDK (``bench/
  _mcp_noop.py``: the low-level server, one tool that returns ``{}``) — the cost of the
  protocol and the pipes alone;
* memoir's own add (``Session.call_tool("memory", add)`` in process, durable: one
  fsync per add).

Target: p50 of the first ≤ 2x (p50 of the second + p50 of the third).  Rounds
alternate the servers; each add writes a distinct 60-char entry under a limit raised so
no add is refused.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench._measure import Context, Figure, Target, median, scratch_dir
from memoir.api import Memoir

NAME = "mcp_roundtrip"
NOOP = Path(__file__).with_name("_mcp_noop.py")
CONFIG = "memory:\n  memory_char_limit: 1000000\n"


def _text(i: int) -> str:
    return f"Benchmark fact number {i:08d}: the build runs under make -j8.".ljust(60, ".")


def _client_rounds(memoir_home: Path, calls: int, rounds: int,
                   log: Any) -> tuple[list[float], list[float]]:
    import anyio
    import mcp_types as types
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def timed(params: StdioServerParameters, tool: str, args: Any,
                    start: int) -> list[float]:
        out = []
        async with stdio_client(params) as (read, write), ClientSession(
                read, write, client_info=types.Implementation(name="bench", version="1")) as s:
            await s.initialize()
            await s.call_tool(tool, args(start - 1))  # warm: session start, imports
            for i in range(calls):
                began = time.perf_counter()
                result = await s.call_tool(tool, args(start + i))
                out.append(time.perf_counter() - began)
                if result.is_error:
                    raise AssertionError(f"{tool} failed: {result.content}")
        return out

    memoir_server = StdioServerParameters(
        command=sys.executable, args=["-m", "memoir", "--home", str(memoir_home), "mcp"])
    noop_server = StdioServerParameters(command=sys.executable, args=[str(NOOP)])
    adds: list[float] = []
    noops: list[float] = []
    for r in range(rounds):
        start = 1 + r * (calls + 1)
        adds += anyio.run(timed, memoir_server, "memory", lambda i: {
            "action": "add", "target": "memory", "content": _text(i)}, start)
        noops += anyio.run(timed, noop_server, "noop", lambda i: {}, start)
        log(f"  round {r + 1}: memoir add p50 {statistics.median(adds) * 1000:.2f} ms, "
            f"no-op p50 {statistics.median(noops) * 1000:.2f} ms")
    return adds, noops


def _direct_adds(home: Path, calls: int) -> list[float]:
    out = []
    with Memoir(home) as mem:
        session = mem.start_session()
        for i in range(calls):
            began = time.perf_counter()
            result = session.call_tool("memory", {"action": "add", "target": "memory",
                                                  "content": _text(10_000_000 + i)})
            out.append(time.perf_counter() - began)
            if not result.get("success"):
                raise AssertionError(result)
        session.end()
    return out


def run(ctx: Context) -> list[Figure]:
    try:
        import mcp  # noqa: F401
    except ImportError:
        ctx.log("  skipped: the mcp extra is not installed")
        return []
    base = scratch_dir(ctx, NAME)
    served, direct_home = base / "served", base / "direct"
    for home in (served, direct_home):
        Memoir(home, create=True).close()
        (home / "config.yaml").write_text(CONFIG, encoding="utf-8")
    calls, rounds = ctx.pick(100, 300), ctx.pick(2, 5)
    adds, noops = _client_rounds(served, calls, rounds, ctx.log)
    direct = _direct_adds(direct_home, calls * rounds)
    add_p50, noop_p50, own_p50 = (median(x) * 1000 for x in (adds, noops, direct))
    ctx.log(f"  memoir's own add p50 {own_p50:.2f} ms")
    return [
        Figure(NAME, "MCP memory add round trip over stdio, p50", add_p50, "ms", "lower",
               baseline_name="no-op tool on the same SDK + memoir's own add (p50s)",
               baseline_value=noop_p50 + own_p50, target=Target("ratio", "<", 2.0001),
               notes={"noop_p50_ms": noop_p50, "own_add_p50_ms": own_p50,
                      "add_p95_ms": statistics.quantiles(adds, n=20)[18] * 1000,
                      "calls": len(adds)}),
    ]
