"""Provision a Hermes Agent virtualenv and run the Hermes add-throughput baseline in it.

Hermes is never imported into memoir's own interpreter: it lives in a separate venv and the
baseline (``bench/hermes_baseline.py``) runs there as a subprocess. ``MEMOIR_HERMES_PYTHON``,
when set, names an existing Hermes python and skips provisioning.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

HERMES_PYTHON_ENV = "MEMOIR_HERMES_PYTHON"
HERMES_REQUIREMENTS = ("hermes-agent==0.19.0", "pyyaml")
BASELINE_SCRIPT = Path(__file__).with_name("hermes_baseline.py")
# Written after a successful install, so an interrupted install is retried next time.
INSTALLED_MARKER = ".memoir-hermes-installed"


def _venv_python(root: Path) -> Path:
    if sys.platform == "win32":
        return root / "Scripts" / "python.exe"
    return root / "bin" / "python"


def ensure_hermes_venv(path: str | os.PathLike[str]) -> str:
    """Return a python that can import Hermes, creating a venv at ``path`` if needed.

    ``MEMOIR_HERMES_PYTHON`` wins when set. Otherwise the venv at ``path`` is created
    (``pip install --no-deps hermes-agent==0.19.0 pyyaml``) unless a previous call finished
    installing it. Pass a gitignored folder, e.g. ``<repo>/.bench/hermes-venv``.
    """
    configured = os.environ.get(HERMES_PYTHON_ENV, "").strip()
    if configured:
        return configured

    root = Path(path)
    python = _venv_python(root)
    marker = root / INSTALLED_MARKER
    if marker.exists() and python.exists():
        return str(python)

    if not python.exists():
        venv.EnvBuilder(with_pip=True).create(root)
        # Keep the venv out of git whatever the repo's .gitignore says.
        (root / ".gitignore").write_text("*\n", encoding="utf-8")
    # --no-deps: the memory tool needs only the package itself and PyYAML, not the agent's
    # full dependency tree (LLM clients, gateways, ...).
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", *HERMES_REQUIREMENTS],
        check=True,
    )
    marker.write_text("\n".join(HERMES_REQUIREMENTS) + "\n", encoding="utf-8")
    return str(python)


def _run_baseline(python: str, args: list[str], timeout: float) -> dict[str, Any]:
    command = [str(python), "-I", str(BASELINE_SCRIPT), *args]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if proc.returncode != 0:
        raise RuntimeError(
            f"{BASELINE_SCRIPT.name} exited with status {proc.returncode}: {proc.stderr[-2000:]}"
        )
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def measure_hermes_add(
    python: str,
    n: int,
    *,
    directory: str | os.PathLike[str] | None = None,
    threads: int = 1,
    timeout: float = 600.0,
) -> dict[str, Any]:
    """Run the Hermes baseline for ``n`` adds with ``python`` and return its JSON result.

    ``directory`` is where the throwaway HERMES_HOME is made; put it on the same filesystem
    as memoir's own benchmark, since fsync cost dominates.  ``threads`` > 1 adds from that
    many threads sharing one ``MemoryStore``.
    """
    args = ["--adds", str(n), "--threads", str(threads)]
    if directory is not None:
        args += ["--dir", str(directory)]
    return _run_baseline(python, args, timeout)


def measure_hermes_load(
    python: str,
    memories: str | os.PathLike[str],
    *,
    directory: str | os.PathLike[str] | None = None,
    timeout: float = 120.0,
) -> dict[str, Any]:
    """Time, in a fresh Hermes process, a cold load and render of the files in ``memories``."""
    args = ["--load-from", str(memories)]
    if directory is not None:
        args += ["--dir", str(directory)]
    return _run_baseline(python, args, timeout)


def measure_hermes_scan(python: str, text: str, *, timeout: float = 120.0) -> dict[str, Any]:
    """Nanoseconds per call of Hermes's write-time threat scan of ``text``."""
    return _run_baseline(python, ["--scan-text", text], timeout)
