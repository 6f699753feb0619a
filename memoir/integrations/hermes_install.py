"""Installing memoir as a Hermes memory provider: the plugin folder Hermes's loader
finds (``HERMES_HOME/plugins/memoir/``), and the memoir home that mirrors the Hermes
home's memory (``hermes.home`` in its config.yaml).

Facts about Hermes 0.19.0's loader this relies on: a user plugin folder
``HERMES_HOME/plugins/<name>/`` is a memory provider when the first 8 KB of its
``__init__.py`` mention ``MemoryProvider`` or ``register_memory_provider``; the
folder is imported as a package and its ``register(ctx)`` called, the provider being
what it passes to ``ctx.register_memory_provider``; ``plugin.yaml`` leaves ``kind`` out.
Failures there are swallowed by Hermes with a log line, so the plugin logs a warning
that says what to do when memoir cannot be imported.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import yaml

from memoir.api import Memoir
from memoir.engine.materializer import atomic_write
from memoir.errors import ValidationError
from memoir.install import DISTRIBUTION, pip_line

__all__ = ["PLUGIN_MARK", "check_python", "enable_provider", "hermes_provider", "install",
           "plugin_source"]

#: The line that marks a plugin folder as memoir's own (so install may replace it).
PLUGIN_MARK = "# memoir-hermes-plugin"

_PLUGIN = '''"""memoir: the event-sourced journal of this agent's memory, as Hermes's external
memory provider (a MemoryProvider registered with register_memory_provider).

Written by `memoir hermes install`; run it again to update this file.
"""
{mark}
import logging

MEMOIR_HOME = {memoir_home!r}
HERMES_HOME = {hermes_home!r}
INSTALL_LINE = {install_line!r}

_log = logging.getLogger("memoir.hermes")


def register(ctx):
    try:
        from memoir.integrations.hermes_provider import make_provider
    except Exception as exc:  # Hermes would swallow it: say what to do instead
        _log.warning(
            "memoir memory provider: this Python cannot import memoir (%s); install it "
            "into Hermes's environment (%s) and restart", exc, INSTALL_LINE)
        return
    from agent.memory_provider import MemoryProvider

    ctx.register_memory_provider(
        make_provider(MemoryProvider, memoir_home=MEMOIR_HOME, hermes_home=HERMES_HOME))
'''

_PLUGIN_YAML = """name: memoir
description: memoir — an auditable, revertable journal of everything the agent learns
version: {version}
"""


def plugin_source(memoir_home: Path, hermes_home: Path, install_line: str = "") -> str:
    """The plugin's ``__init__.py`` (``install_line``: what its warning tells a person
    to run when Hermes's Python cannot import memoir)."""
    return _PLUGIN.format(mark=PLUGIN_MARK, memoir_home=str(memoir_home),
                          hermes_home=str(hermes_home),
                          install_line=install_line or "pip install memoir-agent")


# Run by the Python Hermes runs with, from an empty folder (a checkout or a home called
# memoir in the current folder would be found by the check and not by Hermes).  Prints
# one JSON object: what failed to import, and whether the registry's other "memoir" is
# installed there.
_CHECK = """
import importlib, json
from importlib import metadata
out = {"errors": {}, "version": None, "other": None}
for name in ("memoir", "memoir.integrations.hermes_provider", "agent.memory_provider",
             "plugins.memory"):
    try:
        module = importlib.import_module(name)
    except Exception as exc:
        out["errors"][name] = type(exc).__name__ + ": " + str(exc)
    else:
        if name == "memoir":
            out["version"] = getattr(module, "__version__", None)
try:
    out["other"] = metadata.version("memoir")
except Exception:
    pass
print(json.dumps(out))
"""


def check_python(python: str) -> tuple[str | None, str]:
    """Whether ``python`` is a Python Hermes runs with and that imports memoir: the
    problem (a sentence that ends with what to do) or None, and what was found."""
    try:
        with tempfile.TemporaryDirectory(prefix="memoir-check-") as empty:
            done = subprocess.run([python, "-c", _CHECK], capture_output=True, text=True,
                                  timeout=120, check=False, cwd=empty)
        found = json.loads(done.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError) as exc:
        return f"it could not be run ({exc}); give the right one with --hermes-python", ""
    errors: dict[str, str] = found.get("errors") or {}
    hermes = [name for name in ("agent.memory_provider", "plugins.memory") if name in errors]
    install_line = pip_line(python)
    if hermes:
        return (f"it is not Hermes's: it cannot import {', '.join(hermes)} "
                f"({errors[hermes[0]]}); give the Python of Hermes's environment with "
                "--hermes-python"), ""
    if found.get("other") and ("memoir" in errors or
                               "memoir.integrations.hermes_provider" in errors):
        return (f"a different package also called memoir is installed there (the "
                f"registry's memoir {found['other']}, a memoization library, not "
                f"{DISTRIBUTION}): remove it with `{python} -m pip uninstall memoir`, then "
                f"install memoir with `{install_line}`"), ""
    missing = [name for name in ("memoir", "memoir.integrations.hermes_provider")
               if name in errors]
    if missing:
        return (f"it cannot import memoir ({errors[missing[0]]}); install it into that Python "
                f"with `{install_line}`, give the right one with --hermes-python, or "
                "--no-check to install anyway"), ""
    return None, f"imports memoir {found.get('version')} and Hermes's memory provider API"


def enable_provider(hermes_home: Path) -> None:
    """Say ``memory.provider: memoir`` in Hermes's config.yaml, changing only that
    line (a person's comments and layout stay); refuse when the result would mean
    anything else."""
    path = hermes_home / "config.yaml"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    try:
        data = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError as exc:
        raise ValidationError(f"{path}: not YAML ({exc}); fix it, then install again") from None
    if not isinstance(data, dict):
        raise ValidationError(f"{path}: not a mapping; set memory.provider: memoir by hand")
    lines = text.splitlines()
    top = next((i for i, line in enumerate(lines) if line.rstrip() == "memory:"), None)
    if top is None and any(line.startswith("memory:") for line in lines):
        raise ValidationError(f"{path}: its memory: section is written on one line; set "
                              "provider: memoir in it by hand")
    if top is None:
        new = ((text.rstrip("\n") + "\n\n") if text.strip() else "") + \
            "memory:\n  provider: memoir\n"
    else:
        block = top + 1
        while block < len(lines) and (not lines[block].strip() or
                                      lines[block][:1] in (" ", "\t", "#")):
            block += 1
        inside = range(top + 1, block)
        provider = next((i for i in inside if lines[i].lstrip().startswith("provider:")), None)
        indent = next((lines[i][:len(lines[i]) - len(lines[i].lstrip())] for i in inside
                       if lines[i].strip() and not lines[i].lstrip().startswith("#")), "  ")
        if provider is not None:
            lines[provider] = lines[provider][:lines[provider].index("provider:")] + \
                "provider: memoir"
        else:
            lines.insert(top + 1, f"{indent}provider: memoir")
        new = "\n".join(lines) + "\n"
    expected = dict(data)
    memory = expected.get("memory")
    expected["memory"] = {**(memory if isinstance(memory, dict) else {}), "provider": "memoir"}
    try:
        written = yaml.safe_load(new)
    except yaml.YAMLError:
        written = None
    if written != expected:
        raise ValidationError(f"{path}: could not set memory.provider without changing "
                              "anything else; set `memory: {provider: memoir}` by hand")
    atomic_write(path, new.encode(), fsync=True)


def _configure(memoir_home: Path, hermes_home: Path) -> None:
    """Say ``hermes.home`` in the memoir home's config.yaml (appended, so a person's
    comments and layout stay); refuse a home that already mirrors another."""
    path = memoir_home / "config.yaml"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    try:
        data = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError as exc:
        raise ValidationError(f"{path}: not YAML ({exc}); fix it, then install again") from None
    section = (data or {}).get("hermes") if isinstance(data, dict) else None
    current = section.get("home") if isinstance(section, dict) else None
    if current is not None:
        if Path(str(current)).expanduser().absolute() != hermes_home:
            raise ValidationError(f"{memoir_home} already mirrors the Hermes home {current}; "
                                  "give another --memoir-home")
        return
    if section is not None:
        raise ValidationError(f"{path} has a hermes: section without home; add "
                              f"`home: {hermes_home}` to it, then install again")
    # A JSON string is a YAML double-quoted scalar: any path (a newline in it too) is
    # written on one line and reads back as it was.
    block = f"hermes:\n  home: {json.dumps(str(hermes_home))}\n"
    new = ((text.rstrip("\n") + "\n\n") if text.strip() else "") + block
    written = yaml.safe_load(new)
    if not isinstance(written, dict) or written.get("hermes", {}).get("home") != str(hermes_home):
        raise ValidationError(f"{path}: could not say hermes.home without changing its "
                              "meaning; add it by hand, then install again")
    atomic_write(path, new.encode(), fsync=True)


def hermes_provider(hermes_home: Path) -> str | None:
    path = hermes_home / "config.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else None
    except (OSError, yaml.YAMLError):
        return None
    memory = data.get("memory") if isinstance(data, dict) else None
    provider = memory.get("provider") if isinstance(memory, dict) else None
    return str(provider) if provider else None


def install(hermes_home: Path, memoir_home: Path, *, version: str = "",
            install_line: str = "") -> dict[str, Any]:
    """Write the plugin into ``hermes_home`` and set up ``memoir_home`` (created when
    missing) to mirror it; returns what was done."""
    plugin = hermes_home / "plugins" / "memoir"
    init = plugin / "__init__.py"
    if init.exists() and PLUGIN_MARK not in init.read_text(encoding="utf-8", errors="replace"):
        raise ValidationError(f"{plugin} holds a plugin that is not memoir's; move it away "
                              "first")
    Memoir(memoir_home, create=True).close()
    _configure(memoir_home, hermes_home)
    plugin.mkdir(parents=True, exist_ok=True)
    atomic_write(init, plugin_source(memoir_home, hermes_home, install_line).encode(), fsync=True)
    atomic_write(plugin / "plugin.yaml", _PLUGIN_YAML.format(version=version or "0").encode(),
                 fsync=True)
    return {"plugin": str(plugin), "memoir_home": str(memoir_home),
            "hermes_home": str(hermes_home),
            "active": hermes_provider(hermes_home) == "memoir"}
