// The console's expectations panel (after console.js, whose helpers it uses): paste a set for
// the chosen merchant, verify it (POST /_emulator/merchants/{id}/verify) or wait for it
// (.../wait with timeout_seconds), and read the report: each item ok or failed, its sentence,
// its matches and, when it failed, the closest candidates.
"use strict";

// A JSON set (or a bare list of items) as an object; YAML stays text (sent as YAML).
function expectationBody(text, seconds) {
  const trimmed = text.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    const parsed = JSON.parse(trimmed);
    const body = Array.isArray(parsed) ? { expect: parsed } : parsed;
    if (seconds > 0) body.timeout_seconds = seconds;
    return body;
  }
  if (seconds > 0 && !/^timeout_seconds\s*:/m.test(trimmed)) return `${trimmed}\ntimeout_seconds: ${seconds}\n`;
  return trimmed;
}

function matchList(result) {
  const shown = result.matches.slice(0, 5).map((m) => h("li", { dataset: { match: m.id } },
    h("code", {}, m.ref), " at ", h("code", {}, m.at)));
  if (result.matched > shown.length) shown.push(h("li", {}, `and ${result.matched - shown.length} more`));
  const closest = (result.candidates || []).map((c) => h("li", { class: "candidate" }, "closest: ",
    h("code", {}, c.ref), " at ", h("code", {}, c.at), ` (${c.differs.join(", ")})`));
  return h("ul", { class: "matches" }, shown, closest);
}

function showReport(answer, waited) {
  const held = answer.results.filter((r) => r.ok).length;
  let summary = `${held} of ${answer.results.length} expectations held`;
  if (waited) summary += answer.timed_out ? "; the wait timed out" : `; held at ${answer.at}`;
  $("expect-summary").textContent = `${summary} (${answer.now}).`;
  $("expect-summary").className = answer.ok ? "ok" : "error";
  fill("expect-results", answer.results.map((r) => h("tr", { dataset: { item: r.index }, class: r.ok ? "held" : "failed" },
    h("td", {}, String(r.index), r.id ? [" ", h("code", {}, r.id)] : []),
    h("td", { class: r.ok ? "ok" : "error" }, r.ok ? "ok" : "FAILED"),
    h("td", { class: "sentence" }, r.message || `${r.expected} ${r.description}`),
    h("td", {}, matchList(r)))));
}

async function verifyExpectations(event) {
  event.preventDefault();
  if (!state.merchant) { notice("Choose a merchant first: expectations are about one merchant.", true); return; }
  const seconds = Number($("expect-wait").value) || 0;
  let body;
  try { body = expectationBody($("expect-set").value, seconds); } catch (error) {
    notice(`The set is not valid JSON: ${error.message}`, true);
    return;
  }
  const verb = seconds > 0 ? "wait" : "verify";
  $("expect-summary").textContent = seconds > 0 ? `Waiting up to ${seconds} s...` : "Verifying...";
  $("expect-summary").className = "";
  $("verify-expect").disabled = true;
  try {
    const answer = await call("POST", `/_emulator/merchants/${encodeURIComponent(state.merchant)}/${verb}`, body);
    showReport(answer, seconds > 0);
    notice("");
  } catch (error) {
    $("expect-summary").textContent = `Refused: ${error.message}`;
    $("expect-summary").className = "error";
  } finally {
    $("verify-expect").disabled = false;
  }
}

$("expect-form").addEventListener("submit", verifyExpectations);
$("expect-set").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) $("expect-form").requestSubmit();
});
// The panel names the chosen merchant; another merchant's report is cleared.
function expectationsOf() {
  const m = state.merchants.find((x) => x.company_id === state.merchant);
  const name = m ? `of ${m.name}` : "(choose a merchant)";
  if ($("expect-of").textContent === name) return;
  $("expect-of").textContent = name;
  fill("expect-results", []);
  $("expect-summary").textContent = "";
}
$("merchant").addEventListener("change", () => setTimeout(expectationsOf));
setInterval(expectationsOf, POLL_MS);
