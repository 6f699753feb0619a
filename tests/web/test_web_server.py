"""``memoir ui`` as a process: its URL, its refusals, its live stream of records that
another process appends, and a clean stop."""

from __future__ import annotations

import http.client
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from urllib.request import Request, urlopen

import pytest
from click.testing import CliRunner

from memoir.cli import cli
from tests.web.seed import seed
from tests.web.server import UiServer


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    seed(path)
    return path


@pytest.fixture
def server(home: Path) -> Iterator[UiServer]:
    running = UiServer(home)
    yield running
    assert running.stop() == 0, running.stderr()


def test_it_prints_a_loopback_url_with_a_token(server: UiServer) -> None:
    parts = urlsplit(server.url)
    assert parts.hostname == "127.0.0.1" and parts.port and len(server.token) >= 24
    request = Request(f"{server.base}/api/status",
                      headers={"Authorization": f"Bearer {server.token}"})
    with urlopen(request, timeout=30) as response:
        status = json.load(response)
    assert status["readonly"] is False and status["head"] > 0


def test_under_json_it_prints_one_line_of_json(home: Path) -> None:
    running = UiServer(home, "--read-only", json=True)
    try:
        said = json.loads(running.line)
        assert said == {"url": running.url, "home": str(home), "readonly": True}
        assert running.url.startswith("http://127.0.0.1:")
    finally:
        assert running.stop() == 0


def test_each_run_has_its_own_token(home: Path) -> None:
    first = UiServer(home)
    token = first.token
    assert first.stop() == 0
    second = UiServer(home)
    try:
        assert second.token != token
        stale = Request(f"{second.base}/api/status", headers={"Authorization": f"Bearer {token}"})
        with pytest.raises(Exception, match="401"):
            urlopen(stale, timeout=30)
    finally:
        second.stop()


def test_any_other_address_needs_a_token(home: Path) -> None:
    result = CliRunner().invoke(cli, ["--home", str(home), "ui", "--host", "0.0.0.0"])
    assert result.exit_code == 2 and "--token" in result.output
    short = CliRunner().invoke(cli, ["--home", str(home), "ui", "--token", "short"])
    assert short.exit_code == 2 and "16 characters" in short.output


def test_a_port_in_use_is_a_clear_error(home: Path, server: UiServer) -> None:
    port = str(urlsplit(server.url).port)
    result = CliRunner().invoke(cli, ["--home", str(home), "ui", "--port", port])
    assert result.exit_code != 0 and f"cannot listen on 127.0.0.1:{port}" in result.output


def test_records_another_process_appends_arrive_live(home: Path, server: UiServer) -> None:
    parts = urlsplit(server.base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    connection.request("GET", "/api/stream",
                       headers={"Authorization": f"Bearer {server.token}"})
    response = connection.getresponse()
    assert response.status == 200
    assert response.getheader("content-type", "").startswith("text/event-stream")

    def event() -> tuple[str, dict[str, object]]:
        kind, data = "", ""
        while True:
            line = response.fp.readline().decode()
            if line.startswith("event: "):
                kind = line[7:].strip()
            elif line.startswith("data: "):
                data = line[6:].strip()
            elif line == "\n" and kind:
                return kind, json.loads(data)

    assert event()[0] == "ready"  # the stream is following the journal from here
    subprocess.run([sys.executable, "-m", "memoir", "--home", str(home), "memory", "add",
                    "Written by another process."], check=True, capture_output=True)
    appended = time.monotonic()
    seen = []
    while not any(r.get("data", {}).get("text") == "Written by another process."  # type: ignore[union-attr]
                  for r in seen):
        kind, record = event()
        assert kind == "record"
        seen.append(record)
    latency = time.monotonic() - appended
    assert [r["type"] for r in seen][-1] == "memory.entry_added"
    assert seen[-1]["actor"] == "user"
    # The server looks every 0.2 s; a generous bound for a loaded machine (the
    # benchmark measures the real figure).
    assert latency < 5.0
    connection.close()


def test_a_read_only_server_refuses_changes(tmp_path: Path, home: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(home, copy)
    before = (copy / "journal.jsonl").read_bytes()
    running = UiServer(copy, "--read-only")
    try:
        request = Request(f"{running.base}/api/act/pin", method="POST",
                          data=b'{"name": "deploy-staging"}',
                          headers={"Authorization": f"Bearer {running.token}",
                                   "X-Memoir-Token": running.token,
                                   "Content-Type": "application/json"})
        with pytest.raises(Exception, match="409"):
            urlopen(request, timeout=30)
    finally:
        assert running.stop() == 0
    assert (copy / "journal.jsonl").read_bytes() == before


def test_a_home_this_process_may_not_write_is_served_read_only(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memoir.commands import ui as command
    from memoir.web import serve as web

    opened: list[bool] = []
    real = command.open_home

    def open_home(ctx: object, *, readonly: bool = False) -> object:
        opened.append(readonly)
        if not readonly:  # as on a read-only file system, or a home of another user
            raise PermissionError(13, "Permission denied")
        return real(ctx, readonly=readonly)  # type: ignore[arg-type]

    served: list[bool] = []

    def serve(handle: object, sock: object, *, ready: Any, **_: object) -> None:
        served.append(handle.readonly)  # type: ignore[attr-defined]
        ready()

    monkeypatch.setattr(command, "open_home", open_home)
    monkeypatch.setattr(web, "serve", serve)
    result = CliRunner().invoke(cli, ["--home", str(home), "--json", "ui", "--port", "0"])
    assert result.exit_code == 0, result.output
    assert opened == [False, True] and served == [True]
    assert json.loads(result.stdout.splitlines()[-1])["readonly"] is True
    assert "serving it read-only" in result.stderr


def test_open_never_puts_the_token_on_a_command_line(home: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Round 5, reproduction 24: ``--open`` handed the browser the URL with its token,
    readable by any local user in ``ps``.  A stand-in browser records its argv and the
    page it was given: the argv holds no token, the page (a file only this user can
    read) leads to the URL, and it is gone once the server stops."""
    seen = tmp_path / "browser-saw.json"
    browser = tmp_path / "browser"
    browser.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        "from urllib.parse import urlsplit\n"
        "from urllib.request import url2pathname\n"
        "page = url2pathname(urlsplit(sys.argv[1]).path)\n"
        "said = {'argv': sys.argv, 'environ': dict(os.environ),\n"
        "        'page': open(page).read(), 'mode': os.stat(page).st_mode & 0o777,\n"
        "        'folder_mode': os.stat(os.path.dirname(page)).st_mode & 0o777,\n"
        "        'path': page}\n"
        f"open({str(seen)!r} + '.tmp', 'w').write(json.dumps(said))\n"
        f"os.replace({str(seen)!r} + '.tmp', {str(seen)!r})\n")
    browser.chmod(0o700)
    monkeypatch.setenv("BROWSER", f"{browser} %s")
    running = UiServer(home, "--open")
    try:
        deadline = time.monotonic() + 120
        while not seen.exists():  # the stand-in writes its report atomically
            assert time.monotonic() < deadline, "the browser was never started"
            assert running.proc.poll() is None, running.stderr()
            time.sleep(0.05)
        said = json.loads(seen.read_text())
        assert running.token not in " ".join(said["argv"])
        assert all(running.token not in v for v in said["environ"].values())
        assert said["argv"][1].startswith("file://")
        assert said["mode"] == 0o600 and said["folder_mode"] == 0o700
        assert f'url={running.url}"' in said["page"]  # it sends the browser on
        assert Path(said["path"]).exists()
    finally:
        assert running.stop() == 0, running.stderr()
    assert not Path(said["path"]).exists() and not Path(said["path"]).parent.exists()
