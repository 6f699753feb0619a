"""Running the web view: bind, say where, serve until interrupted."""

from __future__ import annotations

import html
import os
import secrets
import shutil
import socket
import tempfile
from collections.abc import Callable
from pathlib import Path

import uvicorn

from memoir.api import Memoir
from memoir.web.app import WebApp

__all__ = ["Launcher", "bind", "new_token", "serve", "url_of"]


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
    """The page's URL, the token in its fragment (which a browser sends to no server)."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/#token={token}"


class Launcher:
    """A page to hand a browser instead of the URL (``memoir ui --open``).

    A browser's command line is readable by every local user (``ps``), so the URL with
    its token never goes there: the browser is given ``file://…/open.html``, a file
    only this user can read (0600, in a 0700 folder of its own) that sends the browser
    on to the URL.  :meth:`remove` deletes it; the server does when it stops.
    """

    def __init__(self, url: str) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="memoir-ui-"))  # mode 0700
        self.path = self.folder / "open.html"
        target = html.escape(url, quote=True)
        page = (f'<!doctype html><meta charset="utf-8"><meta name="referrer" '
                f'content="no-referrer"><meta http-equiv="refresh" content="0;url={target}">'
                f"<title>memoir ui</title><p>Opening memoir ui…</p>")
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(page)

    @property
    def uri(self) -> str:
        return self.path.as_uri()

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


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
