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
from pathlib import Path
from typing import Any

import yaml

from memoir.api import Memoir
from memoir.engine.materializer import atomic_write
from memoir.errors import ValidationError

__all__ = ["PLUGIN_MARK", "install", "plugin_source"]

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

_log = logging.getLogger("memoir.hermes")


def register(ctx):
    try:
        from memoir.integrations.hermes_provider import make_provider
    except Exception as exc:  # Hermes would swallow it: say what to do instead
        _log.warning(
            "memoir memory provider: this Python cannot import memoir (%s); install it "
            "into Hermes's environment (python -m pip install memoir) and restart", exc)
        return
    from agent.memory_provider import MemoryProvider

    ctx.register_memory_provider(
        make_provider(MemoryProvider, memoir_home=MEMOIR_HOME, hermes_home=HERMES_HOME))
'''

_PLUGIN_YAML = """name: memoir
description: memoir — an auditable, revertable journal of everything the agent learns
version: {version}
"""


def plugin_source(memoir_home: Path, hermes_home: Path) -> str:
    """The plugin's ``__init__.py``."""
    return _PLUGIN.format(mark=PLUGIN_MARK, memoir_home=str(memoir_home),
                          hermes_home=str(hermes_home))


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


def _hermes_provider(hermes_home: Path) -> str | None:
    path = hermes_home / "config.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else None
    except (OSError, yaml.YAMLError):
        return None
    memory = data.get("memory") if isinstance(data, dict) else None
    provider = memory.get("provider") if isinstance(memory, dict) else None
    return str(provider) if provider else None


def install(hermes_home: Path, memoir_home: Path, *, version: str = "") -> dict[str, Any]:
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
    atomic_write(init, plugin_source(memoir_home, hermes_home).encode(), fsync=True)
    atomic_write(plugin / "plugin.yaml", _PLUGIN_YAML.format(version=version or "0").encode(),
                 fsync=True)
    return {"plugin": str(plugin), "memoir_home": str(memoir_home),
            "hermes_home": str(hermes_home),
            "active": _hermes_provider(hermes_home) == "memoir"}
