"""Importing a full Hermes home and exporting it back (issue 12's targets: < 5 s each).

The home: MEMORY.md and USER.md filled to Hermes's default limits, 1,000 skills in 20
categories (a 2 kB SKILL.md and two reference files each), a ``.usage.json`` record per
skill, 50 archived skills, a bundled manifest and a hub lock.  Measured end to end as
the commands a person runs (``memoir import hermes`` into a fresh home, ``memoir export
hermes`` into a new folder), fresh processes, medians of the rounds.  Baseline in the
same run: ``cp -r`` of the same Hermes home (reading and writing the same files, no
journal).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench._measure import Context, Figure, Target, median, scratch_dir

NAME = "hermes_home"


def build_home(root: Path, skills: int = 1000, archived: int = 50) -> Path:
    memories = root / "memories"
    memories.mkdir(parents=True)
    facts, total, i = [], 0, 0
    while total < 2100:
        fact = f"Fact {i}: the staging database is a read-only replica of prod."
        facts.append(fact)
        total += len(fact) + 3
        i += 1
    (memories / "MEMORY.md").write_text("\n§\n".join(facts), encoding="utf-8")
    (memories / "USER.md").write_text("\n§\n".join(
        f"Preference {j}: answers short, code in Python 3.11." for j in range(25)),
        encoding="utf-8")
    base = root / "skills"
    usage: dict[str, dict[str, object]] = {}
    body = ("Step: check the logs, then run the command and verify the result.\n" * 30)
    for n in range(skills + archived):
        name = f"skill-{n:04d}"
        folder = base / ".archive" / name if n >= skills else base / f"cat-{n % 20:02d}" / name
        (folder / "references").mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: How to do task {n} well.\n---\n# {name}\n{body}",
            encoding="utf-8")
        for r in range(2):
            (folder / "references" / f"ref-{r}.md").write_text(
                f"Reference {r} of {name}.\n" + "detail line\n" * 80, encoding="utf-8")
        usage[name] = {"created_by": "agent" if n % 3 else None, "use_count": n % 7,
                       "view_count": n % 11, "patch_count": n % 5,
                       "last_used_at": "2026-01-02T03:04:05+00:00", "last_viewed_at": None,
                       "last_patched_at": None, "created_at": "2025-06-01T00:00:00+00:00",
                       "state": "archived" if n >= skills else "stale" if n % 13 == 0
                       else "active", "pinned": n % 50 == 1,
                       "archived_at": "2026-02-01T00:00:00+00:00" if n >= skills else None}
    (base / ".usage.json").write_text(json.dumps(usage, indent=2, sort_keys=True),
                                      encoding="utf-8")
    (base / ".bundled_manifest").write_text(
        "".join(f"skill-{n:04d}:{n:032x}\n" for n in range(0, skills, 10)), encoding="utf-8")
    (base / ".hub").mkdir()
    (base / ".hub" / "lock.json").write_text(json.dumps({"version": 1, "installed": {
        f"skill-{n:04d}": {"source": "github", "identifier": f"acme/skill-{n:04d}"}
        for n in range(5, skills, 10)}}), encoding="utf-8")
    return root


def _wall(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def run(ctx: Context) -> list[Figure]:
    base = scratch_dir(ctx, NAME)
    skills = ctx.pick(200, 1000)
    hermes = build_home(base / "hermes", skills=skills)
    memoir = [sys.executable, "-m", "memoir"]
    imports, exports, copies = [], [], []
    for r in range(ctx.pick(2, 3)):
        home, out, copy = base / f"m{r}", base / f"out{r}", base / f"copy{r}"
        subprocess.run([*memoir, "init", "--home", str(home)], check=True,
                       stdout=subprocess.DEVNULL)
        imports.append(_wall([*memoir, "--home", str(home), "import", "hermes", str(hermes)]))
        exports.append(_wall([*memoir, "--home", str(home), "export", "hermes", str(out)]))
        copies.append(_wall(["cp", "-r", str(hermes), str(copy)]))
        ctx.log(f"  round {r + 1}: import {imports[-1]:.2f} s, export {exports[-1]:.2f} s, "
                f"cp -r {copies[-1]:.2f} s")
        for folder in (home, out, copy):
            shutil.rmtree(folder)
    what = f"{skills:,} skills + 50 archived, full memory"
    return [
        Figure(NAME, f"memoir import hermes ({what})", median(imports), "s", "lower",
               baseline_name="cp -r of the Hermes home", baseline_value=median(copies),
               target=Target("value", "<", 5)),
        Figure(NAME, f"memoir export hermes ({what})", median(exports), "s", "lower",
               baseline_name="cp -r of the Hermes home", baseline_value=median(copies),
               target=Target("value", "<", 5)),
    ]
