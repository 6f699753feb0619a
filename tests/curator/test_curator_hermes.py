"""The curator's automatic lifecycle against Hermes's own ``apply_automatic_transitions``.

Random sets of skills — agent-made, a person's, bundled (with and without a usage
record), hub-installed, pinned, active or stale, used or never used, with activity
spread around the stale and archive cutoffs — and a pass time, under random
``stale_after_days``, ``archive_after_days`` and ``prune_builtins``.  Hermes runs each
case in a throwaway home (skill folders, ``.usage.json``, ``.bundled_manifest``,
``.hub/lock.json``, ``config.yaml``); memoir runs :func:`automatic_transitions` on the
same records.  The resulting state of every skill and Hermes's counters must agree.

Skipped unless ``MEMOIR_HERMES_PYTHON`` names a python with hermes-agent installed.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import subprocess
import tempfile
from typing import Any

import pytest

from memoir.curator import automatic_transitions
from memoir.projections.skills import SkillRecord
from tests.support.oracle import hermes_python

pytestmark = pytest.mark.skipif(
    hermes_python() is None,
    reason="set MEMOIR_HERMES_PYTHON to a python with hermes-agent installed",
)

SCRIPT = r"""
import json, os, sys, tempfile
from datetime import datetime
from pathlib import Path
cases = json.load(sys.stdin)
out = []
for case in cases:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HERMES_HOME"] = tmp
        home = Path(tmp)
        cfg = case["config"]
        (home / "config.yaml").write_text(
            "curator:\n" + "".join(f"  {k}: {json.dumps(v)}\n" for k, v in cfg.items()))
        skills = home / "skills"
        skills.mkdir()
        usage, bundled, hub = {}, [], {}
        for s in case["skills"]:
            (skills / s["name"]).mkdir()
            (skills / s["name"] / "SKILL.md").write_text(
                f"---\nname: {s['name']}\ndescription: d\n---\nbody\n")
            if s["kind"] == "bundled":
                bundled.append(s["name"])
            if s["kind"] == "hub":
                hub[s["name"]] = {}
            if s["record"] is not None:
                usage[s["name"]] = s["record"]
        (skills / ".usage.json").write_text(json.dumps(usage))
        (skills / ".bundled_manifest").write_text("".join(f"{n}:0\n" for n in bundled))
        (skills / ".hub").mkdir()
        (skills / ".hub" / "lock.json").write_text(json.dumps({"version": 1, "installed": hub}))
        from agent.curator import apply_automatic_transitions
        counts = apply_automatic_transitions(datetime.fromisoformat(case["now"]))
        after = json.loads((skills / ".usage.json").read_text())
        states = {n: (r or {}).get("state") for n, r in after.items()}
        archived = sorted(p.name for p in (skills / ".archive").iterdir()) \
            if (skills / ".archive").exists() else []
        out.append({"counts": counts, "states": states, "archived": archived})
print(json.dumps(out))
"""

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def _iso(when: dt.datetime) -> str:
    return when.isoformat()


def make_case(rng: random.Random) -> dict[str, Any]:
    stale = rng.choice([1, 7, 30])
    archive = stale + rng.choice([0, 1, 30, 60])
    now = T0 + dt.timedelta(days=rng.randint(0, 200), hours=rng.randint(0, 23))
    skills = []
    for i in range(rng.randint(1, 6)):
        kind = rng.choice(["agent", "agent", "agent", "person", "bundled", "hub"])

        def around(cutoff_days: int) -> str:
            # A time near a cutoff (either side, sometimes exactly on it) or anywhere.
            if rng.random() < 0.7:
                delta = dt.timedelta(days=cutoff_days, hours=rng.choice([-30, -1, 0, 0, 1, 30]))
            else:
                delta = dt.timedelta(days=rng.randint(0, 250))
            return _iso(now - delta)

        record: dict[str, Any] | None = {
            "created_by": "agent" if kind == "agent" else None,
            "use_count": rng.choice([0, 0, 1, 5]),
            "view_count": 0, "patch_count": 0,
            "created_at": around(rng.choice([stale, archive])),
            "last_used_at": None, "last_viewed_at": None, "last_patched_at": None,
            "state": rng.choice(["active", "active", "stale"]),
            "pinned": rng.random() < 0.15,
            "archived_at": None,
        }
        assert record is not None
        for field in ("last_used_at", "last_viewed_at", "last_patched_at"):
            if rng.random() < 0.4:
                record[field] = around(rng.choice([stale, archive]))
        if record["last_used_at"] is not None and record["use_count"] == 0:
            record["use_count"] = 1
        if kind == "bundled" and rng.random() < 0.5:
            record = None  # a built-in the curator has not seen yet
        skills.append({"name": f"s{i}", "kind": kind, "record": record})
    return {"now": _iso(now),
            "config": {"stale_after_days": stale, "archive_after_days": archive,
                       "prune_builtins": rng.random() < 0.8},
            "skills": skills}


def memoir_states(case: dict[str, Any]) -> tuple[dict[str, int], dict[str, str]]:
    records: dict[str, SkillRecord] = {}
    seeded: dict[str, str] = {}
    for s in case["skills"]:
        kind, raw = s["kind"], s["record"]
        provenance = {"agent": "agent", "person": "user"}.get(kind, kind)
        owner = "agent" if kind == "agent" else ("user" if kind == "person" else kind)
        record = SkillRecord(name=s["name"], provenance=provenance, created_by=owner)
        if raw is not None:
            record = SkillRecord(
                name=s["name"], provenance=provenance, created_by=owner,
                created_at=raw["created_at"], use_count=raw["use_count"],
                last_used_at=raw["last_used_at"], last_viewed_at=raw["last_viewed_at"],
                last_patched_at=raw["last_patched_at"], state=raw["state"],
                pinned=raw["pinned"])
            if kind == "bundled":
                seeded[s["name"]] = raw["created_at"]  # the clock Hermes's record keeps
        records[s["name"]] = record
    cfg = case["config"]
    out = automatic_transitions(
        records, dt.datetime.fromisoformat(case["now"]),
        stale_after_days=cfg["stale_after_days"], archive_after_days=cfg["archive_after_days"],
        prune_builtins=cfg["prune_builtins"], seeded=seeded)
    states = {n: r.state for n, r in records.items()}
    for t in out.transitions:
        states[t.name] = t.to_state
    return out.counts, states


def test_lifecycle_transitions_match_hermes_on_shared_records_and_dates() -> None:
    rng = random.Random(20261123)
    cases = [make_case(rng) for _ in range(400)]
    python = hermes_python()
    assert python is not None
    with tempfile.TemporaryDirectory() as scratch:
        proc = subprocess.run([python, "-I", "-c", SCRIPT], input=json.dumps(cases),
                              capture_output=True, text=True, timeout=300, check=False,
                              env={"HERMES_HOME": scratch, "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = json.loads(proc.stdout)
    transitions = 0
    for case, hermes in zip(cases, theirs, strict=True):
        counts, states = memoir_states(case)
        assert counts == hermes["counts"], (case, hermes)
        for s in case["skills"]:
            name = s["name"]
            expected = hermes["states"].get(name)
            if name in hermes["archived"]:
                expected = "archived"
            if expected is None:  # no record on either side before or after
                expected = "active"
            assert states[name] == expected, (name, case, hermes)
        transitions += sum(counts[k] for k in ("marked_stale", "archived", "reactivated"))
    assert transitions > 100  # the cases do reach every rule
