"""Admitting a home to a signed journal, as its person does: `memoir journal key` on the
new home, `memoir journal trust KEY` on the owner's."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

Run = Callable[..., subprocess.CompletedProcess[str]]


def admit(run: Run, owner: Path, *homes: Path, may: Sequence[str] = (),
          env: dict[str, str] | None = None) -> list[str]:
    """Trust each home's key on the journal ``owner`` owns; the keys."""
    keys = []
    for home in homes:
        shown = run("--home", str(home), "--json", "journal", "key", env=env)
        assert shown.returncode == 0, shown.stderr
        key = json.loads(shown.stdout)["key"]
        rights = [arg for right in may for arg in ("--may", right)]
        done = run("--home", str(owner), "journal", "trust", key, *rights, env=env)
        assert done.returncode == 0, done.stderr
        keys.append(key)
    return keys
