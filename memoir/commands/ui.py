"""``memoir ui``: the web view of a home (see :mod:`memoir.web`)."""

from __future__ import annotations

import errno
import json
import signal
import sys
import webbrowser
from typing import Any

import click

from memoir.commands.base import UserError, home_option, home_path, is_json, open_home
from memoir.web import LOOPBACK

__all__ = ["ui"]


@click.command()
@home_option
@click.option("--port", type=click.IntRange(0, 65535), default=8770, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; any but loopback needs --token.")
@click.option("--token", default=None, envvar="MEMOIR_UI_TOKEN", show_envvar=True,
              help="The token every request must carry (default: a new one per run).")
@click.option("--open", "open_browser", is_flag=True,
              help="Open the page in a browser (through a file only you can read: the "
                   "token never appears on a command line).")
@click.option("--read-only", "read_only", is_flag=True,
              help="Open the home read-only: the page shows everything and changes nothing.")
@click.pass_context
def ui(ctx: click.Context, port: int, host: str, token: str | None, open_browser: bool,
       read_only: bool) -> None:
    """Serve a web page that shows what the agent learned: the timeline of runs and
    their diffs, MEMORY.md and USER.md with blame at any point, skills and curator
    passes, sessions, insights and pending writes; revert a run, pin a skill, accept a
    candidate or approve a write as yourself. Prints the page's URL, with this run's
    token in it (under --json, one line: {"url", "home", "readonly"}); everything the
    page needs ships with memoir."""
    if host not in LOOPBACK and not token:
        raise click.UsageError(
            f"--host {host} listens beyond this machine: give --token (or set "
            "MEMOIR_UI_TOKEN) so only people with the token get in")
    if token is not None and len(token) < 16:
        raise click.BadParameter("a token of at least 16 characters, please",
                                 param_hint="--token")
    try:
        from memoir.web import serve as web
    except ImportError as exc:
        from memoir.install import extra_hint

        raise UserError(f"{extra_hint('ui', 'memoir ui')} ({exc})") from None
    import memoir

    try:
        handle = open_home(ctx, readonly=read_only)
    except OSError as exc:
        # A home this process may not write (permissions, a read-only file system):
        # shown read-only, as `memoir sessions` reads one, rather than not at all.
        if read_only or not (isinstance(exc, PermissionError) or exc.errno == errno.EROFS):
            raise
        handle = open_home(ctx, readonly=True)
        read_only = True
        click.echo(f"memoir ui: {home_path(ctx)} cannot be written here ({exc.strerror}): "
                   "serving it read-only", err=True)
    token = token or web.new_token()
    try:
        sock = web.bind(host, port)
    except OSError as exc:
        raise UserError(f"cannot listen on {host}:{port}: {exc.strerror or exc} "
                        "(--port 0 takes any free port)") from None
    url = web.url_of(sock, token)
    launcher: web.Launcher | None = None

    def ready() -> None:
        click.echo(f"memoir ui: serving {handle.home}" +
                   (" (read-only)" if read_only else ""), err=True)
        if is_json():
            click.echo(json.dumps({"url": url, "home": str(handle.home),
                                   "readonly": read_only}, ensure_ascii=False))
        else:
            click.echo(url)
        sys.stdout.flush()
        if open_browser:
            nonlocal launcher
            launcher = web.Launcher(url)
            webbrowser.open(launcher.uri)

    def stop(*_: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        web.serve(handle, sock, token=token, version=memoir.__version__, ready=ready)
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
        if launcher is not None:
            launcher.remove()
    handle.flush()
