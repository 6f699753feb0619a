"""The web view on a large home: ``memoir ui`` serving the cached corpus (1,000,000
events; 100,000 with ``--quick``), measured as a browser would use it.

The server is a real ``memoir ui --port 0`` process on a copy of the corpus (rebuilt
once, so a checkpoint sits at the head).  Server time is what the server reports in
its ``Server-Timing`` header (from the request reaching the route to the JSON encoded);
the round trip over loopback is reported beside it.  Figures:

* the timeline's first page (50 items), cold (the first request) and warm;
* a run's page (its diff and records) for a run near the head and one a tenth of the
  way in;
* memory as of a past seq, at five seqs spread over the journal;
* a record another process appends, until it arrives on the live stream;
* the server's resident memory after all of them (peak too).

Same-run baselines, in this process on the same home: reading the same number of
records backwards from the journal (the raw cost of a page), the same two views and
diff, and ``Memoir.prompt_blocks(seq)`` (what ``memoir prompt --at`` does).
"""

from __future__ import annotations

import datetime as dt
import http.client
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psutil

from bench._corpus import copy_home, ensure_corpus
from bench._measure import Context, Figure, Target, median, scratch_dir
from memoir.api import Memoir
from memoir.oversight.audit import diff_states

NAME = "web_ui"
#: What the search box is asked (words of the corpus's sessions, and words of none).
SEARCHES = ("staging", "deploy%20timeout", "psycopg", "connection%20refused", "vpn",
            "no-such-word-anywhere")


def _token(url: str) -> str:
    """The token of the URL ``memoir ui`` printed (in its fragment: ``/#token=…``)."""
    return urlsplit(url).fragment.removeprefix("token=")


class _Client:
    """A keep-alive connection with the server's token; returns (body, server ms, ms)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.token = _token(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)

    def get(self, path: str) -> tuple[Any, float, float]:
        started = time.perf_counter()
        self.conn.request("GET", path, headers={"Authorization": f"Bearer {self.token}"})
        response = self.conn.getresponse()
        body = response.read()
        took = (time.perf_counter() - started) * 1000
        if response.status != 200:
            raise RuntimeError(f"GET {path}: {response.status} {body[:300]!r}")
        server = float(response.getheader("Server-Timing", "app;dur=nan").split("dur=")[1])
        return json.loads(body), server, took

    def post(self, path: str, body: dict[str, Any]) -> tuple[Any, float, float]:
        """A change, as the page sends it (the token twice: bearer and header)."""
        started = time.perf_counter()
        self.conn.request("POST", path, body=json.dumps(body),
                          headers={"Authorization": f"Bearer {self.token}",
                                   "X-Memoir-Token": self.token,
                                   "Content-Type": "application/json"})
        response = self.conn.getresponse()
        data = response.read()
        took = (time.perf_counter() - started) * 1000
        if response.status != 200:
            raise RuntimeError(f"POST {path}: {response.status} {data[:300]!r}")
        server = float(response.getheader("Server-Timing", "app;dur=nan").split("dur=")[1])
        return json.loads(data), server, took


def _edits(client: _Client, repeats: int) -> dict[str, list[float]]:
    """Round trips (ms) of a person's add, replace and remove from the memory page,
    each answered once journaled (the page then redraws from the answer's usage)."""
    took: dict[str, list[float]] = {"add": [], "replace": [], "remove": []}
    usage = client.get("/api/memory")[0]["usage"]
    target = max(usage, key=lambda t: usage[t]["limit"] - usage[t]["chars"])  # the roomier
    for n in range(repeats):
        text = f"Bench {n}: VPN closes 19:00."
        took["add"].append(client.post("/api/act/memory/add",
                                       {"target": target, "content": text})[2])
        view = client.get("/api/memory")[0]
        entry = next(e["id"] for e in view["entries"][target] if e["text"] == text)
        took["replace"].append(client.post("/api/act/memory/replace", {
            "target": target, "entry": entry, "content": text + " (20:00)"})[2])
        took["remove"].append(client.post("/api/act/memory/remove",
                                          {"target": target, "entry": entry})[2])
    return took


def _start(home: Path) -> tuple[subprocess.Popen[str], str, float]:
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "memoir", "--home", str(home), "ui",
                             "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()  # printed once the server accepts requests
    if not line.startswith("http://"):
        proc.kill()
        raise RuntimeError(f"memoir ui did not start: {proc.stderr.read() if proc.stderr else ''}")
    return proc, line, time.perf_counter() - started


def _runs_near(home: Path, fractions: list[float], events: int) -> list[str]:
    """The first run started after each fraction of the journal."""
    marks = sorted(int(events * f) for f in fractions)
    found: list[str] = []
    with open(home / "journal.jsonl", "rb") as lines:
        for seq, line in enumerate(lines, 1):
            if seq >= marks[len(found)] and b'"run.started"' in line:
                found.append(json.loads(line)["run"])
                if len(found) == len(marks):
                    break
    return found


def _live_latency(url: str, home: Path) -> float:
    """Seconds from another process's append (the record's timestamp) to the record
    arriving on the page's live stream."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)
    conn.request("GET", "/api/stream", headers={
        "Authorization": f"Bearer {_token(url)}"})
    stream = conn.getresponse()
    while not stream.fp.readline().startswith(b"event: ready"):
        pass
    # The corpus's memory is full, so the probe is a write that always lands: pausing
    # the curator, or resuming it.
    tail = (home / "journal.jsonl").read_bytes()[-65536:]
    paused = tail.rfind(b'"curator.paused"') > tail.rfind(b'"curator.resumed"')
    verb, kind = ("resume", b'"curator.resumed"') if paused else ("pause", b'"curator.paused"')
    subprocess.run([sys.executable, "-m", "memoir", "--home", str(home), "curator", verb],
                   check=True, capture_output=True)
    line = b""
    while kind not in line:
        line = stream.fp.readline()
    arrived = time.time()
    # From the record's own timestamp (taken as it was appended) to its arrival: the
    # command may still be closing when the page already has the record.
    record = json.loads(line.decode().removeprefix("data: "))
    took = arrived - dt.datetime.fromisoformat(record["ts"]).timestamp()
    conn.close()
    return took


def _peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run(ctx: Context) -> list[Figure]:
    corpus = ensure_corpus(ctx.work, ctx.pick(100_000, 1_000_000), ctx.log)
    folder = scratch_dir(ctx, NAME)
    repeats = ctx.pick(5, 11)
    try:
        home = copy_home(corpus, folder / "home")
        with Memoir(home) as handle:
            handle.rebuild()
        old_run, new_run = _runs_near(home, [0.1, 0.99], corpus.events)
        seqs = [int(corpus.events * f) for f in (0.05, 0.25, 0.5, 0.75, 0.95)]
        proc, url, startup = _start(home)
        ctx.log(f"  memoir ui printed its URL after {startup:.2f} s")
        try:
            client = _Client(url)
            server = psutil.Process(proc.pid)
            phases: dict[str, float] = {"started": server.memory_info().rss / 2**20}
            first, cold, cold_rt = client.get("/api/timeline?limit=50")
            warm = [client.get("/api/timeline?limit=50") for _ in range(repeats)]
            filtered = [client.get("/api/timeline?limit=50&kind=no-such-kind")
                        for _ in range(3)]
            # A text filter nothing matches: every record of its budget is searched.
            worded = [client.get("/api/timeline?limit=50&q=no-such-words-anywhere")
                      for _ in range(3)]
            phases["timeline"] = server.memory_info().rss / 2**20
            runs = {name: [client.get(f"/api/item/{run}") for _ in range(repeats)]
                    for name, run in (("recent", new_run), ("old", old_run))}
            phases["runs"] = server.memory_info().rss / 2**20
            memory = [client.get(f"/api/memory?seq={seq}") for seq in seqs for _ in range(3)]
            phases["memory"] = server.memory_info().rss / 2**20
            edits = _edits(client, repeats)
            phases["edits"] = server.memory_info().rss / 2**20
            rss_before_search = server.memory_info().rss / 2**20
            searched = [client.get(f"/api/search?q={q}") for q in SEARCHES
                        for _ in range(ctx.pick(2, 3))]
            phases["search"] = server.memory_info().rss / 2**20
            live = [_live_latency(url, home) for _ in range(ctx.pick(3, 5))]
            phases["live"] = server.memory_info().rss / 2**20
            ctx.log("  live: " + ", ".join(f"{x * 1000:.0f} ms" for x in live))
            ctx.log("  RSS MB after: " + ", ".join(f"{k} {v:.0f}" for k, v in phases.items()))
            rss = psutil.Process(proc.pid).memory_info().rss / 2**20
            peak = _peak_mb(proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=60)
        ctx.log(f"  timeline first page: cold {cold:.1f} ms, warm "
                f"{median([w[1] for w in warm]):.1f} ms (server); {len(first['items'])} items, "
                f"{first['scanned']} records read")
        # Baselines in this process, on the same home.
        with Memoir(home, readonly=True) as handle:
            sessions = len(handle.state.sessions)
            scanned = first["scanned"]
            reverse = []
            for _ in range(repeats):
                started = time.perf_counter()
                for n, _event in enumerate(handle.events(reverse=True), 1):
                    if n >= scanned:
                        break
                reverse.append((time.perf_counter() - started) * 1000)
            diffs: dict[str, list[float]] = {}
            for name, run in (("recent", new_run), ("old", old_run)):
                info = handle.state.runs[run]
                diffs[name] = []
                for _ in range(3):
                    started = time.perf_counter()
                    diff_states(handle.view(info.first_seq - 1), handle.view(info.last_seq))
                    diffs[name].append((time.perf_counter() - started) * 1000)
            blocks = []
            for seq in seqs:
                started = time.perf_counter()
                handle.prompt_blocks(seq)
                blocks.append((time.perf_counter() - started) * 1000)
        # The same writes in process, through the memory tool's path (what the page's
        # request does once it reaches the route).
        direct = []
        with Memoir(home) as handle:
            session = handle.start_session()
            target = max(("memory", "user"), key=lambda t: handle.state.memory.limits[t] - len(
                "\n§\n".join(handle.state.memory.target(t).texts())))
            for n in range(repeats):
                text = f"Direct {n}: VPN closes 19:00."
                started = time.perf_counter()
                result = session.call_tool("memory", {"action": "add", "target": target,
                                                      "content": text})
                direct.append((time.perf_counter() - started) * 1000)
                assert result["success"], result
                session.call_tool("memory", {"action": "remove", "target": target,
                                             "old_text": text})
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    def p95(values: list[float]) -> float:
        return sorted(values)[max(0, round(len(values) * 0.95) - 1)]

    common = {"events": corpus.events, "repeats": repeats}
    figures = [
        Figure(bench=NAME, name="timeline first page, server time (cold: first request)",
               value=cold, unit="ms", better="lower",
               baseline_name=f"reading the same {first['scanned']} records backwards "
                             "in process", baseline_value=median(reverse),
               target=Target("value", "<", 300),
               notes={**common, "round_trip_ms": round(cold_rt, 1),
                      "items": len(first["items"]), "scanned": first["scanned"]}),
        Figure(bench=NAME, name="timeline first page, server time (warm, median)",
               value=median([w[1] for w in warm]), unit="ms", better="lower",
               baseline_name="the same records read backwards in process",
               baseline_value=median(reverse), target=Target("value", "<", 300),
               notes={"p95_ms": round(p95([w[1] for w in warm]), 1),
                      "round_trip_ms": round(median([w[2] for w in warm]), 1)}),
        Figure(bench=NAME, name="timeline page, a filter nothing matches (reads its budget)",
               value=median([f[1] for f in filtered]), unit="ms", better="lower",
               notes={"scanned": filtered[0][0]["scanned"]}),
    ]
    for name in ("recent", "old"):
        server = [r[1] for r in runs[name]]
        figures.append(Figure(
            bench=NAME, name=f"a run's diff page, {name} run, server time (median)",
            value=median(server), unit="ms", better="lower",
            baseline_name="the same two views and diff in process",
            baseline_value=median(diffs[name]), target=Target("value", "<", 200),
            notes={"p95_ms": round(p95(server), 1), "files": len(runs[name][0][0]["files"]),
                   "round_trip_ms": round(median([r[2] for r in runs[name]]), 1)}))
    served = [m[1] for m in memory]
    figures += [
        Figure(bench=NAME, name="memory as of a past seq, server time (median of 5 seqs)",
               value=median(served), unit="ms", better="lower",
               baseline_name="Memoir.prompt_blocks(seq) in process",
               baseline_value=median(blocks), target=Target("value", "<", 100),
               notes={"max_ms": round(max(served), 1), "seqs": seqs,
                      "per_seq_ms": [round(statistics.median(served[i * 3:i * 3 + 3]), 1)
                                     for i in range(len(seqs))]}),
        Figure(bench=NAME, name="memory edit from the page: add, replace, remove, round "
                                "trip (median)",
               value=median([*edits["add"], *edits["replace"], *edits["remove"]]), unit="ms",
               better="lower", baseline_name="a memory tool add in process (same home)",
               baseline_value=median(direct), target=Target("value", "<", 100),
               notes={k: round(median(v), 1) for k, v in edits.items()} | {
                   "p95_ms": round(p95([*edits["add"], *edits["replace"],
                                        *edits["remove"]]), 1)}),
        Figure(bench=NAME, name="timeline page, a text filter nothing matches (reads its "
                                "budget)",
               value=median([f[1] for f in worded]), unit="ms", better="lower",
               baseline_name="a filter on kind nothing matches (same budget)",
               baseline_value=median([f[1] for f in filtered]), target=Target("value", "<", 1000),
               notes={"scanned": worded[0][0]["scanned"]}),
        Figure(bench=NAME, name="one search box: memory, skills, sessions, runs, server time "
                                "(p95)",
               value=p95([x[1] for x in searched]), unit="ms", better="lower",
               target=Target("value", "<", 300),
               notes={"median_ms": round(median([x[1] for x in searched]), 1),
                      "queries": len(searched), "sessions": sessions,
                      "found": {q: sum(x[0]["counts"].values()) for q, x in
                                zip(SEARCHES, searched[::ctx.pick(2, 3)], strict=True)}}),
        Figure(bench=NAME, name="live: another process's append to the record on the stream",
               value=median(live) * 1000, unit="ms", better="lower",
               target=Target("value", "<", 1000),
               notes={"ms": [round(x * 1000) for x in live], "poll_ms": 200}),
        Figure(bench=NAME, name="memoir ui start: process start to its URL printed",
               value=startup, unit="s", better="lower",
               notes={"includes": "Python start, opening the home, reading the forgotten "
                                  "marks once, binding"}),
        Figure(bench=NAME, name="server resident memory after the requests above (before "
                                "a session search)",
               value=rss_before_search, unit="MB", better="lower",
               target=Target("value", "<", 200),
               notes={"peak_mb": round(peak, 1), "after_all_mb": round(rss, 1),
                      "why_more_after": "a session search in hybrid recall loads the "
                                        "embedding model (docs/recall.md)",
                      "after_mb": {k: round(v, 1) for k, v in phases.items()}}),
    ]
    return figures
