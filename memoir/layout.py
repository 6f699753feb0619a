"""Where things are in a home: the journal's file name, the default home, and the Hermes
files a folder may hold before it is a memoir home.  (A base module: commands that
only need paths, such as ``memoir log``, load nothing else.)"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["FORGOTTEN_LIST", "FORGOTTEN_SUFFIX", "JOURNAL_FILE", "default_home",
           "hermes_files", "no_home_message"]

JOURNAL_FILE = "journal.jsonl"
#: Beside a journal file: the forgotten records its chain alone cannot vouch for
#: (see :mod:`memoir.journal.file.tombstones`); a backup takes it along.
FORGOTTEN_SUFFIX = ".forgotten"
FORGOTTEN_LIST = JOURNAL_FILE + FORGOTTEN_SUFFIX


def default_home() -> Path:
    """``$MEMOIR_HOME``, else ``~/.memoir``."""
    env = os.environ.get("MEMOIR_HOME")
    return Path(env).expanduser() if env else Path.home() / ".memoir"


def hermes_files(home: Path) -> list[str]:
    """The Hermes files in a folder that is not (yet) a memoir home: memory files, skills,
    config and curator state, as paths relative to it."""
    found = [rel for rel in ("memories/MEMORY.md", "memories/USER.md", "config.yaml",
                             "skills/.curator_state", "skills/.usage.json")
             if (home / rel).is_file()]
    skills = home / "skills"
    if skills.is_dir():
        count = sum(1 for _ in skills.glob("**/SKILL.md"))
        if count:
            found.append(f"skills/ ({count} SKILL.md)")
    return found


def no_home_message(home: Path) -> str:
    """What to say when there is no memoir home at ``home``, pointing at Hermes files."""
    hermes = hermes_files(home) if home.is_dir() else []
    if not hermes:
        return f"no memoir home at {home} (memoir init creates one)"
    return (f"no memoir home at {home}, but it holds Hermes files ({', '.join(hermes)}): "
            "`memoir init` makes it a memoir home, then `memoir adopt` records them in "
            "the journal")
