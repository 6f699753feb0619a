"""Drive a real Hermes Agent install as a conformance oracle for memoir's memory tool.

Hermes runs in its own virtualenv, named by the ``MEMOIR_HERMES_PYTHON`` environment variable
(the path of that venv's ``python``). Tests that compare against Hermes should skip when
``hermes_python()`` returns None::

    python = hermes_python()
    if python is None:
        pytest.skip("set MEMOIR_HERMES_PYTHON to a python with hermes-agent installed")
    out = run_oracle({"memory_char_limit": 2200, "user_char_limit": 1375,
                      "turns": [[{"action": "add", "content": "Prefers tabs"}]]})

The document and output formats are described in ``tests/support/hermes_oracle.py``.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

HERMES_PYTHON_ENV = "MEMOIR_HERMES_PYTHON"
ORACLE_SCRIPT = Path(__file__).with_name("hermes_oracle.py")

# Importing Hermes takes a fraction of a second; a long oracle document a few seconds.
PROBE_TIMEOUT_S = 60.0
DEFAULT_TIMEOUT_S = 120.0


class OracleError(RuntimeError):
    """The Hermes oracle could not be run or gave output that is not a JSON document."""


def _isolated_command(python: str, *args: str) -> list[str]:
    # -I keeps the caller's PYTHON* variables, user site-packages and the script's own
    # folder (tests/) off sys.path, so nothing of ours can shadow Hermes's top-level modules.
    return [python, "-I", *args]


def _scratch_env(home: str) -> dict[str, str]:
    # Point Hermes at a throwaway home so probing can never touch a real ~/.hermes.
    env = dict(os.environ)
    env["HERMES_HOME"] = home
    return env


@functools.cache
def _can_import_memory_tool(python: str) -> bool:
    with tempfile.TemporaryDirectory(prefix="hermes-probe-") as home:
        try:
            probe = subprocess.run(
                _isolated_command(python, "-c", "import tools.memory_tool"),
                env=_scratch_env(home),
                capture_output=True,
                timeout=PROBE_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
    return probe.returncode == 0


def hermes_python() -> str | None:
    """Return the Hermes venv's python from ``MEMOIR_HERMES_PYTHON``, or None if unusable.

    None means the variable is unset or empty, or that python cannot import
    ``tools.memory_tool``.
    """
    python = os.environ.get(HERMES_PYTHON_ENV, "").strip()
    if not python:
        return None
    return python if _can_import_memory_tool(python) else None


def run_oracle(doc: dict[str, Any], *, timeout: float = DEFAULT_TIMEOUT_S) -> dict[str, Any]:
    """Replay ``doc`` through Hermes's memory tool and return the oracle's parsed output.

    Raises OracleError when no usable Hermes python is configured, when the script fails
    or times out, or when its output is not JSON.
    """
    python = hermes_python()
    if python is None:
        raise OracleError(
            f"no usable Hermes python: set {HERMES_PYTHON_ENV} to the python of a venv "
            "with hermes-agent installed (pip install --no-deps hermes-agent pyyaml)"
        )
    with tempfile.TemporaryDirectory(prefix="hermes-oracle-env-") as home:
        try:
            proc = subprocess.run(
                _isolated_command(python, str(ORACLE_SCRIPT)),
                input=json.dumps(doc).encode("utf-8"),
                env=_scratch_env(home),
                capture_output=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise OracleError(f"{ORACLE_SCRIPT.name} timed out after {timeout:g}s") from exc
    stderr = proc.stderr.decode("utf-8", errors="replace")
    if proc.returncode != 0:
        raise OracleError(
            f"{ORACLE_SCRIPT.name} exited with status {proc.returncode}; "
            f"stderr tail:\n{stderr[-2000:]}"
        )
    try:
        output: dict[str, Any] = json.loads(proc.stdout)
    except ValueError as exc:
        raise OracleError(
            f"{ORACLE_SCRIPT.name} printed something that is not JSON: {proc.stdout[:200]!r}"
        ) from exc
    return output
