// memoir ui: the page. Plain DOM, no framework, nothing fetched but this server's API.
// Every text from the home (memory entries, skills, transcripts) is untrusted: it is
// only ever put on the page as text nodes, never as markup.
"use strict";

// The token comes once in the URL's fragment (#token=…, never sent to any server) or,
// from an older link, its query; it is kept in this tab's sessionStorage, which no
// other origin (another port on 127.0.0.1 included) can read, and dropped from the
// address bar. There is no cookie: a browser would send one to every local port.
const TOKEN = (() => {
  const given = new URLSearchParams(location.hash.startsWith("#token=") ? location.hash.slice(1)
    : location.search).get("token");
  if (given) {
    sessionStorage.setItem("memoir-token", given);
    history.replaceState(null, "", "/#/timeline");
  }
  return sessionStorage.getItem("memoir-token") || "";
})();
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const main = document.getElementById("main");
let status = { head: 0, readonly: false };
let current = { page: "", params: new URLSearchParams(), refresh: null };

// -- building the page ---------------------------------------------------------------

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// The page a live refresh is drawing again, until its drawing lands: if the person
// opened an editor or began typing while its data loaded, the drawing is dropped and
// the refresh tried again later (it would close the form under their hands).
let redrawing = null;

function show(...nodes) {
  if (redrawing !== null) {
    const page = redrawing;
    redrawing = null;
    if (page === current && editing()) {
      redrawing = "again";
      document.body.dataset.deferred = String(Number(document.body.dataset.deferred || 0) + 1);
      return;
    }
  }
  main.replaceChildren(...nodes.flat(Infinity).filter((n) => n !== null && n !== undefined && n !== false));
}

function toast(text, bad) {
  const el = document.getElementById("toast");
  el.textContent = text;
  el.className = bad ? "toast bad" : "toast";
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.hidden = true; }, 6000);
}

function when(ts) {
  return ts ? ts.slice(0, 19).replace("T", " ") : "-";
}

function link(hash, text, attrs) {
  return h("a", { href: hash, ...(attrs || {}) }, text);
}

function runLink(run) {
  return run ? link(`#/item/${encodeURIComponent(run)}`, run, { class: "mono" }) : "-";
}

function sessionLink(session) {
  return session ? link(`#/session/${encodeURIComponent(session)}`, session, { class: "mono" }) : "-";
}

// `text` with each of `words` (any case) in a <mark>: text nodes only, never markup.
function marked(text, words) {
  const wanted = (words || []).filter((w) => w && w.length > 0);
  if (!text || !wanted.length) return text || "";
  const pattern = new RegExp(`(${wanted.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`, "gi");
  return String(text).split(pattern).map((part, i) => (i % 2 ? h("mark", {}, part) : part));
}

function table(headers, rows, attrs) {
  return h("table", attrs || {},
    h("thead", {}, h("tr", {}, headers.map((x) => h("th", {}, x)))),
    h("tbody", {}, rows));
}

// -- talking to the server -------------------------------------------------------------

async function get(path) {
  const response = await fetch(path, { headers: AUTH, credentials: "omit" });
  const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

async function act(action, body) {
  const response = await fetch(`/api/act/${action}`, {
    method: "POST", credentials: "omit",
    headers: { ...AUTH, "Content-Type": "application/json", "X-Memoir-Token": TOKEN },
    body: JSON.stringify(body),
  });
  const result = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok && !result.conflict) throw new Error(result.error || `HTTP ${response.status}`);
  return result;
}

function failed(error) {
  show(h("div", { class: "error", id: "error" }, String(error.message || error)));
}

// -- diffs -------------------------------------------------------------------------------

function diffView(text, mode) {
  const lines = text.replace(/\n$/, "").split("\n");
  if (mode === "unified") {
    return h("pre", { class: "diff unified" }, lines.map((line) => {
      const kind = line.startsWith("+++") || line.startsWith("---") || line.startsWith("\\") ? "meta"
        : line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add"
        : line.startsWith("-") ? "del" : "ctx";
      return h("div", { class: kind }, line || " ");
    }));
  }
  // Side by side: removed lines on the left, added on the right, paired in order.
  const rows = [];
  let left = [], right = [];
  const flush = () => {
    for (let i = 0; i < Math.max(left.length, right.length); i++) {
      rows.push(h("tr", {},
        h("td", { class: left[i] !== undefined ? "del" : "none" }, left[i] ?? ""),
        h("td", { class: right[i] !== undefined ? "add" : "none" }, right[i] ?? "")));
    }
    left = []; right = [];
  };
  for (const line of lines) {
    // File names, and "\ No newline at end of file" (a note on the line before).
    if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("\\")) continue;
    if (line.startsWith("@@")) { flush(); rows.push(h("tr", { class: "hunk" }, h("td", { colspan: 2 }, line))); continue; }
    if (line.startsWith("-")) { left.push(line.slice(1)); continue; }
    if (line.startsWith("+")) { right.push(line.slice(1)); continue; }
    flush();
    rows.push(h("tr", {}, h("td", { class: "ctx" }, line.slice(1)), h("td", { class: "ctx" }, line.slice(1))));
  }
  flush();
  return h("table", { class: "diff split" }, h("tbody", {}, rows));
}

function filesView(files) {
  if (!files.length) return h("p", { class: "quiet" }, "No projected file changed (the run changed state only, or nothing).");
  let mode = localStorage.getItem("memoir.diff") || "split";
  const box = h("div", { class: "files" });
  const draw = () => box.replaceChildren(...files.map((f) =>
    h("section", { class: "file" }, h("h3", { class: "mono" }, f.path), diffView(f.diff, mode))));
  const toggle = h("button", { id: "diff-mode", onclick: () => {
    mode = mode === "split" ? "unified" : "split";
    localStorage.setItem("memoir.diff", mode);
    toggle.textContent = mode === "split" ? "Unified view" : "Side-by-side view";
    draw();
  } }, mode === "split" ? "Unified view" : "Side-by-side view");
  draw();
  return h("div", {}, toggle, box);
}

function recordsView(records) {
  return h("ol", { class: "records" }, records.map((r) =>
    h("li", {}, h("details", {},
      h("summary", {}, h("span", { class: "mono" }, `#${r.seq}`), " ", when(r.ts), " ", h("b", {}, r.actor), " ", r.summary),
      h("pre", { class: "json" }, JSON.stringify(r.data, null, 2))))));
}

// -- timeline ----------------------------------------------------------------------------

const FILTERS = [["q", "text"], ["actor", "actor or who"], ["kind", "kind"], ["session", "session"],
  ["since", "since (date)"], ["until", "until (date)"]];

async function timelinePage(params) {
  const form = h("form", { class: "filters", id: "filters", onsubmit: (e) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const [name] of FILTERS) { const v = form.elements[name].value.trim(); if (v) next.set(name, v); }
    if (form.elements.all.checked) next.set("all", "1");
    location.hash = `#/timeline?${next}`;
  } },
  FILTERS.map(([name, label]) => h("input", { name, placeholder: label, "aria-label": `Filter: ${label}`, value: params.get(name) || "" })),
  h("label", {}, h("input", { type: "checkbox", name: "all", checked: params.get("all") === "1" }), " telemetry"),
  h("button", { type: "submit" }, "Filter"));
  const body = h("tbody", { id: "timeline-rows" });
  const more = h("button", { id: "more", hidden: true }, "Older…");
  let next = null;
  const load = async (before) => {
    const query = new URLSearchParams(params);
    if (before) query.set("before", before);
    const page = await get(`/api/timeline?${query}`);
    if (!before) body.replaceChildren();
    for (const item of page.items) body.append(timelineRow(item));
    next = page.next;
    more.hidden = next === null;
    if (!page.items.length && !before) body.append(h("tr", {}, h("td", { colspan: 6, class: "quiet" }, current.params.toString() ? "Nothing matches these filters: clear one, or page back with Older." : "Nothing recorded yet: an agent's first memory write, `memoir memory add` or a session started through memoir appears here.")));
  };
  more.addEventListener("click", () => load(next).catch(failed));
  await load(null);
  show(h("h1", {}, "Timeline"), form,
    h("table", { class: "timeline" }, h("thead", {}, h("tr", {},
      ["When", "Who", "Kind", "Session", "What", "Events"].map((x) => h("th", {}, x)))), body), more);
  current.refresh = () => load(null);  // the newest page again, with the same filters
}

function timelineRow(item) {
  const reverted = item.reverted_by ? h("span", { class: "tag" }, `reverted by ${item.reverted_by}`) : null;
  // data-label: on a narrow screen each row is a card and its cells say what they are.
  return h("tr", { class: "item", "data-id": item.id },
    h("td", { class: "mono when" }, when(item.ts)),
    h("td", { class: "who-cell" }, h("span", { class: `who who-${item.who.replace(/\W/g, "")}` }, item.who),
      item.who !== item.actor ? h("span", { class: "quiet" }, ` ${item.actor}`) : null),
    h("td", { class: "kind" }, item.kind),
    h("td", { class: "session", "data-label": "session" }, sessionLink(item.session)),
    h("td", { class: "what" }, link(`#/item/${encodeURIComponent(item.id)}`, item.summary || item.id), " ", reverted,
      item.change && item.run ? h("div", { class: "change quiet" }, item.change) : null),
    h("td", { class: "num", "data-label": "events" }, item.events));
}

async function itemPage(id) {
  const item = await get(`/api/item/${encodeURIComponent(id)}`);
  const revertBox = h("div", { id: "revert-box" });
  const canRevert = item.run && !status.readonly;
  show(h("h1", {}, item.run ? `Run ${item.run}` : `Record #${item.first_seq}`),
    h("dl", { class: "facts" },
      h("dt", {}, "who"), h("dd", {}, `${item.who} (${item.actor})`),
      h("dt", {}, "kind"), h("dd", {}, item.kind),
      h("dt", {}, "when"), h("dd", {}, when(item.ts)),
      h("dt", {}, "session"), h("dd", {}, sessionLink(item.session)),
      h("dt", {}, "seqs"), h("dd", {}, `${item.first_seq}–${item.last_seq} (${item.events} record(s))`),
      h("dt", {}, "summary"), h("dd", {}, item.summary),
      item.reverted_by ? [h("dt", {}, "reverted by"), h("dd", {}, runLink(item.reverted_by))] : null,
      item.reverts ? [h("dt", {}, "reverts"), h("dd", {}, runLink(item.reverts))] : null),
    canRevert ? h("button", { id: "revert", onclick: () => previewRevert(item.run, revertBox) }, "Revert this run…") : null,
    revertBox,
    h("h2", {}, "What it changed"), filesView(item.files),
    h("h2", {}, "Records", item.records.length < item.events ? h("span", { class: "quiet" }, ` (the first ${item.records.length} of ${item.events})`) : null),
    recordsView(item.records));
}

async function previewRevert(run, box) {
  try {
    const plan = await act("revert", { run, dry_run: true });
    const lines = plan.compensations.map((c) => h("li", { class: "mono" }, `${c.type} ${c.data.name || c.data.entry_id || ""}`));
    const conflicts = plan.conflicts.map((c) => h("li", {}, `${c.entity} changed again at seq ${c.seqs.join(", ")}`));
    box.replaceChildren(h("div", { class: "preview", id: "revert-preview" },
      h("h3", {}, "Dry run: reverting would append"),
      lines.length ? h("ul", {}, lines) : h("p", {}, "no compensating record"),
      conflicts.length ? [h("p", { class: "bad" }, "Conflicts: later runs changed the same things, so the revert is refused:"), h("ul", {}, conflicts)] : null,
      plan.files && plan.files.length ? [h("h4", {}, "The files it would change"), h("div", { id: "revert-files" }, plan.files.map((f) =>
        h("section", { class: "file" }, h("h3", { class: "mono" }, f.path), diffView(f.diff, "unified"))))] : null,
      h("button", { id: "revert-confirm", class: "danger", disabled: conflicts.length > 0 || !lines.length,
        onclick: () => confirmRevert(run, box) }, "Confirm revert"),
      h("button", { onclick: () => box.replaceChildren() }, "Cancel")));
  } catch (error) { toast(error.message, true); }
}

async function confirmRevert(run, box) {
  try {
    const result = await act("revert", { run, dry_run: false });
    if (result.conflict) { toast(result.error, true); return; }
    box.replaceChildren(h("p", { class: "ok", id: "revert-done" }, `Reverted as run `, runLink(result.run),
      ` (${result.seqs.length} record(s) appended).`));
    toast(`reverted ${run} as ${result.run}`);
  } catch (error) { toast(error.message, true); }
}

// -- memory ------------------------------------------------------------------------------

async function memoryPage(params) {
  const query = new URLSearchParams();
  if (params.get("seq")) query.set("seq", params.get("seq"));
  if (params.get("at")) query.set("at", params.get("at"));
  const view = await get(`/api/memory?${query}`);
  const past = view.seq !== view.head;
  const seqInput = h("input", { type: "number", name: "seq", id: "seq", min: 0, max: view.head, value: view.seq, "aria-label": "As of seq" });
  const slider = h("input", { type: "range", id: "seq-range", min: 0, max: view.head, value: view.seq, "aria-label": "Seq",
    oninput: () => { seqInput.value = slider.value; }, onchange: () => { location.hash = `#/memory?seq=${slider.value}`; } });
  const at = h("input", { name: "at", id: "at", placeholder: "or a date: 2026-11-01, 2 days ago", "aria-label": "As of a date" });
  const form = h("form", { class: "timecontrol", onsubmit: (e) => {
    e.preventDefault();
    location.hash = at.value.trim() ? `#/memory?at=${encodeURIComponent(at.value.trim())}` : `#/memory?seq=${seqInput.value}`;
  } }, "As of seq ", seqInput, slider, at, h("button", { type: "submit" }, "Show"),
  past ? link("#/memory", "back to now") : null);
  const editable = !past && !status.readonly;
  const sections = ["memory", "user"].map((target) => {
    const rows = view.entries[target].map((e) => h("tr", { "data-entry": e.id },
      h("td", { class: "entry" }, e.text),
      h("td", { class: "blame", "data-blame": e.id }, "…"),
      h("td", { class: "actions" }, h("button", { class: "small", onclick: (ev) => entryHistory(target, e.id, ev.target) }, "history"),
        editable ? [
          h("button", { class: "small edit", onclick: (ev) => editEntry(target, e, ev.target.closest("tr")) }, "edit"),
          h("button", { class: "small remove", onclick: () => removeEntry(target, e) }, "remove"),
          h("button", { class: "small danger forget", onclick: () => forgetIt("entry", e.id, target, `the entry "${e.text.slice(0, 60)}" and every version of it`) }, "forget"),
        ] : null)));
    const use = view.usage[target];
    const file = target === "memory" ? "MEMORY.md" : "USER.md";
    return h("section", { id: `target-${target}` },
      h("h2", {}, file,
        h("span", { class: "quiet" }, ` ${view.entries[target].length} ${view.entries[target].length === 1 ? "entry" : "entries"}`)),
      h("div", { class: "usage" }, h("meter", { id: `usage-${target}`, min: 0, max: use.limit, value: use.chars, high: use.limit * 0.8, "aria-label": `${file} usage` }),
        h("span", { class: "quiet" }, ` ${use.percent}% — ${use.chars.toLocaleString("en")}/${use.limit.toLocaleString("en")} chars`)),
      rows.length ? table(["Entry", "Written by", ""], rows, { class: "entries" })
        : h("p", { class: "quiet" }, editable ? `Empty: add what the agent should know${target === "user" ? " about you" : ""} below, or let it save facts as you work.` : "empty"),
      editable ? addForm(target) : null);
  });
  const blocks = h("details", { class: "blocks", open: past },
    h("summary", {}, past ? `The prompt blocks a session pinned at seq ${view.seq} saw` : "The prompt blocks a session starting now sees"),
    ["memory", "user"].map((k) => view.blocks[k] ? h("pre", { class: "block", id: `block-${k}` }, view.blocks[k]) : h("p", { class: "quiet" }, `${k}: no block`)));
  show(h("h1", {}, past ? `Memory as of seq ${view.seq}` : "Memory now"), form, sections, blocks);
  for (const target of ["memory", "user"]) {
    get(`/api/memory/blame?target=${target}&seq=${view.seq}`).then((blame) => {
      for (const cell of document.querySelectorAll(`#target-${target} [data-blame]`)) {
        const o = blame.origins[cell.dataset.blame];
        cell.replaceChildren(o ? h("span", {}, h("b", {}, o.who), ` ${when(o.ts)} `, runLink(o.run || `seq-${o.seq}`), " ", sessionLink(o.session))
          : h("span", { class: "quiet" }, "older than the blame reads"));
      }
    }).catch((e) => toast(e.message, true));
  }
  current.refresh = past ? null : () => memoryPage(params);
}

// -- writing from the page: each a run of actor "user", with the CLI's rules --------------

function addForm(target) {
  const text = h("textarea", { name: "content", rows: 2, placeholder: `a new ${target === "memory" ? "MEMORY.md" : "USER.md"} entry`, "aria-label": `New ${target} entry` });
  return h("form", { class: "add-entry", id: `add-${target}`, onsubmit: async (e) => {
    e.preventDefault();
    if (!text.value.trim()) return;
    await write("memory/add", { target, content: text.value }, "added");
  } }, text, h("button", { type: "submit" }, "Add"));
}

function editEntry(target, entry, row) {
  const text = h("textarea", { rows: Math.min(8, entry.text.split("\n").length + 1), "aria-label": "Entry text" }, entry.text);
  const cell = row.querySelector(".entry");
  cell.replaceChildren(h("form", { class: "edit-entry", onsubmit: async (e) => {
    e.preventDefault();
    await write("memory/replace", { target, entry: entry.id, content: text.value }, "replaced");
  } }, text, h("button", { type: "submit" }, "Save"), h("button", { type: "button", onclick: () => route() }, "Cancel")));
  text.focus();
}

async function removeEntry(target, entry) {
  if (!confirm(`Remove this entry from ${target === "memory" ? "MEMORY.md" : "USER.md"}?\n\n${entry.text}\n\n(memoir revert undoes it; forget removes it for good.)`)) return;
  await write("memory/remove", { target, entry: entry.id }, "removed");
}

// One write: its run on success (the timeline has it at once), the CLI's words on
// refusal; then the page is drawn again, or the one at `next` (a hash) is opened.
async function write(action, body, done, next) {
  try {
    const result = await act(action, body);
    toast(result.run ? `${done} (run ${result.run})${result.usage ? ` — ${result.usage.percent}% used` : ""}` : result.message || "nothing changed");
    if (next && location.hash !== next) location.hash = next; else route();
    return result;
  } catch (error) { toast(error.message, true); return null; }
}

// Forget: a preview first (nothing changes), then the very plan shown is confirmed.
async function forgetIt(selector, value, target, what) {
  try {
    const body = { selector, value, ...(target ? { target } : {}) };
    const plan = await act("forget", body);
    const kept = plan.kept.length ? `\n${plan.kept.length} record(s) holding it are kept (see memoir forget).` : "";
    if (!confirm(`Forget ${what} for good?\n\nThis removes ${plan.records.length} journal record(s) and ${plan.bodies} recorded message(s); it cannot be undone (backups made before now still hold it).${kept}`)) return;
    const done = await act("forget", { ...body, confirm: plan.plan });
    toast(`forgot ${done.records.length} record(s) and ${done.bodies} message(s) (run ${done.run})`);
    route();
  } catch (error) { toast(error.message, true); }
}

// A page of an entry's records, newest first; "older" asks for the next page (each
// request reads a bounded part of the journal, so a long one takes a few clicks).
async function entryHistory(target, id, button, before) {
  const page = await get(`/api/memory/history?target=${target}&id=${encodeURIComponent(id)}`
    + (before ? `&before=${before}` : ""));
  const cell = button.closest("tr").querySelector(".entry");
  let list = cell.querySelector("ol.history");
  if (!list) { list = h("ol", { class: "history" }); cell.append(list); }
  list.append(...page.items.map((r) => h("li", {}, `#${r.seq} ${when(r.ts)} ${r.actor} ${r.type}: `,
    r.data.text || r.data.previous || "", " ", runLink(r.run))));
  cell.querySelector("button.older")?.remove();
  if (page.next) {
    cell.append(h("button", { class: "small older",
      onclick: (ev) => entryHistory(target, id, ev.target, page.next).catch((e) => toast(e.message, true)) },
      `older (below #${page.next})`));
  }
  button.disabled = true;
}

// -- skills ------------------------------------------------------------------------------

async function skillsPage() {
  const [skills, passes] = await Promise.all([get("/api/skills"), get("/api/curator")]);
  const rows = skills.map((s) => h("tr", { "data-skill": s.name, class: s.archived ? "archived" : "" },
    h("td", {}, link(`#/skill/${encodeURIComponent(s.name)}`, s.name),
      s.journaled === false ? h("span", { class: "tag", title: `on disk at ${s.path}; journaled at its next use or change` }, "not journaled yet") : null),
    h("td", {}, s.category || "-"), h("td", {}, s.state), h("td", {}, s.provenance), h("td", {}, s.created_by || "-"),
    h("td", {}, s.pinned ? "pinned" : "-"), h("td", { class: "num" }, s.use_count), h("td", { class: "num" }, s.view_count),
    h("td", { class: "num" }, s.patch_count), h("td", { class: "mono" }, when(s.last_activity_at)),
    h("td", {}, status.readonly || s.archived ? null : h("button", { class: "small pin", onclick: () => pin(s.name, !s.pinned) }, s.pinned ? "unpin" : "pin"))));
  show(h("h1", {}, "Skills"),
    rows.length ? table(["Name", "Category", "State", "Provenance", "Owner", "Pin", "Used", "Viewed", "Patched", "Last activity", ""], rows, { id: "skills" })
      : h("p", { class: "quiet" }, status.readonly ? "No skills yet." : "No skills yet: write one below, or let the agent save one when a task took several steps."),
    status.readonly ? null : newSkillForm(),
    h("h2", {}, "Curator passes"),
    passes.length ? h("div", { id: "passes" }, passes.map((p) => h("details", { class: "pass" },
      h("summary", {}, when(p.ts), " ", runLink(p.run), " ", p.summary, p.reverted_by ? h("span", { class: "tag" }, `reverted by ${p.reverted_by}`) : null),
      p.consolidated.length ? [h("h4", {}, "Consolidated"), h("ul", {}, p.consolidated.map((c) => h("li", {}, JSON.stringify(c))))] : null,
      p.pruned.length ? [h("h4", {}, "Pruned"), h("ul", {}, p.pruned.map((c) => h("li", {}, JSON.stringify(c))))] : null,
      h("h4", {}, "Skill changes"), recordsView(p.changes),
      Object.keys(p.report).length ? [h("h4", {}, "Report"), h("pre", { class: "json" }, JSON.stringify(p.report, null, 2))] : null)))
      : h("p", { class: "quiet" }, "The curator has not run."));
  current.refresh = skillsPage;
}

async function pin(name, on) {
  try {
    const result = await act(on ? "pin" : "unpin", { name });
    toast(result.run ? `${on ? "pinned" : "unpinned"} ${name} (run ${result.run})` : "nothing to change");
    route();
  } catch (error) { toast(error.message, true); }
}

function newSkillForm() {
  const name = h("input", { name: "name", id: "new-skill-name", placeholder: "name (lowercase, e.g. rotate-keys)", "aria-label": "Skill name" });
  const category = h("input", { name: "category", id: "new-skill-category", placeholder: "category (optional)", "aria-label": "Category" });
  const content = h("textarea", { name: "content", id: "new-skill-content", rows: 10, "aria-label": "SKILL.md" },
    "---\nname: \ndescription: \n---\n# \n\n1. \n");
  name.addEventListener("input", () => {
    content.value = content.value.replace(/^name: .*$/m, `name: ${name.value.trim()}`);
  });
  return h("details", { class: "new-skill" }, h("summary", {}, "New skill"),
    h("form", { id: "new-skill", onsubmit: async (e) => {
      e.preventDefault();
      const skill = name.value.trim();
      await write("skill/create", { name: skill, category: category.value.trim() || null, content: content.value }, "created", `#/skill/${encodeURIComponent(skill)}`);
    } }, h("div", { class: "filters" }, name, category), content, h("div", {}, h("button", { type: "submit" }, "Create"))));
}

function skillEditor(s) {
  const content = h("textarea", { id: "skill-content", rows: Math.min(30, s.files["SKILL.md"].split("\n").length + 2), "aria-label": "SKILL.md" }, s.files["SKILL.md"]);
  return h("details", { class: "edit-skill" }, h("summary", {}, "Edit SKILL.md"),
    h("form", { id: "skill-edit", onsubmit: async (e) => {
      e.preventDefault();
      await write("skill/edit", { name: s.name, content: content.value }, "saved");
    } }, content, h("div", {}, h("button", { type: "submit" }, "Save"))));
}

function forgetSkill(name) {
  return forgetIt("skill", name, null, `skill '${name}': every version of its files and the texts they held`);
}

async function archiveSkill(name) {
  const reason = prompt(`Archive skill '${name}'? It moves to skills/.archive/ (memoir skills restore brings it back).\n\nWhy:`, "archived by the user");
  if (reason === null) return;
  await write("archive", { name, reason: reason || "archived by the user" }, "archived");
}

async function skillPage(name) {
  const s = await get(`/api/skills/${encodeURIComponent(name)}`);
  const editable = !status.readonly && !s.archived && s.journaled !== false;
  show(h("h1", {}, `Skill ${s.name}`),
    editable ? h("div", { class: "filters" }, h("button", { id: "archive-skill", onclick: () => archiveSkill(s.name) }, "Archive"),
      h("button", { class: "danger", id: "forget-skill", onclick: () => forgetSkill(s.name) }, "Forget")) : null,
    editable ? skillEditor(s) : null,
    s.journaled === false ? h("p", { class: "quiet", id: "unjournaled" }, `Read from ${s.path}: the journal does not hold this skill yet; its next use or change brings it in.`) : null,
    h("dl", { class: "facts" }, ["path", "state", "provenance", "created_by", "pinned", "use_count", "view_count", "patch_count", "created_at", "last_activity_at", "archive_reason", "absorbed_into"]
      .map((k) => [h("dt", {}, k), h("dd", {}, String(s[k] ?? "-"))])),
    h("h2", {}, "Files"),
    Object.entries(s.files).map(([path, text]) => h("section", { class: "file" }, h("h3", { class: "mono" }, path), h("pre", { class: "block" }, text))),
    h("h2", {}, "History"),
    h("ol", { class: "records" }, s.history.map((v) => h("li", {}, h("details", {},
      h("summary", {}, `#${v.seq} ${when(v.ts)} `, h("b", {}, v.actor), ` ${v.type} ${v.summary} `, runLink(v.run)),
      v.patch ? diffView(v.patch, "unified") : null)))),
    h("h2", {}, "Blame of SKILL.md"),
    h("pre", { class: "blame-lines" }, s.blame.map((l) => h("div", {}, h("span", { class: "quiet" }, `${String(l.seq).padStart(6)} ${l.actor.padEnd(14)} `), l.text))));
}

// -- sessions ----------------------------------------------------------------------------

async function sessionsPage(params) {
  const q = params.get("q") || "";
  const data = await get(`/api/sessions${q ? `?q=${encodeURIComponent(q)}` : ""}`);
  const search = h("form", { class: "filters", onsubmit: (e) => {
    e.preventDefault();
    const value = e.target.elements.q.value.trim();
    location.hash = value ? `#/sessions?q=${encodeURIComponent(value)}` : "#/sessions";
  } }, h("input", { name: "q", id: "session-query", type: "search", placeholder: "search past sessions", "aria-label": "Search past sessions", value: q }), h("button", { type: "submit" }, "Search"));
  let list;
  if (data.hits) {
    list = data.hits.length ? table(["Session", "Score", "Last active", "Title", "Where"], data.hits.map((hit) => h("tr", { class: "hit" },
      h("td", {}, sessionLink(hit.session)), h("td", { class: "num" }, hit.score.toFixed(3)), h("td", { class: "mono" }, when(hit.last_active)),
      h("td", {}, hit.title || ""), h("td", {}, marked(hit.excerpt || hit.snippet, hit.words)))), { id: "hits" }) : h("p", { class: "quiet", id: "hits" }, "No session matches: try other words, or fewer.");
  } else {
    list = data.sessions.length ? table(["Session", "Last active", "Turns", "Platform", "Title"], data.sessions.map((s) => h("tr", {},
      h("td", {}, sessionLink(s.session)), h("td", { class: "mono" }, when(s.last_active)), h("td", { class: "num" }, s.turns),
      h("td", {}, s.platform), h("td", {}, s.title || ""))), { id: "sessions" }) : h("p", { class: "quiet" }, "No conversations recorded yet: sessions a host records (record_turn, the MCP server, the Hermes provider) or `memoir sessions import` brings in appear here.");
  }
  show(h("h1", {}, "Sessions"), search, list);
}

function said(m) {
  const parts = [];
  if (typeof m.content === "string") parts.push(h("div", { class: "content" }, m.content));
  else if (m.content) parts.push(h("pre", { class: "json" }, JSON.stringify(m.content, null, 2)));
  for (const call of m.tool_calls || []) {
    const fn = call.function || {};
    parts.push(h("div", { class: "toolcall" }, h("b", {}, `→ ${fn.name || "tool"}`), h("pre", { class: "json" }, fn.arguments || "")));
  }
  return h("li", { class: `msg ${m.role}` }, h("span", { class: "role" }, m.role === "tool" ? `tool ${m.name || ""} (${m.tool_call_id || ""})` : m.role),
    h("span", { class: "quiet" }, ` turn ${m.turn}`), parts);
}

async function sessionPage(id) {
  const s = await get(`/api/sessions/${encodeURIComponent(id)}`);
  show(h("h1", {}, `Session ${s.session_id}`),
    !status.readonly && s.messages.length ? h("div", { class: "filters" }, h("button", { class: "danger", id: "forget-session",
      onclick: () => forgetIt("session", s.session_id, null, "this conversation (its recorded messages, turns, summary, recalled context and reviews)") }, "Forget this conversation")) : null,
    h("dl", { class: "facts" }, h("dt", {}, "who"), h("dd", {}, `${s.who} (${s.actor})`), h("dt", {}, "platform"), h("dd", {}, s.platform),
      h("dt", {}, "started"), h("dd", {}, when(s.started_at)), h("dt", {}, "ended"), h("dd", {}, when(s.ended_at)),
      h("dt", {}, "turns"), h("dd", {}, s.turns), h("dt", {}, "pinned at"), h("dd", {}, link(`#/memory?seq=${s.pinned_seq}`, `seq ${s.pinned_seq}`))),
    s.summary ? [h("h2", {}, "Summary"), h("p", {}, s.summary)] : null,
    h("h2", {}, "The frozen prompt it saw"),
    ["memory", "user"].map((k) => s.blocks[k] ? h("pre", { class: "block", id: `frozen-${k}` }, s.blocks[k]) : h("p", { class: "quiet" }, `${k}: no block`)),
    h("h2", {}, "What its reviews saved"),
    s.reviews.length ? s.reviews.map((r) => h("div", { class: "review" }, runLink(r.run), " ", r.summary, recordsView(r.records)))
      : h("p", { class: "quiet" }, "No review of this session."),
    h("h2", {}, "Transcript"),
    h("ol", { class: "transcript", id: "transcript" }, s.messages.map(said)));
}

// -- search: everything at once, grouped by kind -----------------------------------------

async function searchPage(params) {
  const q = params.get("q") || "";
  const box = document.getElementById("search");
  if (box && box.value !== q) box.value = q;
  if (!q.trim()) {
    show(h("h1", {}, "Search"), h("p", { class: "quiet" }, "Type in the search box (press / to get there): memory entries, skills, past sessions, runs and records."));
    return;
  }
  const r = await get(`/api/search?q=${encodeURIComponent(q)}`);
  const words = r.words;
  const group = (id, title, items, render) => h("section", { id: `found-${id}` },
    h("h2", {}, title, h("span", { class: "quiet" }, ` ${items.length}`)),
    items.length ? h("ul", { class: "found" }, items.map(render)) : h("p", { class: "quiet" }, "nothing"));
  const total = Object.values(r.counts).reduce((a, b) => a + b, 0);
  show(h("h1", {}, `Search: ${r.query}`),
    total ? null : h("p", { class: "quiet", id: "found-none" }, "Nothing matches. Try fewer words, or another spelling; the timeline's filters search by who, kind and date."),
    group("memory", "Memory", r.memory, (e) => h("li", { "data-entry": e.id }, h("span", { class: "tag" }, e.target === "memory" ? "MEMORY.md" : "USER.md"), " ",
      link(`#/memory`, marked(e.text, words)))),
    group("skills", "Skills", r.skills, (s) => h("li", { "data-skill": s.name }, link(`#/skill/${encodeURIComponent(s.name)}`, marked(s.name, words)),
      s.description ? [" — ", marked(s.description, words)] : null, s.line ? h("div", { class: "quiet mono" }, marked(s.line, words)) : null)),
    group("sessions", "Sessions", r.sessions, (hit) => h("li", { "data-session": hit.session }, sessionLink(hit.session), ` ${when(hit.last_active)} `,
      hit.title ? h("b", {}, marked(hit.title, words)) : null, h("div", {}, marked(hit.excerpt || hit.snippet, words)))),
    group("runs", "Runs and records", r.runs, (item) => h("li", { "data-id": item.id }, link(`#/item/${encodeURIComponent(item.id)}`, item.id, { class: "mono" }),
      ` ${when(item.ts)} `, h("b", {}, item.who), " ", marked(item.summary, words), item.change ? h("div", { class: "quiet" }, marked(item.change, words)) : null)),
    r.runs_next ? h("p", { class: "quiet" }, `Runs: the ${r.runs_scanned.toLocaleString("en")} most recent records were read; `,
      link(`#/timeline?q=${encodeURIComponent(q)}`, "the timeline"), " pages further back.") : null);
}

// -- insights and pending writes -------------------------------------------------------

async function insightsPage() {
  const data = await get("/api/insights");
  const resolution = (i) => i.resolution ? h("span", { class: "resolution" }, i.resolution)
    : h("span", { class: "quiet" }, "no fix seen yet");
  const candidates = data.candidates.map((c) => h("tr", { "data-candidate": c.signature },
    h("td", { class: "mono" }, c.signature), h("td", {}, c.tool || "-"), h("td", {}, c.state), h("td", { class: "num" }, c.count), h("td", {}, resolution(c)),
    h("td", {}, status.readonly ? null : [
      h("button", { class: "small accept", onclick: () => decide("candidate/accept", { signature: c.signature }) }, "accept"),
      h("button", { class: "small reject", onclick: () => decide("candidate/reject", { signature: c.signature }) }, "reject")])));
  show(h("h1", {}, "Insights"),
    h("h2", {}, "Skill candidates"),
    candidates.length ? table(["Signature", "Tool", "State", "Seen", "What fixed it", ""], candidates, { id: "candidates" })
      : h("p", { class: "quiet" }, "No candidates: an error seen often enough, with the call that fixed it, becomes one (insights.candidate_after)."),
    h("h2", {}, "Every error signature"),
    data.insights.length ? table(["Signature", "Tool", "State", "Seen", "What fixed it", "Last seen"], data.insights.map((i) => h("tr", { "data-signature": i.signature },
      h("td", { class: "mono" }, i.signature, i.example ? h("div", { class: "quiet" }, i.example) : null), h("td", {}, i.tool || "-"), h("td", {}, i.state),
      h("td", { class: "num" }, i.count), h("td", {}, resolution(i)), h("td", { class: "mono" }, when(i.last_seen)))), { id: "insights" })
      : h("p", { class: "quiet" }, "No errors counted yet: failed tool calls in recorded turns are counted here."));
  current.refresh = insightsPage;
}

async function pendingPage() {
  const held = await get("/api/pending");
  show(h("h1", {}, "Pending writes"),
    held.length ? table(["Id", "Proposed", "By", "What", ""], held.map((w) => h("tr", { "data-pending": w.id },
      h("td", { class: "mono" }, w.id), h("td", { class: "mono" }, when(w.staged_at)), h("td", {}, w.proposed_by),
      h("td", {}, h("pre", { class: "block" }, w.summary)),
      h("td", {}, status.readonly ? null : [
        h("button", { class: "small approve", onclick: () => decide("pending/approve", { ids: [w.id] }) }, "approve"),
        h("button", { class: "small reject", onclick: () => decide("pending/reject", { ids: [w.id] }) }, "reject")]))), { id: "pending" })
      : h("p", { class: "quiet" }, "Nothing waits for approval (writes are held only with memory.write_approval or skills.write_approval on)."));
  current.refresh = pendingPage;
}

async function decide(action, body) {
  try {
    await act(action, body);
    toast(`${action.replace("/", " ")}: done`);
    route();
  } catch (error) { toast(error.message, true); }
}

// -- routing and the live stream ------------------------------------------------------

const PAGES = {
  timeline: (rest, params) => timelinePage(params),
  item: (rest) => itemPage(decodeURIComponent(rest)),
  memory: (rest, params) => memoryPage(params),
  skills: () => skillsPage(),
  skill: (rest) => skillPage(decodeURIComponent(rest)),
  sessions: (rest, params) => sessionsPage(params),
  session: (rest) => sessionPage(decodeURIComponent(rest)),
  insights: () => insightsPage(),
  pending: () => pendingPage(),
  search: (rest, params) => searchPage(params),
};

async function route() {
  const hash = location.hash.replace(/^#\/?/, "") || "timeline";
  const [path, query] = hash.split("?");
  const [page, ...rest] = path.split("/");
  current = { page, params: new URLSearchParams(query || ""), refresh: null };
  redrawing = null;  // a refresh still loading is not this page's drawing
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("active", a.dataset.page === page || a.dataset.page + "s" === page);
  const draw = PAGES[page];
  document.body.dataset.page = page;
  document.body.dataset.ready = "";
  if (!draw) { failed(new Error(`no page ${page}`)); return; }
  try { await draw(rest.join("/"), current.params); } catch (error) { failed(error); }
  document.body.dataset.ready = "1";
}

function editing() {
  if (main.querySelector("form.edit-entry, details.new-skill[open], details.edit-skill[open]")) return true;
  return [...main.querySelectorAll("textarea, input[type=text], input:not([type])")]
    .some((field) => field.value !== field.defaultValue);
}

// The live stream: server-sent events read with fetch (EventSource cannot send the
// Authorization header), reconnecting after the last seq seen.
function live() {
  const badge = document.getElementById("live");
  let pending = null;
  let seen = null;
  const handle = (type, data) => {
    if (type === "ready") {
      badge.textContent = `live · seq ${JSON.parse(data).head}`; badge.className = "live on";
      return;
    }
    if (type !== "record") return;
    const record = JSON.parse(data);
    seen = record.seq;
    status.head = record.seq;
    badge.textContent = `live · seq ${record.seq}`;
    badge.dataset.head = record.seq;
    clearTimeout(pending);
    pending = setTimeout(refresh, 100);
  };
  // A page being written in (an entry's editor open, a field changed) is not drawn
  // again under the person's hands: the refresh waits until they are done.
  const refresh = () => {
    if (editing()) { pending = setTimeout(refresh, 1000); return; }
    if (!current.refresh) return;
    redrawing = current;
    current.refresh().catch(failed).finally(() => {
      const again = redrawing === "again";
      redrawing = null;
      if (again) pending = setTimeout(refresh, 1000);
    });
  };
  const connect = async () => {
    try {
      const response = await fetch("/api/stream" + (seen === null ? "" : `?after=${seen}`),
        { headers: AUTH, credentials: "omit" });
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let type = "message";
          const data = [];
          for (const line of block.split("\n")) {
            if (line.startsWith("event: ")) type = line.slice(7);
            else if (line.startsWith("data: ")) data.push(line.slice(6));
          }
          if (data.length) handle(type, data.join("\n"));
        }
      }
    } catch (error) { /* shown below; the stream is tried again */ }
    badge.textContent = "reconnecting…"; badge.className = "live off";
    setTimeout(connect, 2000);
  };
  connect();
}

// -- keys: / search, j/k through a list, Enter opens, g then a letter goes to a page, ? --

const GO = { t: "timeline", m: "memory", s: "skills", e: "sessions", i: "insights", p: "pending", "/": "search" };
const KEYS = [["/", "search (Esc leaves the box)"], ["j / k", "next / previous row of the list"], ["Enter", "open the selected row"],
  ["g t", "timeline"], ["g m", "memory"], ["g s", "skills"], ["g e", "sessions"], ["g i", "insights"], ["g p", "pending"],
  ["?", "this list"]];

function rows() {
  return [...main.querySelectorAll("tbody tr, ul.found > li, ol.records > li, ol.transcript > li, #passes > details")];
}

function select(step) {
  const all = rows();
  if (!all.length) return;
  const at = all.findIndex((r) => r.classList.contains("selected"));
  const next = all[Math.max(0, Math.min(all.length - 1, at < 0 ? 0 : at + step))];
  for (const r of all) r.classList.remove("selected");
  next.classList.add("selected");
  next.setAttribute("tabindex", "-1");
  next.focus({ preventScroll: true });
  next.scrollIntoView({ block: "nearest" });
}

function keysHelp() {
  const old = document.getElementById("keys");
  if (old) { old.remove(); return; }
  const box = h("div", { id: "keys", role: "dialog", "aria-label": "Keyboard shortcuts", class: "keys" },
    h("h2", {}, "Keys"), h("dl", { class: "facts" }, KEYS.map(([k, what]) => [h("dt", {}, h("kbd", {}, k)), h("dd", {}, what)])),
    h("button", { onclick: () => box.remove() }, "Close"));
  document.body.append(box);
  box.querySelector("button").focus();
}

function keys() {
  const form = document.getElementById("search-form");
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const q = form.elements.q.value.trim();
    location.hash = q ? `#/search?q=${encodeURIComponent(q)}` : "#/search";
  });
  let go = false;
  document.addEventListener("keydown", (e) => {
    const typing = e.target.closest && e.target.closest("input, textarea, select, [contenteditable]");
    if (e.key === "Escape") {
      if (typing) e.target.blur();
      document.getElementById("keys")?.remove();
      return;
    }
    if (typing || e.metaKey || e.ctrlKey || e.altKey) return;
    if (go) {
      go = false;
      if (GO[e.key]) { e.preventDefault(); location.hash = `#/${GO[e.key]}`; }
      return;
    }
    if (e.key === "/") { e.preventDefault(); document.getElementById("search").focus(); }
    else if (e.key === "g") { go = true; setTimeout(() => { go = false; }, 1500); }
    else if (e.key === "j" || e.key === "k") { e.preventDefault(); select(e.key === "j" ? 1 : -1); }
    else if (e.key === "Enter") {
      const chosen = main.querySelector(".selected a[href]");
      if (chosen) { e.preventDefault(); chosen.click(); }
    } else if (e.key === "?") { e.preventDefault(); keysHelp(); }
  });
}

// -- the colour scheme: the system's, or the one the person chose (kept in this browser) --

function theme() {
  const root = document.documentElement;
  const chosen = localStorage.getItem("memoir-theme");
  if (chosen) root.dataset.theme = chosen;
  const button = document.getElementById("theme");
  const dark = () => (root.dataset.theme || (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light")) === "dark";
  const label = () => { button.textContent = dark() ? "Light" : "Dark"; button.setAttribute("aria-pressed", String(dark())); };
  button.addEventListener("click", () => {
    root.dataset.theme = dark() ? "light" : "dark";
    localStorage.setItem("memoir-theme", root.dataset.theme);
    label();
  });
  label();
}

(async () => {
  theme();
  keys();
  try { status = await get("/api/status"); } catch (error) { failed(error); return; }
  document.getElementById("home").textContent = status.home;
  if (status.readonly) document.body.classList.add("readonly");
  window.addEventListener("hashchange", route);
  await route();
  live();
})();
