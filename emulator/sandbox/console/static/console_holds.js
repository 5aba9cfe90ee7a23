// The console's holds panel (after console.js, whose helpers it uses): hold the chosen
// merchant's next delivery or decision (POST /_emulator/merchants/{id}/holds), see what each
// hold holds (the message with its headers and body, or the decision and its default
// outcome), and let it go: release, edit and release, drop, duplicate, delay an hour.
"use strict";

function holdsPath(...rest) {
  return [`/_emulator/merchants/${encodeURIComponent(state.merchant)}/holds`, ...rest].join("/");
}

function heldWhat(item) {
  if (item.message) {
    const m = item.message;
    return [h("code", {}, m.event_type), ` of ${m.object_type} `, h("code", {}, m.object_id), " to ",
      h("code", {}, m.url)];
  }
  return [h("code", {}, item.point), " default ", h("code", {}, JSON.stringify(item.default_outcome))];
}

// What "Edit" starts from: a message's body (with resign), or a decision's default outcome.
function editable(item) {
  if (item.message) return prettyBody(item.message.body);
  return pretty(item.default_outcome || {});
}

async function holdAction(hold, action, body) {
  for (const open of document.querySelectorAll("#hold-list .hold-editor")) open.remove();
  try {
    await call("POST", holdsPath(encodeURIComponent(hold.id), action), body);
    notice(`Hold ${hold.id}: ${action} done.`);
    await loadHolds();
  } catch (error) { failed(error); }
}

function editor(hold, item) {
  const box = h("textarea", { rows: 6, cols: 60, spellcheck: "false", class: "hold-edit",
    "aria-label": `Edit what hold ${hold.id} holds` }, editable(item));
  const resign = h("input", { type: "checkbox", class: "hold-resign", checked: true });
  const send = h("button", { type: "button", class: "hold-send", onclick: () => {
    let edited;
    try { edited = JSON.parse(box.value); } catch (error) { notice(`Not JSON: ${error.message}`, true); return; }
    const body = item.message ? { body: edited, resign: resign.checked } : edited;
    holdAction(hold, "release", body);
  } }, "Release edited");
  const signed = item.message ? h("label", {}, resign, " re-sign") : null;
  return h("div", { class: "hold-editor" }, box, h("br", {}), signed, " ", send);
}

function holdButtons(hold, item) {
  const button = (label, cls, onclick) => h("button", { type: "button", class: cls, onclick }, label);
  const buttons = [
    button("Release", "hold-release", () => holdAction(hold, "release", {})),
    button("Edit and release", "hold-edit-open", (event) => {
      const cell = event.target.closest("td");
      if (!cell.querySelector(".hold-editor")) cell.append(editor(hold, item));
    }),
    button("Drop", "hold-drop", () => holdAction(hold, "drop", {})),
    button("+1 hour", "hold-delay", () => holdAction(hold, "delay", { hours: 1 })),
  ];
  if (item.message) buttons.splice(3, 0, button("Send twice", "hold-duplicate", () => holdAction(hold, "duplicate", { times: 2 })));
  return buttons;
}

function holdRows(hold) {
  const held = hold.items.filter((item) => item.state === "held");
  const head = [h("td", {}, h("code", {}, hold.id)), h("td", {}, hold.kind),
    h("td", { class: held.length ? "error" : "" }, hold.state)];
  if (!held.length) {
    const last = hold.items[hold.items.length - 1];
    const said = last ? `${last.state} (${last.done ? last.done.by : ""})` : `waiting for a match (${hold.remaining} left)`;
    return [h("tr", { dataset: { hold: hold.id } }, head, h("td", {}, said), h("td", {}))];
  }
  return held.map((item) => h("tr", { dataset: { hold: hold.id, item: item.id }, class: "holding" }, head,
    h("td", {}, heldWhat(item), " held at ", h("code", {}, item.held_at)),
    h("td", {}, holdButtons(hold, item))));
}

async function loadHolds() {
  if (!state.merchant) { fill("hold-list", []); $("holds-of").textContent = "(choose a merchant)"; return; }
  if (document.querySelector("#hold-list .hold-editor")) return;  // do not wipe an edit under way
  const m = state.merchants.find((x) => x.company_id === state.merchant);
  $("holds-of").textContent = m ? `of ${m.name}` : "";
  const data = await call("GET", holdsPath());
  fill("hold-list", data.holds.flatMap(holdRows));
}

$("hold-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (!state.merchant) { notice("Choose a merchant first: holds are a merchant's.", true); return; }
  const body = { kind: $("hold-kind").value };
  const match = $("hold-match").value.trim();
  if (match) {
    try { body.match = JSON.parse(match); } catch (error) { notice(`The filter is not JSON: ${error.message}`, true); return; }
  }
  try {
    const made = await call("POST", holdsPath(), body);
    notice(`Hold ${made.id} armed.`);
    await loadHolds();
  } catch (error) { failed(error); }
});
$("merchant").addEventListener("change", () => setTimeout(() => loadHolds().catch(failed)));
setInterval(() => { if (!document.hidden && state.merchant) loadHolds().catch(() => {}); }, POLL_MS);
loadHolds().catch(() => {});
