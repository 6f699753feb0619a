"""memoir is a guest in its host's process: its logs never reach stdout and it never
configures logging."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

import memoir
from memoir.cli import cli

_HOST = """
import logging, sys
import structlog
import memoir
home = sys.argv[1]
with memoir.open(home) as m:
    m.start_session().call_tool("memory", {"action": "add", "content": "a fact"})
with open(home + "/journal.jsonl", "ab") as fh:
    fh.write(b'{"seq":99,"id":"torn')          # a torn tail: the next open cuts it, and warns
with memoir.open(home) as m:
    m.head
assert not structlog.is_configured(), "memoir configured structlog"
assert logging.getLogger().handlers == [], "memoir configured the root logger"
assert logging.getLogger("memoir").handlers == [], "memoir configured its own logger"
print("HOST-OUTPUT")
"""


def test_library_warnings_go_to_stderr_and_stdout_stays_the_hosts(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", _HOST, str(tmp_path / "home")],
                          capture_output=True, text=True, check=True)
    assert done.stdout == "HOST-OUTPUT\n"  # e.g. an MCP stdio stream stays clean
    assert "torn_tail_cut" in done.stderr


def test_a_host_can_route_memoir_logs_like_its_own(tmp_path: Path) -> None:
    import logging

    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep()
    logging.getLogger("memoir").addHandler(handler)
    try:
        home = tmp_path / "home"
        with memoir.open(home) as m:
            m.ensure_limits()
        (home / "journal.jsonl").open("ab").write(b'{"seq":7,"id":"to')
        with memoir.open(home) as m:
            assert m.head == 1
    finally:
        logging.getLogger("memoir").removeHandler(handler)
    cut = [r for r in records if "torn_tail_cut" in r.getMessage()]
    assert cut and cut[0].name == "memoir.journal" and cut[0].levelno == logging.WARNING


def test_the_cli_prints_warnings_on_stderr_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    runner = CliRunner()
    assert runner.invoke(cli, ["--home", str(home), "init"]).exit_code == 0
    assert runner.invoke(cli, ["--home", str(home), "memory", "add", "x"]).exit_code == 0
    (home / "journal.jsonl").open("ab").write(b'{"seq":9,"id":"t')
    result = runner.invoke(cli, ["--home", str(home), "log", "--json"])  # reads only
    assert result.exit_code == 0
    assert "torn_tail_found" in result.stderr and "torn_tail" not in result.stdout
    assert all(line.startswith("{") for line in result.stdout.splitlines())
