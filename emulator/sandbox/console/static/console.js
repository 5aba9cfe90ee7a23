// The QA console: it calls the documented control plane (/_emulator/...) and the API, nothing
// else. Live lists poll the feeds with ?after=ID (the entries after the last one shown).
"use strict";

const $ = (id) => document.getElementById(id);
const POLL_MS = 1000;
const KIND_OF = {
  purchase: "purchases", client: "clients", payout: "payouts", mandate: "mandates",
  collection: "collections", payment: "payments", billing_template: "billing_templates",
  billing_template_client: "billing_subscribers", subscriber: "billing_subscribers",
};
const state = {
  merchants: [], merchant: "", clock: null, own: false, detail: null,
  lastDelivery: 0, lastRequest: 0, deliveries: [], requests: [], busy: false,
};

class ApiError extends Error {
  constructor(status, body) {
    const error = body && body.error;
    let text = error ? (typeof error === "string" ? error : error.message || error.code) : "";
    if (!text && body && typeof body === "object") {
      text = body.message || (body.value && body.value.Message) || body.error_description || "";
      if (!text && !Array.isArray(body)) text = Object.entries(body).map(([k, v]) => `${k}: ${v}`).join("; ");
    }
    super(text || (typeof body === "string" && body) || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

async function call(method, path, body, headers) {
  const init = { method, headers: { ...(headers || {}) }, credentials: "same-origin" };
  if (typeof body === "string") {
    init.headers["Content-Type"] = "application/yaml";
    init.body = body;
  } else if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let data = text;
  try { data = JSON.parse(text); } catch (e) { /* not JSON */ }
  if (response.status === 401 && path.startsWith("/_emulator/")) askToken();
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// Replace a list's rows, unless they render the same (a poll keeps selections and open rows).
// Keyboard focus inside the list stays on the same control of the same row (found by its data
// attributes), so a live update does not throw a keyboard user back to the top of the page.
function fill(id, rows) {
  const box = $(id);
  const probe = document.createElement(box.tagName);
  probe.append(...rows);
  if (probe.innerHTML === box.innerHTML) return;
  const focus = focusPlace(box);
  box.replaceChildren(...probe.childNodes);
  if (focus) refocus(box, focus);
}

function rowKey(row) { return JSON.stringify(Object.entries(row.dataset || {})); }

function focusPlace(box) {
  const active = document.activeElement;
  if (!active || active === box || !box.contains(active)) return null;
  const path = [];
  let node = active;
  for (; node.parentElement !== box; node = node.parentElement) {
    path.unshift([...node.parentElement.children].indexOf(node));
  }
  return { key: rowKey(node), index: [...box.children].indexOf(node), path };
}

function refocus(box, { key, index, path }) {
  const rows = [...box.children];
  let node = key !== "[]" ? rows.find((row) => rowKey(row) === key) : rows[index];
  for (const i of path) node = node && node.children[i];
  if (node && typeof node.focus === "function") node.focus({ preventScroll: true });
}
function notice(text, bad) {
  const box = $("notice");
  box.textContent = text;
  box.className = bad ? "error" : "";
}
function failed(error) { notice(error.message || String(error), true); }
function pretty(value) { return JSON.stringify(value, null, 2); }
function short(iso) { return iso ? iso.replace("T", " ").replace(/\.\d+/, "").replace("Z", "") : ""; }
function merchantQuery() { return state.merchant ? `merchant=${encodeURIComponent(state.merchant)}&` : ""; }

// -- admin token ---------------------------------------------------------------------------

// The page behind the dialog is inert meanwhile: Tab stays in the dialog.
function behindDialog(inert) {
  for (const part of document.querySelectorAll("header, #notice, main")) part.inert = inert;
}

function askToken() {
  $("token-box").classList.remove("hidden");
  behindDialog(true);
  $("token").focus();
}

$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const token = encodeURIComponent($("token").value);
  document.cookie = `emulator_admin_token=${token}; path=/_emulator; SameSite=Strict`;
  $("token-box").classList.add("hidden");
  behindDialog(false);
  start();
});

// -- merchants -----------------------------------------------------------------------------

async function loadMerchants() {
  const data = await call("GET", "/_emulator/merchants");
  state.merchants = data.merchants;
  const select = $("merchant");
  const chosen = state.merchant;
  select.replaceChildren(h("option", { value: "" }, "(server clock, no merchant)"),
    ...data.merchants.map((m) => h("option", { value: m.company_id }, `${m.name} (${m.company_id})`)));
  select.value = chosen;
  fill("merchant-list", data.merchants.map((m) => h("tr",
    { dataset: { merchant: m.company_id }, class: m.company_id === chosen ? "chosen" : null },
    h("td", {}, h("a", { href: "#merchants", onclick: () => choose(m.company_id) }, m.name)),
    h("td", {}, h("code", {}, m.company_id)),
    h("td", {}, m.clock.own ? `own, ${m.clock.mode}` : "server"))));
  showCredentials();
}

function merchant() { return state.merchants.find((m) => m.company_id === state.merchant); }

function showCredentials() {
  const m = merchant();
  if (!m) { fill("credentials", []); return; }
  const origin = location.origin;
  const curl = `curl -H 'Authorization: Bearer ${m.api_key}' ${origin}/api/v1/purchases/`;
  const rows = [["company_id", m.company_id], ["brand_id", m.brand_id], ["API key", m.api_key],
    ["client_id", m.client_id], ["client_secret", m.client_secret],
    ["profiles", m.profiles.map((p) => `${p.profileCode} (id ${p.id})`).join(", ")]];
  fill("credentials", [h("h3", {}, `Credentials of ${m.name}`),
    h("dl", {}, rows.map(([k, v]) => [h("dt", {}, k), h("dd", {}, h("code", {}, v || "-"))])),
    h("p", {}, "Try it: ", h("code", { id: "curl" }, curl)),
    h("button", { id: "new-purchase", type: "button", onclick: newPurchase },
      "New test purchase (2 × 19.99 ZAR)")]);
}

async function newPurchase() {
  const m = merchant();
  const body = {
    client: { email: "qa@example.com" }, brand_id: m.brand_id,
    purchase: { currency: "ZAR", products: [{ name: "QA item", price: 1999, quantity: 2 }] },
    success_callback: `${location.origin}/_emulator/sink/${$("sink-name").value || "qa"}`,
  };
  try {
    const made = await call("POST", "/api/v1/purchases/", body, { Authorization: `Bearer ${m.api_key}` });
    notice(`Purchase ${made.id} created.`);
    await openDetail("purchases", made.id);
  } catch (error) { failed(error); }
}

async function choose(companyId) {
  if (companyId !== state.merchant) { nav.offset = 0; nav.keep = { deliveries: 300, requests: 300 }; }
  state.merchant = companyId;
  $("merchant").value = companyId;
  state.lastDelivery = 0; state.lastRequest = 0; state.deliveries = []; state.requests = [];
  closeDetail();
  saveView();
  await Promise.all([loadMerchants(), loadClock(), loadSchedule(), loadObjects(),
    pollDeliveries(), pollJournal(), loadScenarios()]).catch(failed);
}

$("merchant").addEventListener("change", (e) => choose(e.target.value));
$("merchant-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const body = {};
  if ($("merchant-name").value) body.name = $("merchant-name").value;
  if ($("merchant-own").checked) body.clock = {};
  try {
    const made = await call("POST", "/_emulator/merchants", body);
    state.merchants.push(made);
    notice(`Merchant ${made.name} created.`);
    await choose(made.company_id);
  } catch (error) { failed(error); }
});

// -- clock and schedule --------------------------------------------------------------------

function clockBase() {
  return state.merchant && state.own ? `/_emulator/merchants/${state.merchant}/clock` : "/_emulator/clock";
}

async function loadClock() {
  const clock = state.merchant
    ? await call("GET", `/_emulator/merchants/${state.merchant}/clock`)
    : await call("GET", "/_emulator/clock");
  state.clock = clock;
  state.own = Boolean(clock.own);
  for (const id of ["clock-now", "clock-now-2"]) $(id).textContent = clock.now;
  for (const id of ["clock-mode", "clock-mode-2"]) $(id).textContent = clock.mode;
  $("clock-own").textContent = state.merchant ? (state.own ? "(merchant's own)" : "(server clock)") : "";
  $("clock-of").textContent = state.merchant && state.own ? "of this merchant" : "of the server";
}

// A move of the server clock moves every merchant that follows it: it asks first.
function advance(body, control) {
  const warning = clockMoveWarning();
  if (warning && control) return confirmFirst(control, warning, "Yes, move it", () => moveClock(body));
  return moveClock(body);
}

async function moveClock(body) {
  $("advance-result").className = "";
  try {
    const done = await call("POST", `${clockBase()}/advance`, body);
    const said = `Now ${done.now}; ${done.jobs_run} job(s) ran.`;
    $("advanced").textContent = said;
    $("advance-result").textContent = said;
    await refresh();
  } catch (error) {
    $("advance-result").className = "error";
    $("advance-result").textContent = error.message;
  }
}

for (const button of document.querySelectorAll("[data-advance]")) {
  button.addEventListener("click", () => {
    const how = button.dataset.advance;
    if (how === "next") return advance({ to: "next" }, button);
    if (how === "month") {
      const to = new Date(state.clock.now);
      to.setUTCMonth(to.getUTCMonth() + 1);
      return advance({ to: to.toISOString() }, button);
    }
    const [unit, n] = how.split(":");
    return advance({ [unit]: Number(n) }, button);
  });
}
$("advance-to").addEventListener("submit", (event) => {
  event.preventDefault();
  const value = $("advance-date").value;
  if (value) advance({ to: `${value.length === 16 ? value + ":00" : value}Z` }, $("advance-to").querySelector("button"));
});
for (const action of ["freeze", "resume"]) {
  $(action).addEventListener("click", async () => {
    try { await call("POST", `${clockBase()}/${action}`, {}); await loadClock(); } catch (e) { failed(e); }
  });
}

function objectLink(type, id) {
  const kind = KIND_OF[type];
  if (!id) return "";
  if (!kind) return h("code", {}, id);
  return viewLink({ object: id }, "#detail", () => openDetail(kind, id), h("code", {}, id));
}

function jobRows(jobs) {
  return jobs.map((job) => h("tr", {}, h("td", {}, h("code", {}, job.due)), h("td", {}, job.kind),
    h("td", {}, job.object_type ? [`${job.object_type} `, objectLink(job.object_type, job.object_id)] : ""),
    h("td", {}, job.description)));
}

async function loadSchedule() {
  const path = state.merchant ? `/_emulator/merchants/${state.merchant}/schedule` : "/_emulator/schedule";
  const data = await call("GET", `${path}?limit=50`);
  fill("schedule-list", jobRows(data.jobs));
}

// -- objects -------------------------------------------------------------------------------

function summary(o) {
  if (o.purchase && o.purchase.total !== undefined) return `${(o.purchase.total / 100).toFixed(2)} ${o.purchase.currency}`;
  if (o.amount !== undefined && o.currency) return `${(o.amount / 100).toFixed(2)} ${o.currency}`;
  if (o.amountCents !== undefined) return `R ${(o.amountCents / 100).toFixed(2)}`;
  return o.email || o.title || o.externalReference || o.reference || "";
}

// Why an object is in its status, said once: a bank code and its text, a mandate's reason, a
// card's decline (its message without the "(reason: X)" tail, and its code).
function reasonOf(o) {
  if (!o || typeof o !== "object") return "";
  if (o.reasonCode) return `${o.reasonCode} ${o.reason || ""}`.trim();
  if (o.reason) return o.reason;
  const last = ((o.transaction_data && o.transaction_data.attempts) || [])[0];
  if (!last || last.successful || !last.error) return "";
  const message = (last.error.message || "").replace(` (reason: ${last.error.code})`, "");
  return message.includes(last.error.code) ? message : `${message} (${last.error.code})`;
}
function reasonTag(o) { const why = reasonOf(o); return why ? h("span", { class: "reason error" }, ` ${why}`) : null; }

async function loadObjects() { await loadObjectPage(); }  // console_nav.js: paged, counted

$("object-filter").addEventListener("submit", (e) => { e.preventDefault(); nav.offset = 0; saveView(); loadObjects().catch(failed); });
$("kind").addEventListener("change", () => { nav.offset = 0; saveView(); loadObjects().catch(failed); });

function closeDetail() { state.detail = null; $("detail").classList.add("hidden"); saveView(); }

async function openDetail(kind, id, read) {  // read: the detail, when already read
  state.detail = { kind, id };
  $("detail").classList.remove("hidden");
  $("action-result").textContent = "";
  $("kind").value = kind;
  saveView();
  await loadDetail(true, read);
  $("detail").scrollIntoView();
  $("detail-title").focus({ preventScroll: true });  // Tab goes on to its actions
}

function took(d) { return d.duration_ms === null ? "" : d.duration_ms.toFixed(1); }

function result(d) {
  if (d.success) return `${d.status} ok`;
  return d.status ? `${d.status} failed` : `no answer: ${d.error}`;
}

async function loadDetail(fresh, read) {
  const { kind, id } = state.detail;
  const d = read || await call("GET", `/_emulator/objects/${kind}/${encodeURIComponent(id)}`);
  if (!state.detail || state.detail.id !== id) return;
  if (d.merchant !== state.merchant) { state.merchant = d.merchant; $("merchant").value = d.merchant; loadMerchants().catch(failed); loadClock().catch(failed); }
  $("detail-kind").textContent = kind.replace(/s$/, "").replace("_", " ");
  $("detail-id").textContent = d.id;
  $("detail-status").textContent = d.status || "";
  $("detail-status").dataset.status = d.status || "";
  const json = pretty(d.object);
  if ($("detail-json").textContent !== json) $("detail-json").textContent = json;
  const payloadOf = (c) => (d.events.find((e) => e.at === c.at && e.event_type === c.event) || {}).payload;
  fill("detail-history", d.history.map((c) => h("li", {}, h("code", {}, c.at), " ", h("strong", {}, c.status), ` (${c.event})`,
    reasonTag(payloadOf(c)))));
  fill("detail-events", d.events.map((e) => h("li", {}, h("code", {}, e.at), ` ${e.event_type}`)));
  explain(d);  // console_nav.js: what made it so (an outcome header, active scenarios)
  fill("detail-jobs", d.jobs.length ? d.jobs.map((j) => h("li", {}, h("code", {}, j.due), ` ${j.kind}: ${j.description}`)) : [h("li", {}, "None pending.")]);
  fill("detail-deliveries", d.deliveries.map((a) => h("tr", {}, h("td", {}, a.id), h("td", {}, h("code", {}, a.at)),
    h("td", {}, a.event_type, copyTag(a)), h("td", {}, a.url), h("td", {}, result(a)), h("td", { class: "ms" }, took(a)))));
  if (fresh || state.detail.shown !== d.status) actions(kind, d);  // what its state allows
  state.detail.shown = d.status;
}

// The actions its state allows, the others disabled with the reason (console_create.js).
function actions(kind, d) { fill("actions", objectActions(kind, d)); }

// The bank interface's own trigger, with a token of the merchant's OAuth client.
async function bankToken() {
  const m = merchant();
  const basic = btoa(`${m.client_id}:${m.client_secret}`);
  const response = await fetch("/oauth2/token", { method: "POST", body: "grant_type=client_credentials",
    headers: { Authorization: `Basic ${basic}`, "Content-Type": "application/x-www-form-urlencoded" } });
  const body = await response.json();
  if (!response.ok) throw new ApiError(response.status, body);
  return body.access_token;
}

async function triggerCallback(collectionId) {
  try {
    const token = await bankToken();
    const status = JSON.parse($("detail-json").textContent).status;
    const done = await call("POST", `/v2/callback/collection/eft/${encodeURIComponent(collectionId)}/`,
      { collectionStatus: status, callbackVersion: "V2" }, { Authorization: `Bearer ${token}` });
    $("action-result").textContent = `Callback of ${done.collectionStatus} sent to ${done.callbacks} URL(s).`;
  } catch (error) {
    $("action-result").textContent = `Callback: ${error.message}`;
  }
  await loadDetail(false).catch(failed);
}

$("copy-json").addEventListener("click", async () => {
  const text = $("detail-json").textContent;
  try { await navigator.clipboard.writeText(text); notice("JSON copied."); } catch (e) {
    window.getSelection().selectAllChildren($("detail-json"));
    notice("Selected: press Ctrl+C to copy.");
  }
});

$("find-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const id = $("find").value.trim();
  if (id) findById(id);  // console_nav.js: one request, the answer beside the box
});

// -- deliveries and journal (live) ---------------------------------------------------------

function deliveryShown(d) {
  const object = $("dfilter-object").value.trim(), event = $("dfilter-event").value.trim();
  const outcome = $("dfilter-outcome").value;
  return (!object || d.object_id.includes(object)) && (!event || d.event_type.includes(event))
    && (!outcome || (outcome === "exhausted" ? !d.success && d.attempt >= 9 : (outcome === "ok") === d.success));
}

function deliveryRow(d) {
  const more = h("details", {}, h("summary", {}, "headers and body"),
    h("pre", {}, pretty(d.headers)), h("pre", {}, prettyBody(d.body)));
  return h("tr", { id: `delivery-${d.id}`, dataset: { delivery: d.id, outcome: d.success ? "ok" : "failed" } },
    h("td", {}, entryLink("delivery", d.id)), h("td", {}, h("code", {}, d.at)), h("td", {}, d.event_type, copyTag(d)),
    h("td", {}, objectLink(d.object_type, d.object_id)), h("td", {}, d.url, more),
    h("td", { class: d.success ? "ok" : "error" }, result(d)), h("td", { class: "ms" }, took(d)),
    h("td", {}, h("button", { type: "button", class: "resend", onclick: () => resend(d.id) }, "Re-send")));
}

function prettyBody(text) { try { return pretty(JSON.parse(text)); } catch (e) { return text; } }

function showDeliveries() { fill("delivery-list", state.deliveries.filter(deliveryShown).map(deliveryRow)); }

async function pollDeliveries() {
  const path = state.lastDelivery
    ? `/_emulator/deliveries?${merchantQuery()}after=${state.lastDelivery}&limit=200`
    : `/_emulator/deliveries?${merchantQuery()}limit=100`;
  const data = await call("GET", path);
  // two polls may overlap (the timer's, and one after a re-send): keep each attempt once
  const known = new Set(state.deliveries.map((d) => d.id));
  const found = (state.lastDelivery ? data.deliveries.reverse() : data.deliveries).filter((d) => !known.has(d.id));
  if (!found.length && state.lastDelivery) return;
  state.deliveries = [...found, ...state.deliveries].slice(0, nav.keep.deliveries);  // console_nav.js: Older
  if (state.deliveries.length) state.lastDelivery = Math.max(state.lastDelivery, state.deliveries[0].id);
  showDeliveries();
}

async function resend(id) {
  try {
    const done = await call("POST", `/_emulator/deliveries/${id}/resend`, {});
    notice(`Re-sent as message ${done.message_id}.`);
    await pollDeliveries();
  } catch (error) { failed(error); }
}

for (const id of ["dfilter-object", "dfilter-event", "dfilter-outcome"]) $(id).addEventListener("input", showDeliveries);
$("dfilter-outcome").addEventListener("change", showDeliveries);  // some ways of choosing fire only this
$("delivery-filter").addEventListener("submit", (e) => e.preventDefault());

function requestShown(r) {
  const path = $("jfilter-path").value.trim(), status = $("jfilter-status").value.trim();
  return (!path || r.path.includes(path)) && (!status || String(r.status).startsWith(status));
}

function showJournal() {
  fill("journal-list", state.requests.filter(requestShown).map((r) => h("tr", { id: `request-${r.id}`, dataset: { request: r.id } },
    h("td", {}, entryLink("request", r.id)), h("td", {}, h("code", {}, r.time)),
    h("td", {}, `${r.method} ${r.path}${r.query ? "?" + r.query : ""}`,
      r.note ? h("p", { class: "note" }, r.note) : null,
      (r.warnings || []).length ? h("ul", { class: "warnings", "aria-label": "keys the platform ignores" },
        r.warnings.map((w) => h("li", {}, w))) : null,
      h("details", {}, h("summary", {}, "bodies"), h("pre", {}, prettyBody(r.request_body)), h("pre", {}, prettyBody(r.response_body)))),
    h("td", { class: r.status < 400 ? "ok" : "error" }, r.status), h("td", {}, r.duration_ms.toFixed(1)))));
}

async function pollJournal() {
  const path = state.lastRequest
    ? `/_emulator/requests?${merchantQuery()}after=${state.lastRequest}&limit=200`
    : `/_emulator/requests?${merchantQuery()}limit=100`;
  const data = await call("GET", path);
  const known = new Set(state.requests.map((r) => r.id));  // overlapping polls: each entry once
  const found = (state.lastRequest ? data.requests.reverse() : data.requests).filter((r) => !known.has(r.id));
  if (!found.length && state.lastRequest) return;
  state.requests = [...found, ...state.requests].slice(0, nav.keep.requests);  // console_nav.js: Older
  if (state.requests.length) state.lastRequest = Math.max(state.lastRequest, state.requests[0].id);
  showJournal();
}
for (const id of ["jfilter-path", "jfilter-status"]) $(id).addEventListener("input", showJournal);
$("journal-filter").addEventListener("submit", (e) => e.preventDefault());

// -- sink ----------------------------------------------------------------------------------

async function loadSink() {
  const name = $("sink-name").value || "qa";
  $("sink-url").textContent = `${location.origin}/_emulator/sink/${name}`;
  const data = await call("GET", `/_emulator/sink/${encodeURIComponent(name)}`);
  const last = data.messages.length ? data.messages[data.messages.length - 1].id : 0;
  const key = `${name} ${data.messages.length} ${last}`;
  if (state.sinkKey === key) return;
  state.sinkKey = key;
  fill("sink-list", data.messages.slice().reverse().map((m) => h("li", { dataset: { message: m.id } }, h("code", {}, m.received_at),
    ` ${m.method} ${m.path}`, h("details", {}, h("summary", {}, "headers and body"),
      h("pre", {}, pretty(m.headers)), h("pre", {}, prettyBody(m.body))))));
}
$("sink-form").addEventListener("submit", (e) => { e.preventDefault(); loadSink().catch(failed); });

// -- scenarios -----------------------------------------------------------------------------

async function loadScenarios() {
  const data = await call("GET", "/_emulator/scenarios");
  showActiveScenarios(data.scenarios);
  fill("scenario-list", data.scenarios.map((s) => {
    const chips = s.active.map((a) => h("span", { class: "chip" }, a.merchant ? `merchant ${a.merchant}` : "everyone", " ",
      h("button", { type: "button", class: "deactivate", title: "Deactivate",
        onclick: () => scenario(s.name, "deactivate", a.merchant) }, "×")));
    return h("tr", { dataset: { scenario: s.name } }, h("td", {}, h("code", {}, s.name)),
      h("td", {}, s.error || s.description || ""), h("td", { class: "active" }, chips),
      h("td", {}, h("button", { type: "button", class: "activate-merchant", disabled: !state.merchant,
        onclick: () => scenario(s.name, "activate", state.merchant) }, "Activate for this merchant"), " ",
      h("button", { type: "button", class: "activate-all", onclick: () => scenario(s.name, "activate", null) }, "for everyone")));
  }));
}

async function scenario(name, action, merchantId) {
  try {
    await call("POST", `/_emulator/scenarios/${encodeURIComponent(name)}/${action}`, merchantId ? { merchant: merchantId } : {});
    notice(`Scenario ${name} ${action}d${merchantId ? " for this merchant" : " for everyone"}.`);
  } catch (error) { failed(error); }
  await loadScenarios().catch(failed);
}

// The line a refusal is about: "line N" of a YAML error, else the rule and field it names.
function locate(lines, message) {
  const said = /line (\d+)/.exec(message);
  if (said) return Math.min(Number(said[1]), lines.length) - 1;
  const path = /^rules\[(\d+)\]((?:\.[A-Za-z_]+)*)/.exec(message);
  const key = (k) => new RegExp(`(^|[\\s{,-])${k}\\s*:`);
  if (!path) {
    const top = /^([A-Za-z_]+)\s*:/.exec(message);
    return top ? Math.max(0, lines.findIndex((l) => key(top[1]).test(l))) : 0;
  }
  let at = lines.findIndex((l) => /^rules\s*:/.test(l));
  if (at < 0) return 0;
  let seen = -1, indent = null;
  for (let i = at + 1; i < lines.length; i++) {
    const item = /^(\s*)- /.exec(lines[i]);
    if (item && (indent === null || item[1].length === indent)) {
      indent = item[1].length;
      if (++seen === Number(path[1])) { at = i; break; }
    }
  }
  for (const field of path[2].split(".").filter(Boolean)) {
    for (let i = at; i < lines.length; i++) {
      if (key(field).test(lines[i])) { at = i; break; }
    }
  }
  return at;
}

function showRefusal(text, message) {
  const lines = text.split("\n");
  const at = locate(lines, message);
  $("scenario-message").textContent = `Refused: ${message}`;
  fill("scenario-lines", lines.flatMap((line, i) => {
    const row = h(i === at ? "mark" : "span", { id: i === at ? "scenario-error-line" : null, dataset: { line: i + 1 } },
      `${String(i + 1).padStart(3)}  ${line}\n`);
    return i === at ? [row, h("span", { class: "error" }, `     ^ ${message}\n`)] : [row];
  }));
  $("scenario-error").classList.remove("hidden");
}

$("scenario-file").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  if (file) $("scenario-yaml").value = await file.text();
});
$("scenario-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = $("scenario-yaml").value;
  $("scenario-error").classList.add("hidden");
  try {
    const loaded = await call("POST", "/_emulator/scenarios", text);
    notice(`Scenario ${loaded.name} loaded (${loaded.rules} rule(s)).`);
    await loadScenarios();
  } catch (error) {
    if (error.status === 400) showRefusal(text, error.message); else failed(error);
  }
});

// -- snapshots -----------------------------------------------------------------------------

async function loadSnapshots() {
  const data = await call("GET", "/_emulator/snapshots");
  fill("snapshot-list", data.snapshots.map((name) => h("li", { dataset: { snapshot: name } }, h("code", {}, name), " ",
    h("button", { type: "button", class: "restore", onclick: (event) => askRestore(event.currentTarget, name, async () => {
      try { await call("POST", `/_emulator/snapshots/${encodeURIComponent(name)}/restore`, {}); notice(`Restored ${name}.`); await choose(state.merchant); } catch (e) { failed(e); }
    }) }, "Restore"))));
}
$("snapshot-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = $("snapshot-name").value;
  try { await call("POST", `/_emulator/snapshots/${encodeURIComponent(name)}`, {}); notice(`Saved ${name}.`); await loadSnapshots(); } catch (e) { failed(e); }
});

// -- live ----------------------------------------------------------------------------------

async function refresh() {
  const work = [loadClock(), loadSchedule(), pollDeliveries(), pollJournal(), loadObjects(), loadSink()];
  if (state.detail) work.push(loadDetail(false));
  await Promise.all(work);
}

async function tick() {
  if (!state.busy && !document.hidden && $("token-box").classList.contains("hidden")) {
    state.busy = true;
    try { await refresh(); } catch (error) { if (error.status !== 401) failed(error); }
    state.busy = false;
  }
  setTimeout(tick, POLL_MS);
}

async function start() {
  const objectId = restoreView();  // console_nav.js: the view the URL names
  try {
    await loadMerchants();
    await Promise.all([loadClock(), loadSchedule(), loadObjects(), pollDeliveries(), pollJournal(),
      loadScenarios(), loadSnapshots(), loadSink()]);
    notice("");
    await reopenView(objectId);
  } catch (error) { if (error.status !== 401) failed(error); }
}

// once every script is in (console_nav.js reads the view from the URL)
document.addEventListener("DOMContentLoaded", () => start().then(() => setTimeout(tick, POLL_MS)));
