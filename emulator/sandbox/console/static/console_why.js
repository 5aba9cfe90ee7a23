// Why a delivery or an object is as it is, beyond scenarios (after console.js, whose helpers
// it uses; console_nav.js's explain() and console.js's delivery rows call it): a copy says
// "copy 2 of 3" and what made it one (a scenario, a hold, a replay), with a link to it; an
// object says what holds took of it (a delivery released, edited, duplicated, delayed or
// dropped; a decision released with another outcome), each with a link to the hold.
"use strict";

function holdLink(id) {
  return h("a", { href: "#holds", class: "hold-link", title: "the Holds section" }, h("code", {}, id));
}

// "copy 2 of 3 (scenario hooks)" for a copy; nothing for an ordinary delivery.
function copyTag(d) {
  if (!d.copies) return "";
  const cause = d.cause || {};
  const by = {
    scenario: () => ["scenario ", h("a", { href: "#scenarios" }, h("code", {}, cause.id))],
    outcome_header: () => ["the ", h("code", {}, "X-Emulator-Outcome"), " header"],
    hold: () => ["hold ", holdLink(cause.id)],
    replay: () => ["a replay of message ", h("code", {}, cause.id)],
  }[cause.kind];
  return h("span", { class: "copy-tag", title: "one of several sends of this event to this URL" },
    ` copy ${d.copy} of ${d.copies}`, by ? [" (", ...by(), ")"] : "");
}

const HELD_DONE = {
  released: "released", dropped: "dropped (never sent)", duplicated: "duplicated",
  delayed: "delayed", held: "held, waiting for you",
};

// One line per thing a hold took of the object d (GET /_emulator/objects/{id}: "holds").
function heldWhy(d) {
  return (d.holds || []).map((item) => {
    const done = item.done || {};
    const what = item.point ? ["its ", h("code", {}, item.point), " decision"]
      : ["its delivery (message ", h("code", {}, String(item.message_id)), ")"];
    const how = [];
    if (done.outcome) how.push(" with the outcome ", h("code", {}, JSON.stringify(done.outcome)));
    if (done.times) how.push(` to ${done.times} sends`);
    if (done.until) how.push(" until ", h("code", {}, done.until));
    if (done.resigned !== undefined) how.push(done.resigned ? ", edited and re-signed" : ", edited");
    if (done.by === "timeout") how.push(" when its timeout ran out");
    return h("li", { class: "why-hold" }, "Hold ", holdLink(item.hold), " took ", ...what,
      ` at `, h("code", {}, item.held_at), `: ${HELD_DONE[item.state] || item.state}`, ...how, ".");
  });
}
