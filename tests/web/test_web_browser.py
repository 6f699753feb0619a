"""The web view in a real browser: Debian's Chromium, headless, driven by Playwright
(never a browser Playwright downloads).  Each page opens on a seeded home; a revert
goes through the page and lands in the journal and MEMORY.md; a write by another
process appears without a reload; screenshots are saved and checked.

Without Chromium the tests skip, unless ``MEMOIR_REQUIRE_BROWSER=1`` (``.ci/run`` sets
it, after installing Chromium) makes that a failure."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.seed import seed
from tests.web.server import UiServer

CHROMIUM = os.environ.get("MEMOIR_CHROMIUM") or shutil.which("chromium") or \
    shutil.which("chromium-browser")
if not CHROMIUM:
    if os.environ.get("MEMOIR_REQUIRE_BROWSER"):
        raise RuntimeError("MEMOIR_REQUIRE_BROWSER is set but no chromium is on PATH "
                           "(apt-get install chromium)")
    pytest.skip("no chromium on PATH (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")

#: How long the page may take to show something (a loaded machine; never a fixed wait).
WAIT_MS = 60_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM,
                                              args=["--no-sandbox", "--disable-gpu"])
        yield launched
        launched.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[UiServer, Path, dict[str, str]]]:
    home = tmp_path / "home"
    ids = seed(home)
    server = UiServer(home)
    yield server, home, ids
    assert server.stop() == 0, server.stderr()


@pytest.fixture
def page(browser: Any, served: tuple[UiServer, Path, dict[str, str]]) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    # Errors of memoir's own page only: a test that visits another local server (which
    # it then shuts down under the browser's favicon request or kept-alive connection)
    # is not judged by what that server's page logs.
    origin = served[0].base + "/"
    errors: list[str] = []

    def ours(url: str) -> bool:
        return url.startswith(origin)

    opened.on("pageerror",
              lambda exc: errors.append(str(exc)) if ours(opened.url) else None)
    opened.on("console",
              lambda m: errors.append(m.text)
              if m.type == "error" and ours(m.location.get("url") or opened.url) else None)
    opened.set_default_timeout(WAIT_MS)
    opened.goto(served[0].url)  # the page keeps the token in the tab, the URL loses it
    ready(opened)
    assert "token=" not in opened.url
    yield opened
    context.close()
    assert errors == []


def ready(page: Any, name: str | None = None) -> None:
    page.wait_for_selector("body[data-ready='1']" if name is None else
                           f"body[data-page='{name}'][data-ready='1']")


def visit(page: Any, base: str, route: str) -> None:
    page.goto(f"{base}/#/{route}")
    ready(page, route.split("/")[0].split("?")[0])


def shot(page: Any, path: Path) -> None:
    page.screenshot(path=str(path), full_page=True)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5_000, path
    kept = os.environ.get("MEMOIR_UI_SCREENSHOTS")
    if kept:
        Path(kept).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(kept) / path.name)


def test_every_page_opens_on_a_seeded_home(page: Any, served: Any, tmp_path: Path) -> None:
    server, _home, ids = served
    base = server.base
    visit(page, base, "timeline")
    rows = page.locator("#timeline-rows tr.item")
    assert rows.count() >= 5
    assert rows.first.get_attribute("data-id") == ids["adopted"]
    assert "MCP client" in page.inner_text("#timeline-rows")
    shot(page, tmp_path / "timeline.png")

    visit(page, base, f"item/{ids['adopted']}")
    assert "Releases happen on Tuesdays." in page.inner_text(".files")
    split = page.inner_text(".diff.split")  # side by side: git's notes are not lines
    assert "No newline at end of file" not in split and "+++" not in split
    page.click("#diff-mode")  # side by side -> unified
    page.wait_for_selector(".diff.unified")
    shot(page, tmp_path / "run.png")

    visit(page, base, "memory")
    text = page.inner_text("#target-memory")
    assert "Staging database is db-staging:5432." in text
    # Hostile text is shown as text, never run as markup.
    assert "<script>x</script>" in text
    assert page.locator("#target-memory script").count() == 0
    page.wait_for_function(
        "() => ![...document.querySelectorAll('[data-blame]')].some(c => c.textContent === '…')")
    assert "person" in page.inner_text("#target-memory")
    shot(page, tmp_path / "memory.png")

    visit(page, base, "skills")
    assert page.locator("#skills tr[data-skill='deploy-staging']").count() == 1
    assert "not journaled yet" not in page.inner_text("#skills tr[data-skill='deploy-staging']")
    assert "not journaled yet" in page.inner_text("#skills tr[data-skill='on-call']")
    shot(page, tmp_path / "skills.png")
    visit(page, base, "skill/on-call")
    assert "skills/on-call" in page.inner_text("#unjournaled")
    assert "1. Do it." in page.inner_text(".file")

    visit(page, base, "sessions?q=migrations")
    assert ids["agent_session"] in page.inner_text("#hits")
    visit(page, base, f"session/{ids['agent_session']}")
    transcript = page.inner_text("#transcript")
    assert "Run the migrations against staging." in transcript and "terminal" in transcript
    assert "memory: no block" in page.inner_text("main")  # it began before any write
    shot(page, tmp_path / "session.png")
    visit(page, base, f"session/{ids['mcp_session']}")
    frozen = page.inner_text("#frozen-memory")
    assert "Staging database is db-staging:5432." in frozen  # pinned after that write
    assert "Releases happen on Tuesdays." not in frozen  # the hand edit came later

    visit(page, base, "insights")
    assert page.locator("#candidates tr[data-candidate]").count() == 1
    fix = page.inner_text("#candidates tr[data-candidate] .resolution")
    assert "PGSSLMODE=require" in fix and "VPN" not in fix
    assert "candidate" in page.inner_text("#candidates tr[data-candidate]")
    assert "PGSSLMODE=require" in page.inner_text("#insights")
    shot(page, tmp_path / "insights.png")

    visit(page, base, "pending")
    assert page.locator(f"#pending tr[data-pending='{ids['pending']}']").count() == 1
    shot(page, tmp_path / "pending.png")


def test_a_revert_through_the_page_lands_in_the_journal_and_memory(
        page: Any, served: Any, tmp_path: Path) -> None:
    server, home, ids = served
    memory_md = home / "memories" / "MEMORY.md"
    assert "Releases happen on Tuesdays." in memory_md.read_text(encoding="utf-8")
    lines = (home / "journal.jsonl").read_bytes().count(b"\n")
    visit(page, server.base, f"item/{ids['adopted']}")
    page.click("#revert")
    page.wait_for_selector("#revert-preview")
    assert "memory.entry_removed" in page.inner_text("#revert-preview")
    assert "-Releases happen on Tuesdays." in page.inner_text("#revert-files")
    # The dry run appended nothing.
    assert (home / "journal.jsonl").read_bytes().count(b"\n") == lines
    shot(page, tmp_path / "revert-preview.png")
    page.click("#revert-confirm")
    page.wait_for_selector("#revert-done")
    run = page.inner_text("#revert-done a")
    assert run.startswith("revert-")
    records = [line for line in (home / "journal.jsonl").read_text(encoding="utf-8").splitlines()
               if f'"run":"{run}"' in line]
    assert records and all('"actor":"user"' in line for line in records)
    assert any('"memory.entry_removed"' in line for line in records)
    subprocess.run([sys.executable, "-m", "memoir", "--home", str(home), "rebuild"],
                   check=True, capture_output=True)
    assert "Tuesdays" not in memory_md.read_text(encoding="utf-8")


def test_pin_and_approve_through_the_page(page: Any, served: Any) -> None:
    server, home, ids = served
    visit(page, server.base, "skills")
    page.click("#skills tr[data-skill='deploy-staging'] button.pin")
    page.wait_for_function(
        "() => document.querySelector(\"#skills tr[data-skill='deploy-staging']\")"
        "?.textContent.includes('pinned')")
    visit(page, server.base, "pending")
    page.click(f"#pending tr[data-pending='{ids['pending']}'] button.approve")
    page.wait_for_selector("text=Nothing waits for approval")
    journal = (home / "journal.jsonl").read_text(encoding="utf-8")
    assert '"skill.pinned"' in journal and '"write.approved"' in journal


def test_a_write_by_another_process_appears_live(page: Any, served: Any,
                                                 tmp_path: Path) -> None:
    server, home, _ids = served
    visit(page, server.base, "timeline")
    page.wait_for_selector("#live.on")
    subprocess.run([sys.executable, "-m", "memoir", "--home", str(home), "memory", "add",
                    "Appeared without a reload."], check=True, capture_output=True)
    page.wait_for_selector("#timeline-rows >> text=Appeared without a reload.")
    visit(page, server.base, "memory")
    page.wait_for_selector("#live.on")
    subprocess.run([sys.executable, "-m", "memoir", "--home", str(home), "memory", "add",
                    "--target", "user", "Also live on the memory page."],
                   check=True, capture_output=True)
    page.wait_for_selector("#target-user >> text=Also live on the memory page.")
    shot(page, tmp_path / "live.png")


def test_another_local_server_gets_nothing_from_the_browser(page: Any, served: Any) -> None:
    """Round 5, reproduction 13: a 127.0.0.1 cookie went to every local port.  The page
    keeps its token in the tab's sessionStorage (its own origin, port included): the
    browser holds no cookie, and a server on another port sees no token in anything the
    browser sends it, nor in what its own page can read."""
    import http.server
    import threading

    heard: list[str] = []

    class Sniff(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            heard.append(str(self.headers))
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<!doctype html><title>other</title>")

        def log_message(self, *args: Any) -> None:
            pass

    sniff = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Sniff)
    threading.Thread(target=sniff.serve_forever, args=(0.05,), daemon=True).start()
    try:
        token = served[0].token
        assert page.evaluate("() => sessionStorage.getItem('memoir-token')") == token
        assert page.context.cookies() == []
        page.goto(f"http://127.0.0.1:{sniff.server_address[1]}/")
        stored = page.evaluate("() => JSON.stringify([document.cookie, "
                               "Object.entries(sessionStorage), Object.entries(localStorage)])")
        assert token not in stored
        assert heard and all(token not in headers for headers in heard)
    finally:
        sniff.shutdown()


def test_memory_and_skills_are_written_from_the_page(page: Any, served: Any,
                                                     tmp_path: Path) -> None:
    """Issue 39 item 1 in a browser: add, edit and remove an entry (the usage bar
    follows), create and edit a skill, forget an entry after its preview; each a run
    of actor user, on the timeline at once."""
    server, home, _ids = served
    page.on("dialog", lambda dialog: dialog.accept())  # the confirmations
    visit(page, server.base, "memory")
    before = page.get_attribute("#usage-user", "value")
    page.fill("#add-user textarea", "Reads the news in Portuguese.")
    page.click("#add-user button[type=submit]")
    row = "#target-user tr:has-text('Reads the news in Portuguese.')"
    page.wait_for_selector(row)
    assert int(page.get_attribute("#usage-user", "value") or 0) > int(before or 0)
    page.click(f"{row} button.edit")
    page.fill(f"{row} form.edit-entry textarea", "Reads the news in Portuguese and French.")
    # A write by another process meanwhile: the live page does not redraw the open
    # editor under the person's hands.
    page.wait_for_selector("#live.on")
    head = page.get_attribute("#live", "data-head") or "0"
    subprocess.run([sys.executable, "-m", "memoir", "--home", str(home), "memory", "add",
                    "Written elsewhere while editing."], check=True, capture_output=True)
    page.wait_for_function(f"() => Number(document.querySelector('#live').dataset.head || 0)"
                           f" > {int(head)}")
    assert page.input_value(f"{row} form.edit-entry textarea") == \
        "Reads the news in Portuguese and French."
    page.click(f"{row} form.edit-entry button[type=submit]")
    page.wait_for_selector("#target-user >> text=Reads the news in Portuguese and French.")
    page.click("#target-user tr:has-text('and French') button.remove")
    page.wait_for_function("() => !document.querySelector('#target-user')"
                           "?.textContent.includes('and French')")
    shot(page, tmp_path / "memory-edit.png")

    page.click("#target-memory tr:has-text('db-staging') button.forget")
    page.wait_for_function("() => !document.querySelector('#target-memory')"
                           "?.textContent.includes('db-staging')")

    visit(page, server.base, "skills")
    page.click("details.new-skill summary")
    page.fill("#new-skill-name", "rotate-keys")
    page.fill("#new-skill-content", "---\nname: rotate-keys\ndescription: rotate keys\n---\n"
              "# rotate-keys\n\n1. Rotate.\n")
    page.click("#new-skill button[type=submit]")
    page.wait_for_selector("h1 >> text=Skill rotate-keys")
    page.click("details.edit-skill summary")
    page.fill("#skill-content", "---\nname: rotate-keys\ndescription: rotate keys\n---\n"
              "# rotate-keys\n\n1. Rotate.\n2. Verify.\n")
    page.click("#skill-edit button[type=submit]")
    page.wait_for_selector(".file >> text=2. Verify.")

    visit(page, server.base, "timeline")
    page.wait_for_selector("#timeline-rows >> text=rotate-keys")
    journal = (home / "journal.jsonl").read_text(encoding="utf-8")
    for kind in ('"memory.entry_added"', '"memory.entry_replaced"', '"memory.entry_removed"',
                 '"journal.forgotten"', '"skill.created"', '"skill.content_set"'):
        assert kind in journal, kind
    assert "db-staging" not in journal


def test_search_box_and_keys(page: Any, served: Any) -> None:
    """Issue 39 items 2 and 3: `/` focuses the one search box; results come grouped
    by kind with the words in <mark>; j/k move through a list and Enter opens the
    row; `g m` goes to the memory page; `?` lists the keys."""
    server, _home, ids = served
    visit(page, server.base, "timeline")
    page.keyboard.press("/")
    assert page.evaluate("() => document.activeElement.id") == "search"
    page.keyboard.type("staging")
    page.keyboard.press("Enter")
    ready(page, "search")
    for group in ("memory", "skills", "sessions", "runs"):
        assert page.locator(f"#found-{group} li").count() >= 1, group
    marks = page.locator("#found-memory mark").all_inner_texts()
    assert marks and all(m.casefold() == "staging" for m in marks)
    assert "[" not in page.inner_text("#found-sessions")
    assert page.locator(f"#found-sessions li[data-session='{ids['agent_session']}'] mark"
                        ).count() >= 1
    page.keyboard.press("Escape")  # leaves the box (focus was given back to the page)
    page.evaluate("() => document.activeElement.blur()")

    visit(page, server.base, "timeline")
    page.keyboard.press("j")
    first = page.locator("#timeline-rows tr.item").first
    assert "selected" in (first.get_attribute("class") or "")
    page.keyboard.press("j")
    page.keyboard.press("k")
    assert "selected" in (first.get_attribute("class") or "")
    page.keyboard.press("Enter")
    ready(page, "item")
    page.keyboard.press("g")
    page.keyboard.press("m")
    ready(page, "memory")
    page.keyboard.press("?")
    assert "g s" in page.inner_text("#keys")
    page.keyboard.press("Escape")
    assert page.locator("#keys").count() == 0


PAGES = ("timeline", "memory", "skills", "skill/deploy-staging", "sessions", "insights",
         "pending", "search?q=staging")

#: The contrast and the labels of every page: WCAG AA for text (4.5:1), every field
#: labelled, every button named.  Run in the page; returns what fails.
AUDIT = (Path(__file__).parent / "audit.js").read_text(encoding="utf-8").split("\n", 1)[1]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page_at_three_widths_in_both_schemes(browser: Any, served: Any,
                                                    tmp_path: Path, scheme: str) -> None:
    """Issue 39 item 3: at 390, 768 and 1280 px wide, in the light and the dark scheme
    (the system's), no page scrolls sideways as a whole, the navigation is all
    reachable, and the accessibility audit above finds nothing; screenshots of each."""
    server, _home, _ids = served
    for width in (390, 768, 1280):
        context = browser.new_context(viewport={"width": width, "height": 844},
                                      color_scheme=scheme)
        try:
            page = context.new_page()
            page.set_default_timeout(WAIT_MS)
            page.goto(server.url)
            ready(page)
            for route in PAGES:
                visit(page, server.base, route)
                name = route.split("?")[0].replace("/", "-")
                overflow = page.evaluate(
                    "() => document.documentElement.scrollWidth - window.innerWidth")
                assert overflow <= 0, f"{name} at {width} px scrolls sideways by {overflow}"
                nav = page.evaluate("() => { const n = document.querySelector('nav');"
                                    " return n.scrollWidth <= n.clientWidth"
                                    " || getComputedStyle(n).overflowX === 'auto'; }")
                assert nav, f"the navigation is cut at {width} px"
                assert page.evaluate(AUDIT) == [], f"{name} at {width} px, {scheme}"
                # A missing value is never drawn as the word (the seeded home holds none).
                assert not re.search(r"\b(null|undefined)\b", page.inner_text("main")), name
                if route == "timeline" and width == 390:
                    # a phone reads the timeline as cards: nothing scrolls inside it either
                    inner = page.evaluate(
                        "() => { const t = document.querySelector('table.timeline');"
                        " return t.scrollWidth - t.clientWidth; }")
                    assert inner <= 0, f"the timeline scrolls sideways by {inner} px"
                    assert page.locator("table.timeline thead").is_hidden()
                bg = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
                assert (bg == "rgb(15, 18, 22)") == (scheme == "dark"), bg
                shot(page, tmp_path / f"{name}-{width}-{scheme}.png")
        finally:
            context.close()


def test_the_theme_toggle_overrides_the_system_and_is_kept(page: Any, served: Any) -> None:
    server, _home, _ids = served
    dark = "() => getComputedStyle(document.body).backgroundColor === 'rgb(15, 18, 22)'"
    assert not page.evaluate(dark)
    page.click("#theme")
    assert page.evaluate(dark)
    assert page.get_attribute("#theme", "aria-pressed") == "true"
    visit(page, server.base, "skills")  # kept across pages and reloads of this browser
    page.reload()
    ready(page)
    assert page.evaluate(dark)
    page.click("#theme")
    assert not page.evaluate(dark)


def test_a_refresh_that_lands_after_an_editor_opened_leaves_it_open(
        page: Any, served: Any) -> None:
    """A live refresh loads its data, and meanwhile the person opens the new-skill form:
    the refresh's drawing must not land over it (it closed the form under a browser
    test once).  The refresh's request is held until the form is open."""
    server, home, _ids = served
    visit(page, server.base, "skills")
    page.wait_for_selector("#live.on")
    held: list[Any] = []

    def hold(request: Any) -> None:
        held.append(request)

    page.route("**/api/skills", hold)
    subprocess.run([sys.executable, "-m", "memoir", "--home", str(home), "memory", "add",
                    "Written while the skills page is open."], check=True, capture_output=True)
    while not held:  # the live refresh asked for the skills: it is waiting on them now
        page.wait_for_timeout(20)
    page.click("details.new-skill summary")
    page.fill("#new-skill-name", "half-typed")
    held[0].continue_()
    page.unroute("**/api/skills", hold)
    page.wait_for_selector("body[data-deferred]")  # the refresh's drawing was dropped
    assert page.is_visible("#new-skill-name")
    assert page.input_value("#new-skill-name") == "half-typed"
