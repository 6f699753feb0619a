"""memoir as Hermes's memory provider, driven by the real hermes-agent 0.19.0: its own
loader finds and initialises the plugin ``memoir hermes install`` writes, its memory
manager calls every hook, and the journal shows the result; ``memoir revert`` of a
mirrored write is applied to Hermes's MEMORY.md.  Skipped without the Hermes oracle
(``MEMOIR_HERMES_PYTHON``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path
from typing import Any

import pytest

import memoir
from tests.support.oracle import hermes_python
from tests.support.paths import REPO

DRIVE = textwrap.dedent("""\
    import json, sys
    from plugins.memory import discover_memory_providers, load_memory_provider
    from agent.memory_manager import MemoryManager
    from tools.memory_tool import MemoryStore, memory_tool

    found = {name: available for name, _desc, available in discover_memory_providers()}
    provider = load_memory_provider("memoir")
    manager = MemoryManager()
    manager.add_provider(provider)
    manager.initialize_all("sess-1", platform="cli", agent_context="primary")
    store = MemoryStore()
    store.load_from_disk()
    calls = [
        {"action": "add", "target": "memory", "content": "The build uses make."},
        {"action": "add", "target": "user", "content": "Prefers short answers."},
        {"action": "replace", "target": "memory", "old_text": "make",
         "content": "The build uses ninja."},
        {"action": "add", "target": "memory", "content": "Deploys go through CI."},
    ]
    for n, args in enumerate(calls):
        result = memory_tool(store=store, **args)
        manager.notify_memory_tool_write(result, args, build_metadata=lambda n=n: {
            "write_origin": "foreground", "execution_context": "primary",
            "session_id": "sess-1", "platform": "cli", "tool_name": "memory",
            "tool_call_id": f"call_{n}"})
    turn = [{"role": "user", "content": "How do I deploy?"},
            {"role": "assistant", "content": "Through CI, after the ninja build."}]
    manager.sync_all(turn[0]["content"], turn[1]["content"], session_id="sess-1",
                     messages=turn)
    manager.flush_pending(5.0)
    block = manager.build_system_prompt()
    context = manager.prefetch_all("deploy the app", session_id="sess-1")
    manager.on_session_switch("sess-2", parent_session_id="sess-1", reset=True)
    args = {"action": "add", "target": "user", "content": "Works in Berlin."}
    manager.notify_memory_tool_write(memory_tool(store=store, **args), args,
                                     build_metadata=lambda: {"session_id": "sess-2",
                                                             "tool_call_id": "call_9"})
    manager.on_session_end(turn)
    manager.shutdown_all()
    print(json.dumps({"found": found, "name": provider.name, "block": block,
                      "context": context}))
    """)


def _combined_python(hermes: str, where: Path) -> str:
    """An interpreter that sees Hermes's packages first, then memoir and its
    dependencies: Hermes's environment with memoir installed in it."""
    venv = where / "hermes-with-memoir"
    subprocess.run([hermes, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    own = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path("
                          "'purelib'))"], check=True, capture_output=True, text=True)
    theirs = subprocess.run([hermes, "-c", "import sysconfig; print(sysconfig.get_path("
                             "'purelib'))"], check=True, capture_output=True, text=True)
    Path(own.stdout.strip(), "combined.pth").write_text(
        "\n".join([theirs.stdout.strip(), str(REPO), sysconfig.get_path("purelib")]) + "\n",
        encoding="utf-8")
    return str(python)


@pytest.fixture(scope="module")
def pythons(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    hermes = hermes_python()
    if hermes is None:
        pytest.skip("set MEMOIR_HERMES_PYTHON to a python with hermes-agent installed")
    return hermes, _combined_python(hermes, tmp_path_factory.mktemp("py"))


def _memoir(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memoir", *args], capture_output=True,
                          text=True, timeout=120)


def _hermes_home(root: Path) -> Path:
    home = root / "hermes"
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "MEMORY.md").write_text("Older fact.", encoding="utf-8")
    (home / "config.yaml").write_text("memory:\n  provider: memoir\n", encoding="utf-8")
    return home


def test_install_refuses_when_hermes_cannot_import_memoir(
        pythons: tuple[str, str], tmp_path: Path) -> None:
    bare, _combined = pythons
    home = _hermes_home(tmp_path)
    done = _memoir("hermes", "install", "--hermes-home", str(home), "--hermes-python", bare)
    assert done.returncode == 4, done.stderr
    assert "cannot import memoir" in done.stderr and "pip install" in done.stderr
    assert not (home / "plugins").exists() and not (home / "memoir").exists()


def test_hermes_loads_the_provider_and_every_hook_reaches_the_journal(
        pythons: tuple[str, str], tmp_path: Path) -> None:
    _bare, python = pythons
    home = _hermes_home(tmp_path)
    done = _memoir("--json", "hermes", "install", "--hermes-home", str(home),
                   "--hermes-python", python)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["active"] is True and report["memoir_home"] == str(home / "memoir")
    init = (home / "plugins" / "memoir" / "__init__.py").read_text(encoding="utf-8")
    assert "MemoryProvider" in init[:8192]

    ran = subprocess.run([python, "-c", DRIVE], env={**os.environ, "HERMES_HOME": str(home)},
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr[-3000:]
    out = json.loads(ran.stdout.strip().splitlines()[-1])
    assert out["found"].get("memoir") is True and out["name"] == "memoir"
    # Hermes stays the writer of its own file.
    assert (home / "memories/MEMORY.md").read_text(encoding="utf-8") == \
        "Older fact.\n§\nThe build uses ninja.\n§\nDeploys go through CI."

    with memoir.open(home / "memoir", readonly=True) as mem:
        events = list(mem.journal.read())
        state = mem.state
    assert [e.text for e in state.memory.target("memory").entries] == [
        "Older fact.", "The build uses ninja.", "Deploys go through CI."]
    assert [e.text for e in state.memory.target("user").entries] == [
        "Prefers short answers.", "Works in Berlin."]
    started = next(e for e in events if e.type == "session.started")
    assert started.data.session_id == "sess-1" and started.data.platform == "hermes:cli"
    assert started.meta is not None and started.meta["client"] == "hermes"
    baseline = [e for e in events if e.actor == "import"]
    assert [e.data.text for e in baseline if e.type == "memory.entry_added"] == ["Older fact."]
    mirrored = [e for e in events if e.actor == "agent" and e.type.startswith("memory.")]
    calls = [e.meta["hermes_tool_call_id"] for e in mirrored if e.meta]
    assert calls == ["call_0", "call_1", "call_2", "call_3", "call_9"]
    assert all(e.meta and e.meta["hermes_write_origin"] == "foreground"
               for e in mirrored if e.session == "sess-1")
    replaced = next(e for e in mirrored if e.type == "memory.entry_replaced")
    assert replaced.data.previous == "The build uses make."
    assert replaced.meta is not None and replaced.meta["hermes_old_text"] == "make"
    assert state.runs[replaced.run].kind == "mirror"
    assert any(e.type == "session.turn_recorded" and e.session == "sess-1" for e in events)
    assert any(e.type == "session.ended" and e.session == "sess-1" for e in events)
    # Hermes's session switch: the next session, its parent, and its own writes.
    second = next(e for e in events if e.type == "session.started" and e.session == "sess-2")
    assert second.data.parent == "sess-1"
    berlin = next(e for e in events if e.type == "memory.entry_added"
                  and e.data.text == "Works in Berlin.")
    assert berlin.session == "sess-2" and berlin.meta and berlin.meta["hermes_tool_call_id"] \
        == "call_9"
    assert any(e.type == "session.ended" and e.session == "sess-2" for e in events)
    assert any(e.type == "session.summarized" and e.session == "sess-1" for e in events)

    # memoir revert of a mirrored write is applied to Hermes's file, under its lock.
    last = next(e for e in mirrored if e.type == "memory.entry_added"
                and e.data.text == "Deploys go through CI.")
    undone = _memoir("--home", str(home / "memoir"), "--json", "revert", last.run or "")
    assert undone.returncode == 0, undone.stderr
    assert json.loads(undone.stdout)["hermes"]["written"] == [str(home / "memories/MEMORY.md")]
    assert (home / "memories/MEMORY.md").read_text(encoding="utf-8") == \
        "Older fact.\n§\nThe build uses ninja."


def test_hooks_never_raise_into_hermes(tmp_path: Path) -> None:
    from memoir.integrations.hermes_provider import MemoirHermes

    provider = MemoirHermes(tmp_path / "file-not-folder", tmp_path / "hermes")
    (tmp_path / "file-not-folder").write_text("in the way", encoding="utf-8")
    provider.initialize("s-1", hermes_home=str(tmp_path / "hermes"))  # cannot open: logged
    assert provider.prefetch("anything") == ""
    assert provider.system_prompt_block() == ""
    provider.on_memory_write("add", "memory", "x", {"tool_call_id": "c"})
    provider.sync_turn("u", "a", messages=[{"role": "bogus"}])
    provider.on_session_end([])
    provider.shutdown()


def test_a_provider_session_prefetches_recall_and_relevant_skills(tmp_path: Path) -> None:
    from memoir.integrations.hermes_provider import MemoirHermes
    from memoir.skills import skill_manage_call

    hermes = tmp_path / "hermes"
    (hermes / "memories").mkdir(parents=True)
    home = tmp_path / "memoir"
    with memoir.open(home, create=True) as mem:
        skill_manage_call(mem, {"action": "create", "name": "deploy-app", "content":
                                "---\nname: deploy-app\ndescription: Deploy the app to "
                                "production.\n---\nRun make deploy, then check the "
                                "dashboard.\n"}, by="user")
        with mem.start_session(session_id="old-1") as old:
            old.record_turn([{"role": "user", "content": "The deploy failed with a "
                                                         "timeout on the database."},
                             {"role": "assistant", "content": "Raise the pool size; "
                                                              "the deploy then works."}])
    provider = MemoirHermes(home, hermes)
    provider.initialize("sess-2", hermes_home=str(hermes), platform="telegram")
    block = provider.system_prompt_block()
    assert "deploy-app" in block and "MEMORY" not in block
    context: Any = provider.prefetch("why did the deploy fail with a timeout?")
    assert "deploy-app" in context and "old-1" in context
    provider.on_session_end([])
    provider.shutdown()
    with memoir.open(home, readonly=True) as mem:
        info = mem.state.sessions["sess-2"]
        assert info.ended_at is not None and info.platform == "hermes:telegram"


def test_a_home_that_may_not_write_gives_hermes_its_memory_and_writes_nothing(
        tmp_path: Path) -> None:
    """On a signed journal that does not trust this home's key, the provider serves a
    guest session: recall reaches Hermes, no hook raises, and not a byte is appended
    (Hermes's own memory files are not mirrored in: that would be a write)."""
    from memoir.engine.signing import KEY_FILE, home_signer, start_signing
    from memoir.integrations.hermes_provider import MemoirHermes

    hermes = tmp_path / "hermes"
    (hermes / "memories").mkdir(parents=True)
    home = tmp_path / "memoir"
    with memoir.open(home, create=True) as mem:
        with mem.start_session(session_id="old-1") as old:
            old.add_memory("Deploys go through make deploy.")
            old.record_turn([{"role": "user", "content": "The deploy failed with a "
                                                         "timeout on the database."},
                             {"role": "assistant", "content": "Raise the pool size."}])
        start_signing(mem)
    (home / KEY_FILE).unlink()
    assert home_signer(home, create=True) is not None  # a key the owner never trusted
    (hermes / "memories" / "MEMORY.md").write_text("Hermes has a fact of its own.\n",
                                                   encoding="utf-8")
    before = (home / "journal.jsonl").read_bytes()
    provider = MemoirHermes(home, hermes)
    provider.initialize("sess-2", hermes_home=str(hermes), platform="cli")
    assert provider.session is not None and provider.session.guest is not None
    context: Any = provider.prefetch("why did the deploy time out?")
    assert "old-1" in context and "timeout on the database" in context  # recall
    provider.sync_turn("hello", "hi")
    provider.on_memory_write("add", "memory", "A fact Hermes saved.")
    provider.on_session_end([])
    provider.shutdown()
    assert (home / "journal.jsonl").read_bytes() == before


def test_a_hook_gives_up_on_a_held_journal_within_hermes_drain_time(tmp_path: Path) -> None:
    import fcntl
    import time

    from memoir.integrations.hermes_provider import HOOK_LOCK_SECONDS, MemoirHermes

    hermes = tmp_path / "hermes"
    (hermes / "memories").mkdir(parents=True)
    home = tmp_path / "memoir"
    provider = MemoirHermes(home, hermes)
    provider.initialize("sess-3", hermes_home=str(hermes))
    (hermes / "memories/MEMORY.md").write_text("Written while memoir is busy.",
                                               encoding="utf-8")
    with open(home / "journal.jsonl.lock", "a+") as held:  # another process's long write
        fcntl.flock(held, fcntl.LOCK_EX)
        began = time.monotonic()
        provider.on_memory_write("add", "memory", "Written while memoir is busy.", {})
        waited = time.monotonic() - began
        fcntl.flock(held, fcntl.LOCK_UN)
    assert waited < HOOK_LOCK_SECONDS + 1.0  # Hermes drains its worker for 5 s
    # The next hook catches up: Hermes's file is mirrored then.
    provider.on_memory_write("add", "memory", "", {})
    provider.shutdown()
    with memoir.open(home, readonly=True) as mem:
        assert mem.state.memory.target("memory").texts() == ["Written while memoir is busy."]


def test_a_session_switch_ends_one_session_and_starts_the_next(tmp_path: Path) -> None:
    from memoir.integrations.hermes_provider import MemoirHermes

    hermes = tmp_path / "hermes"
    (hermes / "memories").mkdir(parents=True)
    provider = MemoirHermes(tmp_path / "memoir", hermes)
    provider.initialize("first-1", hermes_home=str(hermes), platform="cli")
    provider.on_session_switch("second-2", parent_session_id="first-1", reset=False,
                               reason="compression")
    provider.sync_turn("hello", "hi", messages=[{"role": "user", "content": "hello"},
                                                {"role": "assistant", "content": "hi"}])
    provider.on_session_end([])
    provider.shutdown()
    with memoir.open(tmp_path / "memoir", readonly=True) as mem:
        sessions = mem.state.sessions
        ended = {e.session: e.data.reason for e in mem.journal.read()
                 if e.type == "session.ended"}
        assert ended == {"first-1": "switched", "second-2": "closed"}
        assert sessions["second-2"].parent == "first-1" and sessions["second-2"].turns == 1


def _hermes_with_other_memoir(hermes: str, where: Path) -> str:
    """Hermes's environment where the registry's unrelated ``memoir`` is installed
    instead of memoir-agent: a ``memoir`` package without memoir's modules, and its
    dist-info."""
    venv = where / "hermes-with-other-memoir"
    subprocess.run([hermes, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    own = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path("
                          "'purelib'))"], check=True, capture_output=True, text=True)
    theirs = subprocess.run([hermes, "-c", "import sysconfig; print(sysconfig.get_path("
                             "'purelib'))"], check=True, capture_output=True, text=True)
    site = Path(own.stdout.strip())
    (site / "memoir").mkdir()
    (site / "memoir" / "__init__.py").write_text("def memoize(f):\n    return f\n",
                                                 encoding="utf-8")
    info = site / "memoir-0.0.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: memoir\nVersion: 0.0.3\n",
                                   encoding="utf-8")
    (site / "hermes.pth").write_text(theirs.stdout.strip() + "\n", encoding="utf-8")
    return str(python)


def test_install_names_the_other_package_called_memoir(
        pythons: tuple[str, str], tmp_path: Path) -> None:
    bare, _combined = pythons
    python = _hermes_with_other_memoir(bare, tmp_path)
    home = _hermes_home(tmp_path)
    done = _memoir("hermes", "install", "--hermes-home", str(home), "--hermes-python", python)
    assert done.returncode == 4, done.stderr
    assert "a different package also called memoir is installed there" in done.stderr
    assert f"{python} -m pip uninstall memoir" in done.stderr
    assert "-m pip install" in done.stderr
    assert not (home / "plugins").exists()


def test_install_refuses_a_python_that_is_not_hermess(tmp_path: Path) -> None:
    home = _hermes_home(tmp_path)
    # This interpreter imports memoir but not Hermes's memory-provider modules.
    done = _memoir("hermes", "install", "--hermes-home", str(home),
                   "--hermes-python", sys.executable)
    assert done.returncode == 4, done.stderr
    assert "it is not Hermes's: it cannot import agent.memory_provider" in done.stderr
    assert not (home / "plugins").exists()


def test_install_without_hermes_on_path_asks_for_its_python(tmp_path: Path) -> None:
    home = _hermes_home(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    env = {**os.environ, "PATH": str(bin_dir)}
    done = subprocess.run([sys.executable, "-m", "memoir", "hermes", "install",
                           "--hermes-home", str(home)], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 2, done.stderr
    assert "no `hermes` command on PATH" in done.stderr and "--hermes-python" in done.stderr
    assert not (home / "plugins").exists()
    # --no-check installs without asking, and says it did not check.
    done = subprocess.run([sys.executable, "-m", "memoir", "--json", "hermes", "install",
                           "--hermes-home", str(home), "--no-check"], capture_output=True,
                          text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["python"] is None and report["import_check"] == "not checked (--no-check)"
    init = (home / "plugins" / "memoir" / "__init__.py").read_text(encoding="utf-8")
    assert "-m pip install" in init  # the plugin's warning gives a line that installs memoir


def test_enable_sets_the_provider_and_keeps_the_rest(tmp_path: Path) -> None:
    home = tmp_path / "hermes"
    home.mkdir()
    (home / "config.yaml").write_text(
        "# my Hermes\nmodel: gpt-x   # the one I like\nmemory:\n  # which memory\n"
        "  provider: holographic\n  memory_enabled: true\nagent:\n  max_turns: 9\n",
        encoding="utf-8")
    done = _memoir("--json", "hermes", "install", "--hermes-home", str(home), "--no-check",
                   "--enable")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["active"] is True
    assert (home / "config.yaml").read_text(encoding="utf-8") == (
        "# my Hermes\nmodel: gpt-x   # the one I like\nmemory:\n  # which memory\n"
        "  provider: memoir\n  memory_enabled: true\nagent:\n  max_turns: 9\n")


@pytest.mark.parametrize(("before", "after"), [
    ("", "memory:\n  provider: memoir\n"),
    ("model: x\n", "model: x\n\nmemory:\n  provider: memoir\n"),
    ("memory:\n    memory_enabled: true\n",
     "memory:\n    provider: memoir\n    memory_enabled: true\n"),
    ("memory:\n  provider: memoir\n", "memory:\n  provider: memoir\n"),
])
def test_enable_provider_edits_one_line(tmp_path: Path, before: str, after: str) -> None:
    from memoir.integrations.hermes_install import enable_provider

    (tmp_path / "config.yaml").write_text(before, encoding="utf-8")
    enable_provider(tmp_path)
    assert (tmp_path / "config.yaml").read_text(encoding="utf-8") == after


def test_enable_provider_refuses_what_it_cannot_edit_safely(tmp_path: Path) -> None:
    from memoir.errors import ValidationError
    from memoir.integrations.hermes_install import enable_provider

    (tmp_path / "config.yaml").write_text("memory: {provider: x, limit: 3}\n",
                                          encoding="utf-8")
    with pytest.raises(ValidationError, match="by hand"):
        enable_provider(tmp_path)
    assert (tmp_path / "config.yaml").read_text(encoding="utf-8") == \
        "memory: {provider: x, limit: 3}\n"
