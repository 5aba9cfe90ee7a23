// The console's delivery operations (after console.js, whose helpers it uses): replay the
// deliveries the filter shows (POST /_emulator/deliveries/replay), recover what failed since
// an instant (.../recover), switch endpoints off and on (PUT /_emulator/webhooks/{id}/state,
// /_emulator/callbacks/{id}/state), a merchant's auto-disable (.../delivery-settings), and
// what happened to endpoints (GET /_emulator/endpoints: held, dropped, auto-disabled).
"use strict";

const SWITCHABLE = { webhook: "webhooks", callback: "callbacks" };
const ops = { endpoints: [], events: [], kept: [] };

// The filter of the log's form, as the API takes it (its values exact).
function opsFilter() {
  const body = {};
  if (state.merchant) body.merchant = state.merchant;
  const object = $("dfilter-object").value.trim(), event = $("dfilter-event").value.trim();
  if (object) body.object_id = object;
  if (event) body.event_type = event;
  if ($("dfilter-outcome").value) body.outcome = $("dfilter-outcome").value;
  return body;
}

async function replayFiltered() {
  try {
    const done = await call("POST", "/_emulator/deliveries/replay", opsFilter());
    notice(`${done.count} message(s) sent again${done.truncated ? " (more matched: replay again)" : ""}.`);
    await pollDeliveries();
  } catch (error) { failed(error); }
}

async function recoverSince() {
  if (!state.merchant) { notice("Choose a merchant first: a recover is about one merchant.", true); return; }
  const since = $("recover-since").value;
  if (!since) { notice("Give the instant to recover from.", true); return; }
  try {
    const body = { merchant: state.merchant, since: `${since.length === 16 ? since + ":00" : since}Z` };
    const done = await call("POST", "/_emulator/deliveries/recover", body);
    notice(`${done.count} failed message(s) sent again.`);
    await pollDeliveries();
  } catch (error) { failed(error); }
}

async function saveAutoDisable() {
  if (!state.merchant) { notice("Choose a merchant first.", true); return; }
  const text = $("auto-days").value.trim();
  try {
    const days = text ? Number(text) : null;
    await call("PUT", `/_emulator/merchants/${encodeURIComponent(state.merchant)}/delivery-settings`,
      { auto_disable_after_days: days });
    notice(days ? `Endpoints switch off after ${days} day(s) of only failures.` : "No auto-disable.");
  } catch (error) { failed(error); }
}

async function switchEndpoint(kind, id, enabled) {
  try {
    const done = await call("PUT", `/_emulator/${SWITCHABLE[kind]}/${encodeURIComponent(id)}/state`, { enabled });
    notice(enabled ? `Switched on: ${done.released} held message(s) sent.` : "Switched off: its messages are kept.");
    await refreshEndpoints();
    await pollDeliveries();
  } catch (error) { failed(error); }
}

// Every endpoint the log names (webhooks and v2 callback registrations) and every switched one.
function endpointRows() {
  const found = new Map();
  for (const d of state.deliveries) {
    if (SWITCHABLE[d.kind] && !found.has(d.target_id)) found.set(d.target_id, { kind: d.kind, id: d.target_id, url: d.url, enabled: true });
  }
  for (const e of ops.endpoints) found.set(e.id, { ...(found.get(e.id) || {}), ...e });
  return [...found.values()].map((e) => {
    const held = ops.kept.filter((k) => k.target_id === e.id && k.outcome === "held").length;
    const label = e.enabled ? "on" : `off${e.reason === "auto_disabled" ? " (auto-disabled)" : ""}${e.drop ? ", dropping" : ""}`;
    return h("tr", { dataset: { endpoint: e.id, enabled: e.enabled ? "on" : "off" } },
      h("td", {}, e.kind, " ", h("code", {}, e.id)), h("td", {}, e.url || ""),
      h("td", { class: e.enabled ? "ok" : "error" }, label, held ? `, ${held} held` : ""),
      h("td", {}, h("button", { type: "button", class: "switch", onclick: () => switchEndpoint(e.kind, e.id, !e.enabled) },
        e.enabled ? "Switch off" : "Switch on")));
  });
}

function showEndpoints() {
  fill("endpoint-list", endpointRows());
  fill("endpoint-events", ops.events.map((e) => h("li", { dataset: { event: e.id }, class: e.action === "auto_disabled" ? "error" : "" },
    h("code", {}, e.at), ` ${e.action.replace("_", " ")} `, h("code", {}, e.target_id),
    e.detail ? `: ${e.detail}` : "", e.message_id ? ` (message ${e.message_id})` : "")));
}

async function refreshEndpoints() {
  try {
    const data = await call("GET", `/_emulator/endpoints?${merchantQuery()}limit=50`);
    Object.assign(ops, { endpoints: data.endpoints, events: data.events, kept: data.kept });
    showEndpoints();
  } catch (error) { /* the token dialog or a notice says why; the next round tries again */ }
}

async function readAutoDisable() {
  if (!state.merchant) { $("auto-days").value = ""; return; }
  try {
    const data = await call("GET", `/_emulator/merchants/${encodeURIComponent(state.merchant)}/delivery-settings`);
    $("auto-days").value = data.auto_disable_after_days || "";
  } catch (error) { /* as above */ }
}

$("replay-filtered").addEventListener("click", replayFiltered);
$("recover").addEventListener("click", recoverSince);
$("auto-save").addEventListener("click", saveAutoDisable);
$("merchant").addEventListener("change", () => setTimeout(() => { readAutoDisable(); refreshEndpoints(); }));
setInterval(refreshEndpoints, POLL_MS);
refreshEndpoints();
