// The console's links, lists at scale, finding and confirmations (after console.js, whose
// helpers it uses). The view is in the URL: ?merchant=&kind=&status=&id=&q=&sort=&offset=
// &object= and the section (or #delivery-N, #request-N, #run=ID) in the hash; reloading or
// pasting it reopens the same view. Object lists are counted, paged, sorted and searched by
// the server (GET /_emulator/merchants/{id}/objects/{kind}?offset=&sort=&q=); "Find by id"
// asks once (GET /_emulator/find?id=: a miss is an answer, not a 404 in the browser's log)
// and answers beside the box. Moves of the server clock and restoring a snapshot ask first,
// beside the button, saying what they affect.
"use strict";

const PAGE = 50;
const nav = { offset: 0, count: 0, shown: 0, rendered: 0, keep: { deliveries: 300, requests: 300 } };
const VIEW_KEYS = ["merchant", "kind", "status", "id", "q", "sort", "offset", "object"];

function viewParams(extra) {
  const fields = { merchant: state.merchant, kind: $("kind").value, status: $("status-filter").value,
    id: $("id-filter").value.trim(), q: $("object-search").value.trim(), sort: $("object-sort").value,
    offset: nav.offset ? String(nav.offset) : "", object: state.detail ? state.detail.id : "", ...(extra || {}) };
  if (fields.kind === "purchases") fields.kind = "";
  if (fields.sort === "newest") fields.sort = "";
  const query = new URLSearchParams();
  for (const key of VIEW_KEYS) if (fields[key]) query.set(key, fields[key]);
  return query;
}

function viewUrl(extra, hash) {
  const query = viewParams(extra).toString();
  return `${location.pathname}${query ? "?" + query : ""}${hash === undefined ? location.hash : hash}`;
}

function saveView() { history.replaceState(null, "", viewUrl()); }

// A link to open in a new tab or paste; a plain click stays on the page and does `open`.
function viewLink(extra, hash, open, ...children) {
  return h("a", { href: viewUrl(extra, hash), onclick: (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button) return;
    event.preventDefault();
    open();
  } }, ...children);
}

// Before the first load: the merchant and the filters the URL names.
function restoreView() {
  const query = new URLSearchParams(location.search);
  state.merchant = query.get("merchant") || "";
  if (query.get("kind") && [...$("kind").options].some((o) => o.value === query.get("kind"))) $("kind").value = query.get("kind");
  $("status-filter").value = query.get("status") || "";
  $("id-filter").value = query.get("id") || "";
  $("object-search").value = query.get("q") || "";
  if (query.get("sort")) $("object-sort").value = query.get("sort");
  nav.offset = Math.max(0, Number(query.get("offset")) || 0);
  return query.get("object");
}

// After the first load: the object the URL names, and the row its hash names.
async function reopenView(objectId) {
  if (objectId) {
    await findById(objectId);
  }
  showTarget();
}

function showTarget() {
  document.querySelectorAll("tr.target").forEach((row) => row.classList.remove("target"));
  const target = /^#((?:delivery|request)-\d+)$/.exec(location.hash);
  if (!target) return;
  const wait = (tries) => {
    const row = $(target[1]);
    if (row) { row.classList.add("target"); row.scrollIntoView(); } else if (tries) setTimeout(() => wait(tries - 1), 200);
  };
  wait(25);
}

// -- lists at scale ------------------------------------------------------------------------

function objectRow(kind, o) {
  return h("tr", { dataset: { id: o.id } },
    h("td", {}, Object.assign(viewLink({ object: o.id }, "#detail", () => openDetail(kind, o.id), h("code", {}, o.id)),
      { className: "open" })),
    h("td", { class: "status" }, o.status || ""),
    h("td", {}, summary(o), typeof reasonTag === "function" ? reasonTag(o) : null));  // console.js on main
}

async function loadObjectPage() {
  if (!state.merchant) {
    fill("object-list", [h("tr", {}, h("td", { colspan: 3 }, "Choose a merchant."))]);
    $("object-count").textContent = "";
    return;
  }
  const started = performance.now();
  const kind = $("kind").value;
  const query = new URLSearchParams({ limit: String(PAGE), offset: String(nav.offset) });
  for (const [name, id] of [["status", "status-filter"], ["id", "id-filter"], ["q", "object-search"], ["sort", "object-sort"]]) {
    if ($(id).value.trim()) query.set(name, $(id).value.trim());
  }
  const data = await call("GET", `/_emulator/merchants/${encodeURIComponent(state.merchant)}/objects/${kind}?${query}`);
  nav.count = data.count;
  nav.shown = data.objects.length;
  if (data.objects.length) fill("object-list", data.objects.map((o) => objectRow(kind, o)));
  else fill("object-list", [h("tr", {}, h("td", { colspan: 3 }, nav.offset ? "No more." : "None."))]);
  const first = data.objects.length ? nav.offset + 1 : 0;
  $("object-count").textContent = `${first}-${nav.offset + data.objects.length} of ${data.count}`;
  $("page-prev").disabled = nav.offset === 0;
  $("page-next").disabled = nav.offset + data.objects.length >= data.count;
  nav.rendered = performance.now() - started;
  $("object-list").dataset.ms = nav.rendered.toFixed(1);
}

function goTo(offset) {
  nav.offset = Math.max(0, offset);
  saveView();
  loadObjectPage().catch(failed);
}

$("page-prev").addEventListener("click", () => goTo(nav.offset - PAGE));
$("page-next").addEventListener("click", () => goTo(nav.offset + PAGE));
$("object-sort").addEventListener("change", () => goTo(0));

// The live feeds (deliveries, journal) show the newest; "Older" adds the 100 before them.
async function older(feed) {
  const list = state[feed];
  const said = $(`${feed}-older-said`);
  if (!list.length) { said.textContent = "None."; return; }
  const oldest = Math.min(...list.map((e) => e.id));
  const path = feed === "deliveries" ? "/_emulator/deliveries" : "/_emulator/requests";
  const data = await call("GET", `${path}?${merchantQuery()}before=${oldest}&limit=100`);
  const known = new Set(list.map((e) => e.id));
  const more = data[feed].filter((e) => !known.has(e.id));
  nav.keep[feed] = Math.max(nav.keep[feed], list.length + more.length);
  list.push(...more);
  if (feed === "deliveries") showDeliveries(); else showJournal();
  said.textContent = more.length ? `${list.length} shown, newest first.` : `No older ones: ${list.length} in all.`;
}
for (const feed of ["deliveries", "requests"]) {
  $(`${feed}-older`).addEventListener("click", () => older(feed).catch((error) => {
    $(`${feed}-older-said`).className = "error";
    $(`${feed}-older-said`).textContent = error.message;
  }));
}

// -- find by id: one request, the answer beside the box ------------------------------------

function findMiss(id, error) {
  const box = $("find-result");
  box.className = "error";
  box.textContent = error && error.status !== 404 ? error.message : `Nothing has the id ${id}.`;
}

async function findById(id) {
  $("find-result").textContent = "";
  $("find-result").className = "";
  try {
    const found = await call("GET", `/_emulator/find?id=${encodeURIComponent(id)}`);
    if (found.object) await openDetail(found.object.kind, found.object.id, found.object);  // no second read
    else findMiss(id);
  } catch (error) { findMiss(id, error); }
}

// -- confirmations -------------------------------------------------------------------------

// Ask beside the control that asked: "Yes" runs `then`; "Cancel" or Escape forgets it.
function confirmFirst(control, text, yes, then) {
  document.querySelectorAll(".confirm").forEach((box) => box.remove());
  const box = h("span", { class: "confirm", role: "alertdialog", "aria-label": text },
    h("span", { class: "confirm-text" }, text), " ",
    h("button", { type: "button", class: "confirm-yes", onclick: () => { box.remove(); then(); } }, yes), " ",
    h("button", { type: "button", class: "confirm-no", onclick: () => { box.remove(); control.focus(); } }, "Cancel"));
  box.addEventListener("keydown", (event) => { if (event.key === "Escape") { box.remove(); control.focus(); } });
  control.after(box);
  box.querySelector(".confirm-yes").focus();
}

// The server clock moves every merchant without a clock of its own: say how many.
function clockMoveWarning() {
  if (state.merchant && state.own) return "";
  const following = state.merchants.filter((m) => !m.clock.own).length;
  return `This moves the server clock: ${following} of ${state.merchants.length} merchant(s) follow it and their jobs run.`;
}

function askRestore(control, name, then) {
  confirmFirst(control, `Restoring ${name} replaces the state of every merchant (${state.merchants.length} now), objects, deliveries and clock included.`,
    `Yes, restore ${name}`, then);
}

// -- why: the merchant's active scenarios, by name, in the header ---------------------------

function showActiveScenarios(scenarios) {
  nav.scenarios = scenarios;
  const active = scenarios.filter((s) => !s.name.startsWith("outcome.")
    && s.active.some((a) => !a.merchant || a.merchant === state.merchant));
  fill("active-scenarios", active.map((s) => h("a", { href: "#scenarios", class: "chip", dataset: { scenario: s.name } },
    h("code", {}, s.name), s.active.some((a) => !a.merchant) ? " (everyone)" : "")));
  $("active-scenarios-label").classList.toggle("hidden", !active.length);
  if (state.detail && nav.detail) explain(nav.detail);
}

// Why an object is as it is: an outcome header made for it, or the scenarios active for its
// merchant (they decide outcomes and deliveries), each a link to the Scenarios section.
function explain(d) {
  nav.detail = d;
  if (state.detail) saveView();  // the object may have switched the merchant
  if (nav.explained !== d.id) {  // a newly opened object: its outcome activation may be new
    nav.explained = d.id;
    loadScenarios().catch(() => {});
  }
  const scenarios = nav.scenarios || [];
  const own = scenarios.find((s) => s.name === `outcome.${d.id}` && s.active.length);
  const active = scenarios.filter((s) => !s.name.startsWith("outcome.")
    && s.active.some((a) => !a.merchant || a.merchant === d.merchant));
  const parts = [];
  if (own) {
    parts.push(h("li", { class: "why-outcome" }, "Its outcome was chosen by the ",
      h("code", {}, "X-Emulator-Outcome"), " header of the request that created it (scenario ",
      h("a", { href: "#scenarios" }, h("code", {}, own.name)), "), not by a test card or the clock."));
  }
  if (active.length) {
    parts.push(h("li", { class: "why-scenarios" }, "Scenarios active for its merchant, which decide outcomes and deliveries: ",
      active.map((s, i) => [i ? ", " : "", h("a", { href: "#scenarios" }, h("code", {}, s.name))]), "."));
  }
  parts.push(...heldWhy(d));  // console_why.js: what holds took of it
  fill("detail-why", parts);
  $("detail-why").classList.toggle("hidden", !parts.length);
}

// -- links of deliveries and journal entries -----------------------------------------------

function entryLink(prefix, id) {
  // relative: it keeps the view of the moment it is followed or copied
  return h("a", { href: `#${prefix}-${id}`, class: "entry-link", title: "a link to this entry" }, String(id));
}

function copyLink() {
  const url = location.href;
  $("link-result").textContent = "";
  navigator.clipboard.writeText(url).then(() => { $("link-result").textContent = "Link copied."; },
    () => { $("link-result").textContent = url; });
}
$("copy-link").addEventListener("click", copyLink);
window.addEventListener("hashchange", showTarget);

for (const id of ["status-filter", "id-filter", "object-search"]) $(id).addEventListener("change", () => { nav.offset = 0; saveView(); });
document.addEventListener("click", (event) => {
  const link = event.target.closest && event.target.closest("nav a");
  if (link) setTimeout(saveView);
});

// Anchors clear the sticky header, however tall it wraps.
function fitHeader() {
  document.documentElement.style.setProperty("--header", `${document.querySelector("header").offsetHeight}px`);
}
fitHeader();
new ResizeObserver(fitHeader).observe(document.querySelector("header"));  // it wraps as it fills
