"""A soak (``-m slow``): agents in several processes write while they are killed with
SIGKILL at random, a person edits USER.md by hand and adopts the edits, and the
background writer keeps the files up to date — for a few minutes.  At the end no
acknowledged write and no hand edit may be lost.

``MEMOIR_SOAK_SECONDS`` sets the length (default 120).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import memoir
from memoir.errors import MemoirError
from tests.support.paths import REPO

AGENT = """
import json, sys
import memoir
home, name = sys.argv[1], sys.argv[2]
mem = memoir.open(home)
session = mem.start_session()
i = 0
while True:
    target = "user" if i % 4 == 0 else "memory"
    text = f"{name} fact {i}"
    result = session.call_tool("memory", {"action": "add", "target": target, "content": text})
    if result.get("success"):
        print(json.dumps([target, text]), flush=True)  # acknowledged
    i += 1
"""


def _spawn(home: Path, name: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, "-c", AGENT, str(home), name],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=env)


def _acked(proc: subprocess.Popen[str]) -> list[tuple[str, str]]:
    out, _ = proc.communicate(timeout=60)
    acked = []
    for line in out.splitlines():
        try:
            target, text = json.loads(line)
        except (json.JSONDecodeError, ValueError):
            continue  # the line the kill cut short was never acknowledged
        acked.append((target, text))
    return acked


@pytest.mark.slow
def test_kills_hand_edits_adoption_and_background_writes_lose_nothing(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("a soak: run with -m slow")
    seconds = float(os.environ.get("MEMOIR_SOAK_SECONDS", "120"))
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        "memory:\n  memory_char_limit: 1000000\n  user_char_limit: 1000000\n")
    with memoir.open(home) as mem:
        mem.ensure_limits()
    user_md = home / "memories" / "USER.md"
    rng = random.Random(20261123)
    agents = {f"a{k}": _spawn(home, f"a{k}") for k in range(3)}
    generation = 3
    acked: list[tuple[str, str]] = []
    edits: list[str] = []
    kills = adopted = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(rng.uniform(0.05, 0.4))
        if rng.random() < 0.5:  # a person edits USER.md in an editor and saves it
            marker = f"hand edit {len(edits)}"
            try:
                current = user_md.read_text(encoding="utf-8")
            except FileNotFoundError:
                current = ""
            user_md.parent.mkdir(exist_ok=True)
            saved = user_md.with_name(".editor-save")
            saved.write_text((current + "\n§\n" if current else "") + marker, encoding="utf-8")
            os.replace(saved, user_md)
            edits.append(marker)
            if rng.random() < 0.7:
                try:
                    with memoir.open(home) as mem:
                        mem.adopt(force=True)
                    adopted += 1
                except MemoirError:
                    pass  # e.g. a lock held by a writer that was just killed: later
        if rng.random() < 0.6:  # kill an agent, start another
            name = rng.choice(sorted(agents))
            proc = agents.pop(name)
            proc.send_signal(signal.SIGKILL)
            acked += _acked(proc)
            kills += 1
            agents[f"a{generation}"] = _spawn(home, f"a{generation}")
            generation += 1
    for proc in agents.values():
        proc.send_signal(signal.SIGKILL)
        acked += _acked(proc)

    with memoir.open(home) as mem:
        mem.adopt(force=True)
        assert mem.verify().records == mem.head
        added = {(e.data.target, e.data.text)  # type: ignore[attr-defined]
                 for e in mem.events(types=["memory.entry_added"])}
        lost = [a for a in acked if a not in added]
        assert not lost, f"{len(lost)} acknowledged writes lost, e.g. {lost[:3]}"
        kept_text = "\n".join([user_md.read_text(encoding="utf-8")] + [
            p.read_text(encoding="utf-8") for p in user_md.parent.glob("USER.md.bak.*")])
        adopted_texts = {text for target, text in added if target == "user"}
        gone = [m for m in edits if m not in adopted_texts and m not in kept_text]
        assert not gone, f"{len(gone)} hand edits lost, e.g. {gone[:3]}"
        mem.flush()
        before = {p.name: p.read_bytes() for p in (home / "memories").glob("*.md")}
        mem.rebuild()
        assert {p.name: p.read_bytes() for p in (home / "memories").glob("*.md")} == before
    print(f"{len(acked)} acknowledged writes and {len(edits)} hand edits kept through "
          f"{kills} kills and {adopted} adoptions in {seconds:g} s")
