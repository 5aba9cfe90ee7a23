// The console's create forms and object actions (after console.js, whose helpers it uses).
// Every object the APIs create is made through the real API with the chosen merchant's
// credentials (the gateway's API key, the bank's OAuth token), from a form with sensible
// defaults that shows the request it sends as curl. An object offers the actions its state
// allows, each outcome chosen (a test card, a reason code of the schedule); the others are
// shown disabled with the reason.
"use strict";

const PAYABLE = ["created", "sent", "viewed", "error", "overdue"];
const sinkUrl = (name) => `${location.origin}/_emulator/sink/${encodeURIComponent(name || "qa")}`;
const toCents = (text) => Math.round(Number(text) * 100);
const freshRef = (prefix) => `${prefix}-${Date.now().toString(36).toUpperCase()}`;
const clockNow = () => new Date(state.clock ? state.clock.now : Date.now());
const templateOptions = (id) => [...$(id).content.children].map((o) => [o.value, o.textContent, o.dataset.consequence]);
const TARGETS = () => [["sink:qa", `the sink qa (${sinkUrl("qa")})`],
  ["sink:webhooks", `the sink webhooks (${sinkUrl("webhooks")})`], ["url", "the URL below"]];
const testDebtor = (account, branch) => ({ accountNumber: account, branchCode: branch || "051001",
  accountType: "CURRENT", name: "J Doe" });
const firstProfile = (m) => m.profiles[0] || {};
// The X-Emulator-Outcome header's choices: none (as the card or account says), or an outcome.
const outcomeField = (choices) => ["outcome", "Outcome (X-Emulator-Outcome)", "", "select",
  () => [["", "as the card or account says"], ...choices()]];
const declines = () => templateOptions("decline-options").map(([code]) => [`decline:${code}`, `decline: ${code}`]);
const bankOutcomes = () => templateOptions("unpaid-options").flatMap(([code, text, consequence]) =>
  [[`unpaid:${code}`, `UNPAID ${text}`], ...(consequence === "authority" ? [[`dispute:${code}`, `COMPLETED, then DISPUTED ${text}`]] : [])]);
const outcome = (v) => (v.outcome ? { headers: { "X-Emulator-Outcome": v.outcome } } : {});
const targetUrl = (v) => (v.target === "url" ? v.url : sinkUrl(v.target.slice(5)));

// Each form: its fields [name, label, default, type, options] and the request its values make.
const FORMS = {
  purchase: { kind: "purchases", fields: [
    ["product", "Product", "QA item"], ["price", "Price", "19.99"], ["quantity", "Quantity", "2", "number"],
    ["currency", "Currency", "ZAR"], ["email", "Client e-mail", "qa@example.com"],
    ["reference", "Reference", ""], ["skip_capture", "Hold, capture later (skip_capture)", false, "checkbox"],
    ["callback", "Success callback to the sink", true, "checkbox"],
    outcomeField(() => [...declines(), ["3ds:failed", "3-D Secure fails"]])],
  request: (v, m) => ({ api: "gateway", method: "POST", path: "/api/v1/purchases/", ...outcome(v), body: {
    client: { email: v.email }, brand_id: m.brand_id,
    purchase: { currency: v.currency, products: [{ name: v.product, price: toCents(v.price), quantity: Number(v.quantity) }] },
    ...(v.reference ? { reference: v.reference } : {}), ...(v.skip_capture ? { skip_capture: true } : {}),
    ...(v.callback ? { success_callback: sinkUrl($("sink-name").value) } : {}) } }) },
  client: { kind: "clients", fields: [["email", "E-mail", "payer@example.com"], ["full_name", "Full name", "QA Payer"],
    ["phone", "Phone", "+27821234567"]],
  request: (v) => ({ api: "gateway", method: "POST", path: "/api/v1/clients/",
    body: { email: v.email, full_name: v.full_name, ...(v.phone ? { phone: v.phone } : {}) } }) },
  payout: { kind: "payouts", fields: [["amount", "Amount", "7.00"], ["currency", "Currency", "ZAR"],
    ["email", "Payee e-mail", "payee@example.com"], ["description", "Description", "QA payout"],
    ["reference", "Reference", ""], outcomeField(() => [["payout:failed", "pending, then failed 3 days later"]])],
  request: (v, m) => ({ api: "gateway", method: "POST", path: "/api/v1/payouts/", ...outcome(v), body: {
    client: { email: v.email }, payment: { amount: toCents(v.amount), currency: v.currency, description: v.description },
    brand_id: m.brand_id, ...(v.reference ? { reference: v.reference } : {}) } }) },
  webhook: { fields: [["title", "Title", "QA webhook"], ["target", "Send to", "sink:webhooks", "select", TARGETS],
    ["url", "URL", "https://app.test/webhooks"], ["all_events", "All events", true, "checkbox"],
    ["events", "Events (when not all)", "purchase.paid", "multiple", () => templateOptions("event-options")]],
  request: (v) => ({ api: "gateway", method: "POST", path: "/api/v1/webhooks/", body: {
    title: v.title, callback: targetUrl(v), ...(v.all_events ? { all_events: true } : { events: v.events }) } }) },
  callback: { fields: [["callbackType", "Callback type", "EFT_COLLECTION", "select",
    () => ["EFT_COLLECTION", "DEBICHECK_COLLECTION", "DEBICHECK_MANDATE", "EFT_PAYMENT"].map((t) => [t, t])],
    ["target", "Send to", "sink:qa", "select", TARGETS], ["url", "URL", "https://app.test/bank-callbacks"],
    ["callbackVersion", "Version", "V2", "select", () => [["V2", "V2"], ["V1", "V1"]]]],
  request: (v, m) => ({ api: "bank", method: "POST", path: "/v2/clientcallbackurl/", body: {
    clientId: firstProfile(m).createdByClient, url: targetUrl(v), callbackType: v.callbackType, callbackVersion: v.callbackVersion } }) },
  mandate: { kind: "mandates", fields: [["type", "Kind", "DEBICHECK", "select", () => [["DEBICHECK", "DebiCheck (the debtor authorises)"], ["EFT", "EFT (active at once)"]]],
    ["account", "Debtor account", "110000001"], ["externalReference", "externalReference", () => freshRef("MND")],
    ["maxAmount", "Maximum amount", "500.00", "text", null, "DEBICHECK"], ["contractReference", "Contract reference", "C-1"]],
  request: (v, m) => {
    const base = { debtor: testDebtor(v.account), profileCode: firstProfile(m).profileCode, externalReference: v.externalReference,
      contractReference: v.contractReference, abbreviatedName: "QA" };
    if (v.type === "EFT") return { api: "bank", method: "POST", path: "/v2/mandate/eft", body: { ...base, frequency: "MONTHLY", entryClass: "35" } };
    return { api: "bank", method: "POST", path: "/v2/mandate/debicheck", body: { ...base, authenticationType: "REALTIME",
      maxAmountCents: toCents(v.maxAmount), debitSequence: "RCUR", frequency: "MONTHLY" } };
  } },
  collection: { kind: "collections", fields: [["type", "Kind", "EFT", "select", () => [["EFT", "EFT (its mandate made with it)"], ["DEBICHECK", "DebiCheck, from an authorised mandate"]]],
    ["account", "Debtor account (its outcome)", "110000001", "select", () => templateOptions("account-options"), "EFT"],
    ["amount", "Amount (R)", "123.45"], ["externalReference", "externalReference", () => freshRef("COL")],
    ["mandateId", "Authorised mandate id", () => (state.detail && state.detail.kind === "mandates" ? state.detail.id : ""), "text", null, "DEBICHECK"],
    outcomeField(bankOutcomes)],
  request: (v, m) => {
    if (v.type === "DEBICHECK") return { api: "bank", method: "POST", path: "/v2/collection/debicheck/from_mandate", ...outcome(v),
      body: { mandateId: v.mandateId, amountCents: toCents(v.amount), externalReference: v.externalReference } };
    return { api: "bank", method: "POST", path: "/v2/collection/eft", ...outcome(v), body: { debtor: testDebtor(v.account), amountCents: toCents(v.amount),
      currency: "ZAR", serviceType: "ONEDAY", profileCode: firstProfile(m).profileCode, externalReference: v.externalReference,
      abbreviatedName: "QA", contractReference: "C-1", frequency: "MONTHLY", entryClass: "35" } };
  } },
  payment: { kind: "payments", fields: [["creditor", "Creditor account", "62000000002"], ["amount", "Amount (R)", "10.00"],
    ["paymentDate", "Payment date", () => new Date(clockNow().getTime() + 86400000).toISOString().slice(0, 10), "date"],
    ["externalReference", "externalReference", () => freshRef("PAY")]],
  request: (v, m) => ({ api: "bank", method: "POST", path: "/v2/payment/eft", body: {
    debtor: testDebtor("62000000001", "250655"), creditor: { ...testDebtor(v.creditor, "250655"), name: "Supplier" },
    amountCents: toCents(v.amount), paymentDate: `${v.paymentDate}T09:00:00Z`, profileCode: firstProfile(m).profileCode,
    abbreviatedName: "QA", contractReference: "C-1", serviceType: "ONEDAY", externalReference: v.externalReference } }) },
  template: { kind: "billing_templates", fields: [["title", "Title", "QA plan"], ["product", "Product", "Plan"],
    ["price", "Price", "10.00"], ["currency", "Currency", "ZAR"], ["is_subscription", "Subscription", true, "checkbox"],
    ["period", "Every (subscription)", "1", "number"],
    ["units", "Unit", "months", "select", () => ["days", "weeks", "months"].map((u) => [u, u])]],
  request: (v, m) => ({ api: "gateway", method: "POST", path: "/api/v1/billing_templates/", body: {
    title: v.title, brand_id: m.brand_id, is_subscription: v.is_subscription,
    purchase: { currency: v.currency, products: [{ name: v.product, price: toCents(v.price) }] },
    ...(v.is_subscription ? { subscription_period: Number(v.period), subscription_period_units: v.units }
      : { invoice_due: Math.floor(clockNow().getTime() / 1000) + 86400 }) } }) },
  subscriber: { kind: "billing_subscribers", idOf: (made) => made.billing_template_client.id, fields: [
    ["template", "Billing template", "", "select", () => latestOf("billing_templates")],
    ["client", "Client", "", "select", () => latestOf("clients")]],
  request: (v) => {
    if (!v.template || !v.client) throw new Error("create a billing template and a client first");
    return { api: "gateway", method: "POST", path: `/api/v1/billing_templates/${encodeURIComponent(v.template)}/add_subscriber/`,
      body: { client_id: v.client } };
  } },
};

const createLists = {};  // the chosen merchant's templates and clients, for the subscriber's selects
function latestOf(kind) { return (createLists[kind] || []).map((o) => [o.id, `${o.title || o.email || ""} (${o.id})`]); }

async function loadLists() {
  if (!state.merchant) return;
  for (const kind of ["billing_templates", "clients"]) {
    const data = await call("GET", `/_emulator/merchants/${encodeURIComponent(state.merchant)}/objects/${kind}?limit=50`);
    createLists[kind] = data.objects;
  }
}

// A field; one with a kind shows only when the form's Kind is that one.
function createField([name, label, value, type, choices, kind]) {
  const id = `cf-${name}`;
  const start = typeof value === "function" ? value() : value;
  const shown = (input) => (kind ? h("span", { dataset: { when: kind } }, input) : input);
  return shown(fieldInput(id, label, start, type, choices));
}

function fieldInput(id, label, start, type, choices) {
  if (type === "checkbox") return h("label", {}, h("input", { type: "checkbox", id, checked: start }), ` ${label}`);
  if (type === "select" || type === "multiple") {
    const box = h("select", { id, multiple: type === "multiple", size: type === "multiple" ? 4 : null },
      choices().map(([v, text]) => h("option", { value: v, selected: type === "multiple" ? v === start : null }, text)));
    if (type === "select" && start) box.value = start;
    return h("label", {}, `${label} `, box);
  }
  return h("label", {}, `${label} `, h("input", { id, value: start, type: type || "text",
    size: type === "number" ? 5 : 22, step: type === "number" ? "1" : null }));
}

function formValues(form) {
  const out = {};
  for (const [name, , , type] of form.fields) {
    const input = $(`cf-${name}`);
    if (type === "checkbox") out[name] = input.checked;
    else if (type === "multiple") out[name] = [...input.selectedOptions].map((o) => o.value);
    else out[name] = input.value.trim();
  }
  return out;
}

const quoted = (text) => `'${String(text).replace(/'/g, "'\\''")}'`;

// What the request is as curl, with the real headers (the bank's token fetched first).
function curlOf(req, m) {
  const url = req.url || `${location.origin}${req.path}`;
  const lines = [];
  let auth = "";
  if (req.api === "gateway") auth = ` \\\n  -H ${quoted(`Authorization: Bearer ${m.api_key}`)}`;
  if (req.api === "bank") {
    lines.push(`TOKEN=$(curl -s -u ${quoted(`${m.client_id}:${m.client_secret}`)} -d grant_type=client_credentials \\\n  ${location.origin}/oauth2/token | jq -r .access_token)`);
    auth = ' \\\n  -H "Authorization: Bearer $TOKEN"';
  }
  for (const [name, value] of Object.entries(req.headers || {})) auth += ` \\\n  -H ${quoted(`${name}: ${value}`)}`;
  lines.push(`curl -X ${req.method} ${quoted(url)}${auth} \\\n  -H 'Content-Type: application/json' \\\n  -d ${quoted(JSON.stringify(req.body))}`);
  return lines.join("\n");
}

async function sendRequest(req) {
  const headers = { ...(req.headers || {}) };
  if (req.api === "gateway") headers.Authorization = `Bearer ${merchant().api_key}`;
  if (req.api === "bank") headers.Authorization = `Bearer ${await bankToken()}`;
  return call(req.method, req.url || req.path, req.body, headers);
}

function chosenForm() { return FORMS[$("create-what").value]; }

function showCurl() {
  const kind = $("cf-type");
  for (const box of $("create-fields").querySelectorAll("[data-when]")) box.hidden = !kind || box.dataset.when !== kind.value;
  const m = merchant();
  if (!m) { $("create-curl").textContent = "Choose a merchant: the request uses its credentials."; return; }
  try { $("create-curl").textContent = curlOf(chosenForm().request(formValues(chosenForm()), m), m); } catch (e) {
    $("create-curl").textContent = `(${e.message})`;
  }
}

async function renderForm() {
  const form = chosenForm();
  if ($("create-what").value === "subscriber") await loadLists().catch(failed);
  fill("create-fields", form.fields.map(createField));
  const m = merchant();
  $("create-of").textContent = m ? `for ${m.name}` : "(choose a merchant)";
  showCurl();
}

function createSaid(text, bad) {
  $("create-result").replaceChildren(...[text].flat());
  $("create-result").className = bad ? "error" : "";
}

$("create-what").addEventListener("change", () => renderForm().catch(failed));
$("create-fields").addEventListener("input", showCurl);
$("create-fields").addEventListener("change", showCurl);
$("create-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const m = merchant();
  if (!m) { createSaid("Choose a merchant first: objects are a merchant's.", true); return; }
  const what = $("create-what").value, form = FORMS[what];
  try {
    const made = await sendRequest(form.request(formValues(form), m));
    const id = form.idOf ? form.idOf(made) : made.id;
    if (!form.kind) {
      createSaid(`${what === "webhook" ? "Webhook" : "Callback URL"} ${id} registered: ${made.callback || made.url}.`);
      await loadEndpoints(made);
    } else {
      const status = (form.idOf ? made.billing_template_client : made).status;
      createSaid([`Created ${what} `, objectLink(KIND_REF[form.kind], id), status ? `: ${status}` : "", "."]);
      $("kind").value = form.kind;
      await loadObjects();
      await openDetail(form.kind, id);
    }
    await renderForm();  // fresh references for the next one
  } catch (error) { createSaid(`${what}: ${error.message}`, true); }
});

const KIND_REF = Object.fromEntries(Object.entries(KIND_OF).map(([type, kind]) => [kind, type]));
// The webhooks and callback URLs registered from this page, per merchant: listing them through
// the API would be a request of the merchant's own, in its journal and its recorded flows.
const endpointsMade = {};

async function loadEndpoints(made) {
  const m = merchant();
  if (!m) { fill("create-endpoints", []); return; }
  const mine = endpointsMade[m.company_id] = endpointsMade[m.company_id] || [];
  if (made) mine.push(made);
  fill("create-endpoints", mine.map((e) => (e.callbackType
    ? h("li", { dataset: { callback: e.id } }, "callback ", h("code", {}, e.id), ` ${e.callbackType} ${e.callbackVersion} → `, h("code", {}, e.url))
    : h("li", { dataset: { webhook: e.id } }, "webhook ", h("code", {}, e.id), ` ${e.title} → `, h("code", {}, e.callback),
      ` (${e.all_events ? "all events" : e.events.join(", ")})`))));
}

$("copy-curl").addEventListener("click", async () => {
  try { await navigator.clipboard.writeText($("create-curl").textContent); notice("curl copied."); } catch (e) {
    window.getSelection().selectAllChildren($("create-curl"));
    notice("Selected: press Ctrl+C to copy.");
  }
});

// The form follows the chosen merchant, however it was chosen (the select, a link, a new one).
let formOf = null;
setInterval(() => {
  if (formOf === state.merchant || (state.merchant && !merchant())) return;
  formOf = state.merchant;
  renderForm().catch(failed);
  loadEndpoints().catch(failed);
}, 250);

// -- the actions an object's state allows ----------------------------------------------------

function unableButton(label, id, why) {
  return [h("button", { type: "button", id, disabled: true, "aria-describedby": `${id}-why` }, label), " ",
    h("small", { id: `${id}-why`, class: "why" }, why)];
}

function choiceSelect(id, label, choices) {
  return h("select", { id, "aria-label": label }, choices.map(([v, text, consequence]) =>
    h("option", { value: v, dataset: consequence ? { consequence } : null }, text)));
}

// The reason codes a status takes: any of the schedule for UNPAID, one of authority for
// DISPUTED, none otherwise (the select is then disabled).
function codesFor() {
  const status = $("settle-status").value, codes = $("reason-code");
  const allowed = templateOptions("unpaid-options").filter(([, , c]) => status === "UNPAID" || (status === "DISPUTED" && c === "authority"));
  codes.replaceChildren(...allowed.map(([v, text]) => h("option", { value: v }, text)));
  codes.disabled = !allowed.length;
}

function settleMoney(kind, d, id) {
  const next = { PENDING: ["COMPLETED", "UNPAID", "REJECTED"], COMPLETED: ["DISPUTED"] }[d.status];
  if (!next) return unableButton("Settle", "settle", `Settle is for a PENDING ${kind.slice(0, -1)} (or a COMPLETED one, to dispute it); this one is ${d.status}, final.`);
  const status = choiceSelect("settle-status", "Status", next.map((s) => [s, s]));
  const codes = h("select", { id: "reason-code", "aria-label": "Reason code" });
  status.addEventListener("change", codesFor);
  setTimeout(codesFor);
  return [status, " ", h("label", {}, "reason ", codes), " ",
    act("Settle", "settle", () => control(`/_emulator/${kind}/${id}/settle`, { status: $("settle-status").value,
      ...($("reason-code").disabled ? {} : { reasonCode: $("reason-code").value }) }))];
}

const control = (path, body) => ({ api: "control", method: "POST", path, body });
let actionRequests = [];  // [label, request()] of the actions shown, for their curl

// A button that sends its request (the control plane's, the API's with the merchant's
// credentials, or the payee's page) and says what the object is now, and why.
function act(label, id, request) {
  actionRequests.push([label, request]);
  return h("button", { type: "button", id, onclick: async () => {
    $("action-result").textContent = "";
    try {
      const done = await sendRequest(request());
      const why = reasonOf(done);
      $("action-result").textContent = `${label}: now ${done.status}.${why ? ` ${why}` : ""}`;
    } catch (error) { $("action-result").textContent = `${label}: ${error.message}`; }
    await loadDetail(false).catch(failed);
  } }, label);
}

function actionCurl() {
  const box = $("action-curl"), m = merchant();
  if (box && m) box.textContent = actionRequests.map(([label, request]) => `# ${label}\n${curlOf(request(), m)}`).join("\n\n");
}
$("actions").addEventListener("change", actionCurl);

function objectActions(kind, d) {
  actionRequests = [];
  const id = encodeURIComponent(d.id), o = d.object, parts = [];
  if (kind === "purchases") {
    if (PAYABLE.includes(d.status)) {
      const cards = h("select", { id: "card", "aria-label": "Test card" });
      cards.innerHTML = $("card-options").innerHTML;
      parts.push(h("label", {}, "Pay as the payer with ", cards), " ",
        act("Pay", "pay", () => control(`/_emulator/purchases/${id}/pay`, { card_number: $("card").value })));
      if (o.checkout_url) parts.push(" ", h("a", { href: o.checkout_url, target: "_blank" }, "checkout page"));
    } else parts.push(unableButton("Pay", "pay", `Pay is for a purchase waiting for payment; this one is ${d.status}.`));
    if (d.status === "hold") {
      const gateway = (action) => ({ api: "gateway", method: "POST", path: `/api/v1/purchases/${id}/${action}/`, body: {} });
      parts.push(" ", act("Capture", "capture", () => gateway("capture")), " ", act("Release", "release", () => gateway("release")));
    }
  } else if (kind === "payouts") {
    if (d.status === "initialized") {
      parts.push(h("label", {}, "Execute as the payee with ", choiceSelect("payout-card", "Payout test card", templateOptions("payout-card-options"))), " ",
        act("Execute", "execute", () => ({ api: "page", method: "POST", url: o.execution_url, body: {
          card_number: $("payout-card").value, cardholder_name: "Jane Doe", expiry_month: "12", expiry_year: "30" } })), " ");
    }
    if (d.status === "pending") {
      parts.push(choiceSelect("settle-status", "Status", [["success", "success"], ["failed", "failed"]]), " ",
        act("Settle", "settle", () => control(`/_emulator/payouts/${id}/settle`, { status: $("settle-status").value })));
    } else {
      parts.push(unableButton("Settle", "settle", d.status === "initialized"
        ? "Settle is for an executed payout waiting for the provider; execute this one first."
        : `Settle is for a pending payout; this one is ${d.status}, final.`));
    }
  } else if (kind === "mandates") {
    if (o.type === "DEBICHECK" && d.status === "PENDING_AUTHENTICATION") {
      parts.push(act("Authorise", "authorise", () => control(`/_emulator/mandates/${id}/authorise`, {})), " ",
        act("Reject", "reject", () => control(`/_emulator/mandates/${id}/reject`, {})));
    } else {
      parts.push(unableButton("Authorise", "authorise", `The debtor answers a DebiCheck mandate waiting for them (PENDING_AUTHENTICATION); this one is ${o.type} ${d.status}.`));
    }
  } else if (kind === "collections" || kind === "payments") {
    parts.push(settleMoney(kind, d, id));
    if (kind === "collections" && o.type === "EFT") {
      parts.push(" ", h("button", { type: "button", id: "trigger-callback", onclick: () => triggerCallback(d.id) },
        "Send the EFT callback (the current status)"));
    }
  }
  if (actionRequests.length) {
    parts.push(h("details", { class: "action-curl" }, h("summary", {}, "the requests, as curl"), h("pre", { id: "action-curl" })));
    setTimeout(actionCurl);
  }
  return parts.flat(Infinity);
}
