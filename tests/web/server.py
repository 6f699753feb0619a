"""A real ``memoir ui`` process for the tests: started with ``--port 0``, ready when it
prints its URL (the readiness signal), stopped with SIGTERM."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from json import loads
from pathlib import Path
from urllib.parse import urlsplit

READY_TIMEOUT = 120.0  # a loaded machine starts Python slowly; never a fixed wait


class UiServer:
    def __init__(self, home: Path, *args: str, json: bool = False) -> None:
        env = {**os.environ, "MEMOIR_DEBUG": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memoir", "--home", str(home), *(["--json"] if json else []),
             "ui", "--port", "0", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.line = self._first_line()
        self.url = loads(self.line)["url"] if json else self.line
        parts = urlsplit(self.url)
        self.base = f"{parts.scheme}://{parts.netloc}"
        self.token = parts.fragment.removeprefix("token=")

    def _first_line(self) -> str:
        assert self.proc.stdout is not None
        selector = selectors.DefaultSelector()
        selector.register(self.proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if selector.select(timeout=1.0):
                line = self.proc.stdout.readline()
                if line:
                    return line.strip()
            if self.proc.poll() is not None:
                break
        self.stop()
        raise AssertionError(f"memoir ui did not print its URL: {self.stderr()}")

    def stderr(self) -> str:
        if self.proc.poll() is None:
            return ""
        assert self.proc.stderr is not None
        return self.proc.stderr.read()

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode
