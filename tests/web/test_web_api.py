"""The web view's HTTP side, in process: the gate (token, cookie, cross-site checks,
host), every read, every action, and the bad inputs of the issue (stale or missing
token, a run that does not exist, a conflicting revert, a read-only home)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import memoir
from memoir.web.timeline import SCAN_BUDGET
from tests.web.client import BASE, TOKEN, Web, journal_lines

# -- the gate ----------------------------------------------------------------------------


def test_without_the_token_nothing_is_read(web: Web) -> None:
    bare = TestClient(web.app.app, base_url=BASE)
    for path in ("/api/status", "/api/timeline", "/api/memory", "/api/stream",
                 "/api/memory/history?target=memory&id=x"):
        response = bare.get(path)
        assert response.status_code == 401, path
        assert "token" in response.text
    assert bare.get("/api/memory", headers={"Authorization": "Bearer stale-token-xyz"}
                    ).status_code == 401


def test_no_cookie_carries_the_token(web: Web) -> None:
    """A browser sends a 127.0.0.1 cookie to every port: the server neither sets one nor
    accepts one, so another local server has nothing to read or replay."""
    bare = TestClient(web.app.app, base_url=BASE, follow_redirects=False)
    wrong = bare.get("/?token=stale-token-from-yesterday")
    assert wrong.status_code == 401 and "stale" in wrong.text
    for path in ("/", f"/?token={TOKEN}"):
        page = bare.get(path)
        assert page.status_code == 200, path
        assert "set-cookie" not in page.headers
        assert TOKEN not in page.text and str(web.path) not in page.text  # a shell, no data
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert page.headers["x-frame-options"] == "DENY"
        assert page.headers["referrer-policy"] == "no-referrer"
    for name in ("memoir_ui_8770", "memoir_ui", "token", "session"):
        replayed = TestClient(web.app.app, base_url=BASE)
        replayed.cookies.set(name, TOKEN)
        assert replayed.get("/api/status").status_code == 401, name
    assert bare.get("/api/status", headers={"Authorization": f"Bearer {TOKEN}"}
                    ).status_code == 200


def test_a_change_needs_the_header_token_and_this_origin(web: Web) -> None:
    before = journal_lines(web.path)
    body = {"name": "deploy-staging"}
    cookie_only = TestClient(web.app.app, base_url=BASE,
                             headers={"Authorization": f"Bearer {TOKEN}"})
    refused = cookie_only.post("/api/act/pin", json=body)
    assert refused.status_code == 403 and "X-Memoir-Token" in refused.json()["error"]
    header = {"X-Memoir-Token": TOKEN}
    for extra in ({"Origin": "http://evil.example"},
                  {"Origin": "http://127.0.0.1:9999"},
                  {"Sec-Fetch-Site": "cross-site"}):
        response = cookie_only.post("/api/act/pin", json=body, headers={**header, **extra})
        assert response.status_code == 403, extra
    form = cookie_only.post("/api/act/pin", content=b"name=deploy-staging",
                            headers={**header, "Content-Type": "application/x-www-form-urlencoded"})
    assert form.status_code == 415
    assert journal_lines(web.path) == before
    same = cookie_only.post("/api/act/pin", json=body,
                            headers={**header, "Origin": BASE, "Sec-Fetch-Site": "same-origin"})
    assert same.status_code == 200 and same.json()["pinned"] is True
    assert journal_lines(web.path) > before


def test_a_rebinding_host_name_is_refused(web: Web) -> None:
    response = web.client.get("/api/status", headers={"Host": "attacker.example:8770"})
    assert response.status_code == 403 and "127.0.0.1:8770" in response.json()["error"]


@pytest.mark.parametrize("path", [
    "/assets/../app.py", "/assets/..%2fapp.py", "/assets/%2e%2e%2f__init__.py",
    "/assets/index.html", "/assets/app.py", "/assets//etc/passwd", "/etc/passwd",
    "/assets/..%2f..%2f..%2fpyproject.toml",
])
def test_nothing_but_the_assets_table_is_served(web: Web, path: str) -> None:
    response = web.client.get(path)
    assert response.status_code == 404, path
    assert "import" not in response.text and "root:" not in response.text


def test_the_assets_are_the_packaged_files(web: Web) -> None:
    js = web.client.get("/assets/app.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    assert "EventSource" in js.text
    css = TestClient(web.app.app, base_url=BASE).get("/assets/app.css")  # no token needed
    assert css.status_code == 200 and "body" in css.text
    page = web.client.get("/").text
    # Nothing on the page is fetched from anywhere but this server.
    for text in (page, js.text, css.text):
        assert "http://" not in text.replace(BASE, "") and "https://" not in text
        assert "//cdn" not in text and "@import" not in text


# -- reading -------------------------------------------------------------------------------


def test_the_timeline_names_who_did_what_newest_first(web: Web) -> None:
    page = web.get("/api/timeline")
    items = page["items"]
    assert page["head"] == web.home.head
    assert items[0]["id"] == web.ids["adopted"] and items[0]["who"] == "person"
    firsts = [i["first_seq"] for i in items]
    assert firsts == sorted(firsts, reverse=True)
    mcp = [i for i in items if i["session"] == web.ids["mcp_session"] and i["kind"] == "memory"]
    assert mcp and mcp[0]["who"] == "MCP client Claude Desktop"
    agent = [i for i in items if i["session"] == web.ids["agent_session"]
             and i["kind"] == "memory"]
    assert {i["who"] for i in agent} == {"agent"}
    # Telemetry (recorded turns) only when asked for.
    assert not [i for i in items if i.get("type") == "session.turn_recorded"]
    everything = web.get("/api/timeline?all=1")["items"]
    assert [i for i in everything if i.get("type") == "session.turn_recorded"]


def test_the_timeline_text_filter_finds_what_memoir_log_grep_finds(web: Web) -> None:
    """A review run whose summary and shown change do not hold the words, but one of
    whose records does (issue 39 item 2: `q=psycopg` found nothing where `memoir log
    --grep psycopg` found 7 records): the run is on the timeline."""
    from memoir.engine.commit import Caller, Decision
    from memoir.events.memory import EntryAdded

    def saved(_state: object) -> Decision[None]:
        return Decision(events=[
            EntryAdded(target="memory", entry_id=f"e-{n:012x}", text=text)
            for n, text in enumerate(["The repo pins Python 3.11.",
                                      "Database access goes through Psycopg 3 pools.",
                                      "CI runs on two cores."], 0xabc)])

    by = Caller(actor="reviewer.memory", run="review-psy", run_kind="review",
                run_summary="background review of a session")
    web.home.commit(saved, by=by)
    found = [i["id"] for i in web.get("/api/timeline?q=psycopg")["items"]]
    assert found == ["review-psy"]
    log = [e for e in web.home.events() if "psycopg" in
           f"{e.type} {e.actor} {e.data}".casefold()]
    assert {e.run for e in log} == {"review-psy"}
    # Other filters still apply with it; words nothing holds find nothing.
    assert [i["id"] for i in web.get("/api/timeline?q=psycopg&actor=person")["items"]] == []
    assert web.get("/api/timeline?q=no-such-words-anywhere")["items"] == []


def test_the_timeline_filters(web: Web) -> None:
    def ids(query: str) -> list[str]:
        return [i["id"] for i in web.get(f"/api/timeline?{query}")["items"]]

    assert ids("actor=person") == [web.ids["adopted"]]
    assert ids("actor=user") == [web.ids["adopted"]]
    assert ids("kind=adopt") == [web.ids["adopted"]]
    mcp = ids(f"session={web.ids['mcp_session']}")
    assert mcp and all(i.startswith("seq-") for i in mcp)
    assert ids("q=Tuesdays") == [web.ids["adopted"]] or ids("q=hand%20edit")
    later = web.get("/api/timeline?since=2999-01-01")
    assert later["items"] == [] and later["scanned"] == 0 and later["next"] is None
    assert ids("until=2000-01-01") == []
    assert web.get("/api/timeline?since=not-a-date", status=400)["error"].startswith("since")
    assert "number" in web.get("/api/timeline?before=x", status=400)["error"]


def test_timeline_pages_cover_every_item_once(tmp_path: Path) -> None:
    path = tmp_path / "home"
    with memoir.open(path) as mem:
        s = mem.start_session()
        for i in range(23):
            s.call_tool("memory", {"action": "add", "target": "memory", "content": f"fact {i}"})
            if i % 4 == 0:
                mem.adopt()  # nothing to adopt: no run
    w = Web(path, {})
    seen: list[str] = []
    before: int | None = None
    while True:
        page = w.get("/api/timeline?limit=4" + (f"&before={before}" if before else ""))
        seen += [i["id"] for i in page["items"]]
        if page["next"] is None:
            break
        before = page["next"]
    everything = [i["id"] for i in w.get("/api/timeline?limit=500")["items"]]
    assert seen == everything and len(seen) == len(set(seen))
    assert sum(1 for i in seen if i.startswith("seq-")) >= 24  # 23 writes + the session
    w.home.close()


def test_a_page_reads_at_most_its_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    monkeypatch.setattr("memoir.web.timeline.SCAN_BUDGET", 5)
    path = tmp_path / "home"
    with memoir.open(path) as mem:
        s = mem.start_session()
        for i in range(12):
            s.call_tool("memory", {"action": "add", "target": "memory", "content": f"fact {i}"})
    w = Web(path, {})
    page = w.get("/api/timeline?kind=nothing-matches")
    assert page["items"] == [] and page["scanned"] == 5
    assert page["next"] == w.home.head - 4
    w.home.close()
    assert SCAN_BUDGET >= 10_000


def test_a_run_opens_to_its_diff_and_records(web: Web) -> None:
    run = web.get(f"/api/item/{web.ids['adopted']}")
    assert run["who"] == "person" and run["kind"] == "adopt"
    [memory_md] = [f for f in run["files"] if f["path"] == "memories/MEMORY.md"]
    assert "+Releases happen on Tuesdays." in memory_md["diff"]
    assert run["records"][0]["type"] == "run.started"
    assert any(r["data"].get("text") == "Releases happen on Tuesdays." for r in run["records"])
    first = web.get("/api/timeline?q=db-staging")["items"][-1]
    loose = web.get(f"/api/item/{first['id']}")
    assert loose["run"] is None and len(loose["records"]) == 1
    assert loose["files"] and loose["files"][0]["path"].startswith("memories/")


@pytest.mark.parametrize("item", ["run-that-does-not-exist", "seq-999999", "seq-x"])
def test_an_unknown_run_is_a_clear_404(web: Web, item: str) -> None:
    assert web.get(f"/api/item/{item}", status=404)["error"]


def test_memory_as_of_a_seq_is_the_prompt_a_session_pinned_there_saw(web: Web) -> None:
    session = web.get(f"/api/sessions/{web.ids['agent_session']}")
    then = web.get(f"/api/memory?seq={session['pinned_seq']}")
    assert then["blocks"] == session["blocks"] == web.home.session(
        web.ids["agent_session"]).prompt_blocks()
    assert "Releases happen on Tuesdays." not in str(then["entries"])
    now = web.get("/api/memory")
    assert now["seq"] == web.home.head
    assert "Releases happen on Tuesdays." in [e["text"] for e in now["entries"]["memory"]]
    assert web.get("/api/memory?seq=999999", status=404)["error"].startswith("seq 999999")
    assert web.get("/api/memory?seq=abc", status=400)["error"]
    # A date: the last record at or before it.
    assert web.get("/api/memory?at=2000-01-01")["seq"] == 0
    assert web.get("/api/memory?at=2999-01-01")["seq"] == web.home.head


def test_blame_names_who_wrote_each_entry(web: Web) -> None:
    blame = web.get("/api/memory/blame?target=memory")
    entries = {e["text"]: e["id"] for e in web.get("/api/memory")["entries"]["memory"]}
    adopted = blame["origins"][entries["Releases happen on Tuesdays."]]
    assert (adopted["who"], adopted["run"]) == ("person", web.ids["adopted"])
    mcp = blame["origins"][entries[next(t for t in entries if "MCP" in t)]]
    assert (mcp["who"], mcp["session"]) == ("MCP client Claude Desktop", web.ids["mcp_session"])
    assert blame["older"] == []
    history = web.get(f"/api/memory/history?target=memory&id="
                      f"{entries['Releases happen on Tuesdays.']}")
    assert [h["type"] for h in history["items"]] == ["memory.entry_added"]
    assert history["next"] is None
    assert web.get("/api/memory/blame?target=nope", status=400)["error"]


def test_skills_curator_sessions_insights_and_pending(web: Web) -> None:
    skill, placed = web.get("/api/skills")
    assert (skill["name"], skill["state"], skill["pinned"]) == ("deploy-staging", "active",
                                                                False)
    # A folder placed by hand and not adopted: listed after the journal's, as it will
    # be adopted (the web view adopts nothing by looking).
    assert (placed["name"], placed["journaled"], placed["provenance"], placed["path"]) == (
        "on-call", False, "user", "skills/on-call")
    detail = web.get("/api/skills/deploy-staging")
    assert detail["files"]["SKILL.md"].startswith("---\nname: deploy-staging")
    assert [v["type"] for v in detail["history"]] == ["skill.created"]
    assert detail["blame"][0]["actor"] == "agent"
    assert "no skill named" in web.get("/api/skills/nope", status=404)["error"]
    assert web.get("/api/curator") == []
    listed = web.get("/api/sessions")["sessions"]
    assert web.ids["agent_session"] in [s["session"] for s in listed]
    hits = web.get("/api/sessions?q=migrations%20staging")["hits"]
    assert hits[0]["session"] == web.ids["agent_session"]
    session = web.get(f"/api/sessions/{web.ids['agent_session']}")
    roles = [m["role"] for m in session["messages"]]
    assert roles.count("tool") == 4 and roles.count("user") == 4  # three turns
    call = next(m for m in session["messages"] if m.get("tool_calls"))
    assert call["tool_calls"][0]["function"]["name"] == "terminal"
    assert web.get("/api/sessions/s-nope", status=404)["error"]
    insights = web.get("/api/insights")
    assert [c["state"] for c in insights["candidates"]] == ["candidate"]
    # Its resolution is the call that then worked, not the question asked before it
    # (issue 39 item 4).
    resolution = insights["candidates"][0]["resolution"]
    assert "PGSSLMODE=require" in resolution and "VPN" not in resolution
    [held] = web.get("/api/pending")
    assert (held["id"], held["subsystem"]) == (web.ids["pending"], "skills")


# -- acting --------------------------------------------------------------------------------


def test_revert_is_a_dry_run_first_then_a_journaled_run_of_the_person(web: Web) -> None:
    before = journal_lines(web.path)
    preview = web.act("revert", {"run": web.ids["adopted"], "dry_run": True})
    assert preview["dry_run"] is True and preview["run"] is None
    assert [c["type"] for c in preview["compensations"]] == ["memory.entry_removed"]
    [would] = preview["files"]  # exactly what the revert would do to the files
    assert would["path"] == "memories/MEMORY.md"
    assert "-Releases happen on Tuesdays." in would["diff"] and "+Releases" not in would["diff"]
    assert journal_lines(web.path) == before
    done = web.act("revert", {"run": web.ids["adopted"], "dry_run": False})
    assert done["run"].startswith("revert-") and done["seqs"]
    web.home.flush()
    assert "Tuesdays" not in (web.path / "memories/MEMORY.md").read_text(encoding="utf-8")
    # The preview was exact: the run that was appended changed the files just so.
    assert web.get(f"/api/item/{done['run']}")["files"] == preview["files"]
    events = list(web.home.events(run=done["run"]))
    assert {e.actor for e in events} == {"user"}
    assert web.home.state.runs[web.ids["adopted"]].reverted_by == done["run"]
    again = web.act("revert", {"run": "no-such-run", "dry_run": True}, status=404)
    assert "no-such-run" in again["error"]


def test_a_conflicting_revert_is_refused_and_changes_nothing(web: Web) -> None:
    entries = {e["text"]: e["id"] for e in web.get("/api/memory")["entries"]["memory"]}
    session = web.home.start_session()
    session.call_tool("memory", {"action": "replace", "target": "memory",
                                 "old_text": "Releases happen on Tuesdays.",
                                 "content": "Releases happen on Wednesdays."})
    assert entries
    before = journal_lines(web.path)
    refused = web.act("revert", {"run": web.ids["adopted"], "dry_run": False}, status=409)
    assert refused["conflict"] is True and refused["conflicts"]
    assert journal_lines(web.path) == before


def test_pin_accept_reject_and_approve_are_runs_of_the_person(web: Web) -> None:
    pinned = web.act("pin", {"name": "deploy-staging"})
    assert pinned["run"].startswith("ui-") and pinned["pinned"] is True
    assert web.home.state.skills.skills["deploy-staging"].pinned
    assert web.act("unpin", {"name": "deploy-staging"})["run"]
    assert "not found" in web.act("pin", {"name": "ghost"}, status=404)["error"]
    signature = web.get("/api/insights")["candidates"][0]["signature"]
    accepted = web.act("candidate/accept", {"signature": signature})
    assert accepted["skill"] in web.home.state.skills.skills
    approved = web.act("pending/approve", {"ids": [web.ids["pending"]]})
    assert approved["approved"][0]["success"] is True
    assert "fix-psql" in web.home.state.skills.skills
    runs = [web.home.state.runs[r] for r in (pinned["run"], accepted["run"])]
    assert {r.actor for r in runs} == {"user"}
    assert "no pending write" in web.act("pending/reject", {"ids": ["nope"]}, status=404)["error"]
    assert web.act("pending/approve", {"ids": "all"}, status=400)["error"]
    assert web.act("frobnicate", {}, status=404)["error"].startswith("no action")


def test_a_malformed_change_is_refused_with_its_reason(web: Web) -> None:
    before = journal_lines(web.path)
    response = web.client.post("/api/act/pin", content=b"{not json",
                               headers={"X-Memoir-Token": TOKEN,
                                        "Content-Type": "application/json"})
    assert response.status_code == 400 and "not JSON" in response.json()["error"]
    assert "non-empty string" in web.act("pin", {"name": 3}, status=400)["error"]
    assert "true or false" in web.act("revert", {"run": web.ids["adopted"],
                                                 "dry_run": "no"}, status=400)["error"]
    assert journal_lines(web.path) == before


def test_a_read_only_home_shows_everything_and_changes_nothing(
        web: Web, seeded: tuple[Path, dict[str, str]]) -> None:
    web.home.close()
    ro = Web(web.path, seeded[1], readonly=True)
    before = journal_lines(web.path)
    assert ro.get("/api/status")["readonly"] is True
    assert ro.get("/api/timeline")["items"]
    assert ro.get("/api/sessions?q=migrations")["hits"]
    refused = ro.act("revert", {"run": seeded[1]["adopted"], "dry_run": False}, status=409)
    assert "read-only" in refused["error"]
    assert journal_lines(web.path) == before
    ro.home.close()


def test_a_home_whose_journal_is_in_postgresql(tmp_path: Path, pg_url: str) -> None:
    from click.testing import CliRunner

    from memoir.cli import cli

    path = tmp_path / "home"
    done = CliRunner().invoke(cli, ["--home", str(path), "init", "--journal", pg_url])
    assert done.exit_code == 0, done.output
    with memoir.open(path) as mem:
        with mem.start_session() as s:
            s.call_tool("memory", {"action": "add", "target": "memory", "content": "On pg."})
        pinned = mem.head
        added = CliRunner().invoke(cli, ["--home", str(path), "memory", "add", "Then this."])
        assert added.exit_code == 0, added.output
    w = Web(path, {})
    try:
        [newest, *_] = w.get("/api/timeline")["items"]
        assert newest["who"] == "person" and newest["change"].endswith("Then this.")
        assert "+Then this." in w.get(f"/api/item/{newest['run']}")["files"][0]["diff"]
        then = w.get(f"/api/memory?seq={pinned}")["entries"]["memory"]
        assert [e["text"] for e in then] == ["On pg."]
        reverted = w.act("revert", {"run": newest["run"], "dry_run": False})
        assert reverted["seqs"]
        assert [e["text"] for e in w.get("/api/memory")["entries"]["memory"]] == ["On pg."]
    finally:
        w.home.close()


def test_a_run_page_lists_at_most_its_cap_of_records(web: Web,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memoir.web.timeline.MAX_RECORDS", 1)
    run = web.get(f"/api/item/{web.ids['adopted']}")
    assert len(run["records"]) == 1 and run["events"] > 1


def test_a_span_diff_holding_one_state_is_the_two_views_diff(
        seeded: tuple[Path, dict[str, str]]) -> None:
    from memoir.oversight.audit import diff_span, diff_states

    with memoir.open(seeded[0], readonly=True) as mem:
        head = mem.head
        spans = [(a, b) for a in range(0, head + 1, 3) for b in range(a, head + 1, 5)]
        assert len(spans) >= 20
        for a, b in spans:
            assert diff_span(mem, a, b) == diff_states(mem.view(a), mem.view(b)), (a, b)


def test_a_websocket_gets_nothing(web: Web) -> None:
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect) as refused, \
            web.client.websocket_connect("/api/stream"):
        pass
    assert refused.value.code == 1008


@pytest.mark.parametrize(("actor", "platform", "client", "kind", "said"), [
    ("user", None, None, "cli", "person"),
    ("reviewer.memory", "cli", None, "review", "reviewer"),
    ("curator", None, None, "curator", "curator"),
    ("system", None, None, None, "memoir"),
    ("agent", "hermes:telegram", "hermes", None, "Hermes"),
    ("agent", "cli", None, "mirror", "Hermes"),
    ("agent", "mcp", "Claude Desktop", None, "MCP client Claude Desktop"),
    ("agent", "mcp", "unknown", None, "MCP client"),
    ("agent", "cli", None, None, "agent"),
    ("import", None, None, "import", "import"),
])
def test_who_names_the_actor_for_people(actor: str, platform: str | None, client: str | None,
                                        kind: str | None, said: str) -> None:
    from memoir.web.timeline import who

    assert who(actor, platform, client=client, kind=kind) == said


def test_an_entrys_history_is_paged_and_each_request_reads_a_bounded_window(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Round 5, reproduction 14: the history endpoint scanned the whole journal under the
    one lock.  Each request now reads at most SCAN_BUDGET records, WINDOW at a time, each
    window under the lock on its own; paging with ``next`` finds every record once."""
    from memoir.web import history

    home = memoir.open(tmp_path / "home")
    session = home.start_session()
    added = session.call_tool("memory", {"action": "add", "target": "memory",
                                         "content": "Deploys go out on Tuesdays."})
    assert added["success"], added
    [entry] = home.state.memory.memory.entries
    for i in range(30):  # the entry's own records, between a lot of other records
        session.call_tool("memory", {"action": "add", "target": "user",
                                     "content": f"Filler fact number {i} about nothing."})
        session.call_tool("memory", {"action": "remove", "target": "user",
                                     "old_text": f"Filler fact number {i}"})
        text = f"Deploys go out on Tuesdays, rev {i}."
        old = f"Deploys go out on Tuesdays, rev {i - 1}." if i else "on Tuesdays."
        done = session.call_tool("memory", {"action": "replace", "target": "memory",
                                            "old_text": old, "content": text})
        assert done["success"], done
    session.end()
    monkeypatch.setattr(history, "SCAN_BUDGET", 40)
    monkeypatch.setattr(history, "WINDOW", 7)
    windows: list[int] = []

    def locked(use: Any) -> Any:
        windows.append(1)
        return use()

    seqs: list[int] = []
    before = None
    pages = 0
    while True:
        page = history.entry_history(home, "memory", entry.id, before=before, limit=4,
                                     locked=locked)
        assert page["scanned"] <= 40 and len(page["items"]) <= 4
        seqs += [row["seq"] for row in page["items"]]
        pages += 1
        if page["next"] is None:
            break
        before = page["next"]
    truth = [e.seq for e in home.events(types=["memory.*"], reverse=True)
             if getattr(e.data, "entry_id", None) == entry.id]
    assert seqs == truth and len(truth) == 31
    assert pages >= home.head // 40  # the budget, not the limit, ended most pages
    assert len(windows) > pages * 2  # the lock was let go between windows
    with pytest.raises(memoir.ValidationError):
        history.entry_history(home, "nope", entry.id)
    home.close()


def test_the_server_takes_its_lock_per_window_of_a_history_scan(
        web: Web, monkeypatch: pytest.MonkeyPatch) -> None:
    """The route wires the windows to the server's one lock: a scan takes and lets go
    of it once per window, so any other request gets in between two windows."""
    import threading

    from memoir.web import history

    monkeypatch.setattr(history, "WINDOW", 5)
    real = web.app.lock
    taken: list[int] = []

    class Counting:
        def __enter__(self) -> None:
            real.acquire()
            taken.append(threading.get_ident())

        def __exit__(self, *exc: object) -> None:
            real.release()

    web.app.lock = Counting()  # type: ignore[assignment]
    entry = web.get("/api/memory")["entries"]["memory"][0]["id"]
    taken.clear()
    page = web.get(f"/api/memory/history?target=memory&id={entry}")
    head = page["head"]
    assert page["items"] and page["next"] is None
    assert len(taken) >= head // 5  # one per window (and one for the head)
    taken.clear()
    web.get("/api/status")
    assert len(taken) == 1


def test_one_search_finds_every_kind(web: Web) -> None:
    """Issue 39 item 2: one query over memory entries, skills, sessions (the episodic
    index) and runs and records (the timeline's text filter), grouped by kind, with
    the words matched named for the page to mark."""
    found = web.get("/api/search?q=staging")
    assert found["query"] == "staging" and "staging" in found["words"]
    assert [e["text"] for e in found["memory"]] == ["Staging database is db-staging:5432."]
    assert [s["name"] for s in found["skills"]] == ["deploy-staging"]
    assert found["skills"][0]["description"] == "how to deploy-staging"
    assert web.ids["agent_session"] in [h["session"] for h in found["sessions"]]
    hit = next(h for h in found["sessions"] if h["session"] == web.ids["agent_session"])
    assert "[" not in hit["excerpt"] and "staging" in hit["excerpt"].casefold()
    assert found["runs"] and all(k in found["runs"][0] for k in ("id", "who", "summary"))
    assert found["counts"] == {k: len(found[k]) for k in ("memory", "skills", "sessions",
                                                          "runs")}
    # Every word of the query, in any case; words no text holds find nothing.
    assert [e["id"] for e in web.get("/api/search?q=DATABASE%20staging")["memory"]] == \
        [e["id"] for e in found["memory"]]
    assert web.get("/api/search?q=staging%20nowhere-at-all")["memory"] == []
    assert "give something" in web.get("/api/search?q=%20", status=400)["error"]
    assert "longer than" in web.get("/api/search?q=" + "x" * 501, status=400)["error"]
