"""The web view's HTTP side: a Starlette application over an open home.

Every API request needs the server's token in ``Authorization: Bearer …``.  There is
no cookie: a browser sends a cookie for 127.0.0.1 to every server on 127.0.0.1 whatever
its port, so any local server a person visits could read one and replay it here.  The
URL ``memoir ui`` prints carries the token in its fragment (``/#token=…``), which a
browser never sends anywhere; the page moves it into the tab's ``sessionStorage``
(scoped to scheme, host *and port*) and drops it from the address bar, then sends it as
a header.  The page itself (``/``) is a shell with no data and no secret.  A request
that changes anything is a JSON ``POST`` that must also carry the token in
``X-Memoir-Token`` and, when the browser says where it comes from, come from this
origin: cross-site requests are refused.  On loopback the ``Host`` header must name
loopback too, so a rebinding DNS name gets nothing.

Assets are served from a fixed table of the files under ``assets/`` (never a path
from the request); nothing is fetched from anywhere else.  Requests touch the home
one at a time (a lock), off the event loop; a request that scans the journal takes the
lock for one window of records at a time and reads a bounded number of them
(:mod:`memoir.web.history`), so a cheap request never waits behind a long scan.
``/api/stream`` sends each new record as a server-sent event, read from the journal
(records other processes append too).
"""

from __future__ import annotations

import asyncio
import hmac
import html
import json
import threading
import time
from collections.abc import AsyncIterator, Callable, MutableMapping
from importlib import resources
from typing import Any, TypeVar
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from memoir.api import Memoir
from memoir.errors import ConflictError, MemoirError, NotFoundError, ValidationError
from memoir.events.present import event_row
from memoir.web import LOOPBACK, history, pages
from memoir.web.actions import ACTIONS, act
from memoir.web.search import search
from memoir.web.timeline import Filters, item_detail, timeline

__all__ = ["ASSETS", "WebApp"]

T = TypeVar("T")

#: The files the page is made of: request name -> (file under assets/, media type).
ASSETS = {
    "app.js": ("app.js", "text/javascript; charset=utf-8"),
    "app.css": ("app.css", "text/css; charset=utf-8"),
}
_SECURITY = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
                               "img-src 'self' data:; connect-src 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
#: How often the live stream looks for new records, in seconds.
POLL = 0.2


def _asset(name: str) -> bytes:
    return resources.files("memoir.web").joinpath("assets", name).read_bytes()


class WebApp:
    """The application for one open home (``app`` is the ASGI callable)."""

    def __init__(self, home: Memoir, *, token: str, host: str, port: int,
                 version: str = "") -> None:
        self.home = home
        self.token = token
        self.version = version
        self.loopback = host in LOOPBACK
        self.port = port
        self.lock = threading.RLock()
        self.stopping = threading.Event()
        get: list[tuple[str, Callable[[Request], Any]]] = [
            ("/api/status", self._status),
            ("/api/timeline", self._timeline),
            ("/api/item/{item_id}", lambda r: item_detail(self.home, r.path_params["item_id"])),
            ("/api/memory", self._memory),
            ("/api/memory/blame", self._blame),
            ("/api/skills", lambda r: pages.skills(self.home)),
            ("/api/skills/{name}", lambda r: pages.skill(self.home, r.path_params["name"])),
            ("/api/curator", lambda r: pages.curator_passes(self.home)),
            ("/api/sessions", lambda r: pages.sessions(self.home, r.query_params.get("q"))),
            ("/api/sessions/{session_id}",
             lambda r: pages.session(self.home, r.path_params["session_id"])),
            ("/api/insights", lambda r: pages.insights(self.home)),
            ("/api/pending", lambda r: pages.pending_writes(self.home)),
            ("/api/search", lambda r: search(self.home, r.query_params.get("q", ""))),
        ]
        routes = [Route(path, self._json_route(read), methods=["GET"]) for path, read in get]
        routes.append(Route("/api/memory/history", self._json_route(self._history, locked=False),
                            methods=["GET"]))
        routes += [
            Route("/", self._index, methods=["GET"]),
            Route("/assets/{name}", self._asset, methods=["GET"]),
            Route("/api/stream", self._stream, methods=["GET"]),
            Route("/api/act/{action:path}", self._act, methods=["POST"]),
        ]
        self.starlette = Starlette(routes=routes)

    def prepare(self) -> None:
        """Do before serving what the first view of a past seq would otherwise pay for:
        reading which records were forgotten (a pass over the journal the first time a
        home is read so, about 4 s on 1,000,000 records; then only the records appended
        since the kept marks), so every memory view costs its snapshot and the records
        after it."""
        head = self.home.head
        if head > 1:
            self.home.at(head - 1, lambda state: None)

    # -- the gate --------------------------------------------------------------------------

    async def app(self, scope: Any, receive: Any, send: Any) -> None:
        """The ASGI entry point: the checks of the module docstring, then the routes."""
        if scope["type"] == "websocket":  # the page has none: nothing passes ungated
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            await self.starlette(scope, receive, send)
            return
        request = Request(scope)
        refused = self._refusal(request)
        if refused is not None:
            await refused(scope, receive, send)
            return
        response_started = False

        async def secured(message: MutableMapping[str, Any]) -> None:
            nonlocal response_started
            if message["type"] == "http.response.start" and not response_started:
                response_started = True
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                headers += [(k.lower().encode(), v.encode()) for k, v in _SECURITY.items()
                            if k.lower().encode() not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.starlette(scope, receive, secured)

    def _refusal(self, request: Request) -> Response | None:
        path = request.url.path
        if self.loopback and (request.url.hostname or "") not in LOOPBACK:
            return _error(request, 403, f"this server answers to 127.0.0.1:{self.port} "
                          "only (the request named another host)")
        if path.startswith("/assets/"):
            return None
        if path == "/":
            return None  # the shell: no data, no secret (_index checks a ?token= given)
        if not self._authorised(request):
            return _error(request, 401, "a valid token is required: open the URL `memoir "
                          "ui` printed (a token from an earlier run of the server is stale)")
        if request.method == "POST":
            given = request.headers.get("x-memoir-token", "")
            if not hmac.compare_digest(given.encode(), self.token.encode()):
                return _error(request, 403, "a change needs the X-Memoir-Token header "
                              "(requests from other sites are refused)")
            origin = request.headers.get("origin")
            if origin is not None and urlsplit(origin).netloc != request.headers.get("host"):
                return _error(request, 403, f"a change from another origin ({origin}) is "
                              "refused")
            if request.headers.get("sec-fetch-site", "same-origin") not in (
                    "same-origin", "none"):
                return _error(request, 403, "a cross-site change is refused")
            if not request.headers.get("content-type", "").startswith("application/json"):
                return _error(request, 415, "a change is a JSON body (application/json)")
        return None

    def _authorised(self, request: Request) -> bool:
        bearer = request.headers.get("authorization", "")
        return hmac.compare_digest(bearer.encode(), b"Bearer " + self.token.encode())

    # -- pages -----------------------------------------------------------------------------

    async def _index(self, request: Request) -> Response:
        # An older form of the printed URL (``/?token=…``) still opens the page, whose
        # script moves the token out of the address bar as it does from the fragment.
        given = request.query_params.get("token")
        if given is not None and not hmac.compare_digest(given.encode(),
                                                         self.token.encode()):
            return _error(request, 401, "this link's token is wrong or stale: open the "
                          "URL the running `memoir ui` printed")
        return HTMLResponse(_asset("index.html").decode("utf-8"))

    async def _asset(self, request: Request) -> Response:
        known = ASSETS.get(request.path_params["name"])
        if known is None:
            return _error(request, 404, "no such asset")
        return Response(_asset(known[0]), media_type=known[1])

    # -- the API ---------------------------------------------------------------------------

    def _locked(self, use: Callable[..., T], *args: Any) -> T:
        with self.lock:
            return use(*args)

    def _json_route(self, read: Callable[[Request], Any], *,
                    locked: bool = True) -> Callable[[Request], Any]:
        async def route(request: Request) -> Response:
            try:
                started = time.perf_counter()
                if locked:
                    result = await run_in_threadpool(self._locked, read, request)
                else:  # it takes the lock itself, window by window
                    result = await run_in_threadpool(read, request)
                response = JSONResponse(result)
            except MemoirError as exc:
                return _error(request, _status_of(exc), str(exc))
            # The server's own time for the answer, encoding included (the benchmark
            # reads it).
            took = (time.perf_counter() - started) * 1000
            response.headers["Server-Timing"] = f"app;dur={took:.2f}"
            return response
        return route

    def _status(self, request: Request) -> dict[str, Any]:
        home = self.home
        return {"home": str(home.home), "head": home.head, "readonly": home.readonly,
                "version": self.version, "actions": sorted(ACTIONS)}

    def _timeline(self, request: Request) -> dict[str, Any]:
        query = request.query_params
        before = query.get("before")
        limit = query.get("limit", "50")
        if (before and not before.isdigit()) or not limit.isdigit():
            raise ValidationError("before and limit must be numbers")
        filters = Filters.parse(dict(query), self.home.clock.now())
        return timeline(self.home, before=int(before) if before else None,
                        limit=max(1, min(int(limit), 500)), filters=filters)

    def _history(self, request: Request) -> dict[str, Any]:
        query = request.query_params
        before, limit = query.get("before"), query.get("limit", "50")
        if (before and not before.isdigit()) or not limit.isdigit():
            raise ValidationError("before and limit must be numbers")
        return history.entry_history(
            self.home, query.get("target", ""), query.get("id", ""),
            before=int(before) if before else None, limit=max(1, min(int(limit), 500)),
            locked=lambda use: self._locked(use))

    def _memory(self, request: Request) -> dict[str, Any]:
        query = request.query_params
        return pages.memory(self.home, pages.point(self.home, query.get("seq"),
                                                    query.get("at")))

    def _blame(self, request: Request) -> dict[str, Any]:
        query = request.query_params
        return pages.blame(self.home, query.get("target", ""),
                           pages.point(self.home, query.get("seq"), query.get("at")))

    async def _act(self, request: Request) -> Response:
        action = request.path_params["action"]
        if action not in ACTIONS:
            return _error(request, 404, f"no action {action!r}; the actions are "
                          f"{', '.join(sorted(ACTIONS))}")
        if self.home.readonly:
            return _error(request, 409, "this home is open read-only (memoir ui "
                          "--read-only): nothing can be changed from the page")
        try:
            body = json.loads(await request.body() or b"{}")
        except ValueError as exc:
            return _error(request, 400, f"the request body is not JSON: {exc}")
        if not isinstance(body, dict):
            return _error(request, 400, "the request body must be a JSON object")
        try:
            result = await run_in_threadpool(self._locked, lambda: act(self.home, action,
                                                                       body))
        except MemoirError as exc:
            return _error(request, _status_of(exc), str(exc))
        return JSONResponse(result, status_code=409 if result.get("conflict") else 200)

    async def _stream(self, request: Request) -> Response:
        after = request.query_params.get("after", "")
        if after and not after.isdigit():
            return _error(request, 400, "after must be a seq")
        start = int(after) if after else await run_in_threadpool(
            self._locked, lambda: self.home.head)
        return StreamingResponse(self._records(request, start),
                                 media_type="text/event-stream",
                                 headers={"X-Accel-Buffering": "no"})

    async def _records(self, request: Request, seen: int) -> AsyncIterator[str]:
        """New records as server-sent events, each within :data:`POLL` of its append."""
        yield f"event: ready\ndata: {json.dumps({'head': seen})}\n\n"
        quiet = 0.0
        while not self.stopping.is_set() and not await request.is_disconnected():
            rows = await run_in_threadpool(self._locked, self._since, seen)
            for row in rows:
                seen = row["seq"]
                yield f"id: {seen}\nevent: record\ndata: {json.dumps(row)}\n\n"
            quiet = 0.0 if rows else quiet + POLL
            if quiet >= 15:
                quiet = 0.0
                yield ": still here\n\n"
            await asyncio.sleep(POLL)

    def _since(self, seen: int) -> list[dict[str, Any]]:
        if self.home.head <= seen:
            return []
        rows = []
        for event in self.home.events(after=seen):
            rows.append(event_row(event))
            if len(rows) >= 500:
                break
        return rows


def _status_of(exc: MemoirError) -> int:
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, ConflictError):
        return 409
    return 400


def _error(request: Request, status: int, message: str) -> Response:
    """A clear error: JSON for the API, a small page for a person."""
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": message}, status_code=status)
    body = (f"<!doctype html><meta charset=utf-8><title>memoir: error {status}</title>"
            f"<h1>memoir ui: {status}</h1><p>{html.escape(message)}</p>")
    return HTMLResponse(body, status_code=status)
