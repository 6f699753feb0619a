"""Running the web view: bind, say where, serve until interrupted."""

from __future__ import annotations

import secrets
import socket
from collections.abc import Callable

import uvicorn

from memoir.api import Memoir
from memoir.web.app import WebApp

__all__ = ["bind", "new_token", "serve", "url_of"]


def new_token() -> str:
    """A token for one run of the server (the URL it prints carries it)."""
    return secrets.token_urlsafe(24)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit it: a response's head and body leave at once instead
    # of the body waiting on the client's delayed ACK (40 ms per keep-alive request).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket, token: str) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/?token={token}"


def serve(home: Memoir, sock: socket.socket, *, token: str, version: str = "",
          ready: Callable[[], None] | None = None) -> None:
    """Serve the web view of ``home`` on the bound ``sock`` until interrupted; ``ready``
    is called once the server accepts requests."""
    host, port = sock.getsockname()[:2]
    web = WebApp(home, token=token, host=host, port=port, version=version)
    web.prepare()
    config = uvicorn.Config(web.app, interface="asgi3", proxy_headers=False, log_config=None,
                            access_log=False, lifespan="off",
                            timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    shutdown = server.shutdown

    async def stop(sockets: list[socket.socket] | None = None) -> None:
        web.stopping.set()  # live streams end, so the shutdown does not wait on them
        await shutdown(sockets=sockets)

    server.shutdown = stop  # type: ignore[method-assign]
    if ready is not None:
        startup = server.startup

        async def started(sockets: list[socket.socket] | None = None) -> None:
            await startup(sockets=sockets)
            ready()

        server.startup = started  # type: ignore[method-assign]
    try:
        server.run(sockets=[sock])
    finally:
        web.stopping.set()
