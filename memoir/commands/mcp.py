"""``memoir mcp``: serve a home to MCP clients (see :mod:`memoir.integrations.mcp`)."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

import click

from memoir.commands.base import UserError, home_option, open_home


def _address(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise click.BadParameter(f"{value!r} is not HOST:PORT (say 127.0.0.1:8765)",
                                 param_hint="--http")
    return host, int(port)


@click.command()
@home_option
@click.option("--session", "resume", default=None, metavar="ID",
              help="Continue this session instead of starting one.")
@click.option("--http", "http", default=None, metavar="HOST:PORT",
              help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@click.option("--token", default=None, envvar="MEMOIR_MCP_TOKEN", show_envvar=True,
              help="Bearer token every HTTP request must carry (required off loopback).")
@click.pass_context
def mcp(ctx: click.Context, resume: str | None, http: str | None, token: str | None) -> None:
    """Serve this home to an MCP client: on stdin/stdout (the default), or over
    streamable HTTP with --http. Each connection's instructions hold its frozen MEMORY
    and USER blocks and the skills index; the tools are memoir's agent tools with their
    exact schemas and results, plus memory_read; the prompt memoir_context and the
    resources (the frozen blocks, each skill's SKILL.md) give the same on demand. One
    connection is one session, ended when the client goes; every write carries the
    client's name. Logs go to stderr only."""
    address = _address(http) if http is not None else None
    try:
        from memoir.integrations import mcp as server
    except ImportError as exc:
        from memoir.install import extra_hint

        raise UserError(f"{extra_hint('mcp', 'memoir mcp')} ({exc})") from None
    if address is not None and address[0] not in server.LOOPBACK and not token:
        raise click.UsageError(
            f"--http {http} listens beyond this machine: give --token (or set "
            "MEMOIR_MCP_TOKEN) so only clients with the token get in")
    if resume is not None and not resume.strip():
        raise click.BadParameter("the session id is empty", param_hint="--session")

    import memoir

    handle = open_home(ctx)  # serving tails the journal (Memoir.follow)
    if resume is not None:
        handle.session(resume)  # a missing session is named now, not at the first call

    def stop(*_: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        if address is None:
            ended = server.serve_stdio(handle, resume=resume, version=memoir.__version__)
        else:
            sys.stderr.write(f"memoir mcp: serving {handle.home} at "
                             f"http://{address[0]}:{address[1]}/mcp\n")
            ended = server.serve_http(handle, *address, token=token, resume=resume,
                                      version=memoir.__version__)
    except KeyboardInterrupt:
        ended = []
    handle.flush()
    if os.environ.get("MEMOIR_DEBUG"):
        sys.stderr.write(f"memoir mcp: ended sessions {ended}\n")
