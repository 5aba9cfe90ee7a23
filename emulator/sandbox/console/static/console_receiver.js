// The console's receiver check (after console.js, whose helpers it uses): send the battery of
// signed probes to a URL for the chosen merchant (POST /_emulator/receiver-checks) and show
// each check with its result and why, and the score.
"use strict";

async function checkReceiver(event) {
  event.preventDefault();
  const url = $("receiver-url").value.trim();
  if (!url) { notice("Give the URL of the app's webhook receiver.", true); return; }
  const body = { url };
  if (state.merchant) body.merchant = state.merchant;
  if ($("receiver-bank").checked) body.bank = true;
  $("receiver-summary").textContent = "Checking...";
  $("receiver-summary").className = "";
  $("run-receiver-check").disabled = true;
  try {
    const report = await call("POST", "/_emulator/receiver-checks", body);
    const failed = report.checks.filter((c) => c.result === "fail").length;
    $("receiver-summary").textContent = `Score ${report.score}/100 for ${report.url}: ` +
      `${failed} failed; signed with ${report.signed_with}.`;
    $("receiver-summary").className = failed ? "error" : "ok";
    fill("receiver-results", report.checks.map((c) => h("tr", { dataset: { check: c.name }, class: c.result },
      h("td", {}, h("code", {}, c.name)),
      h("td", { class: c.result === "fail" ? "error" : c.result === "pass" ? "ok" : "" }, c.result.toUpperCase()),
      h("td", { class: "sentence" }, c.why))));
    notice("");
  } catch (error) {
    $("receiver-summary").textContent = `Refused: ${error.message}`;
    $("receiver-summary").className = "error";
  } finally {
    $("run-receiver-check").disabled = false;
  }
}

$("receiver-form").addEventListener("submit", checkReceiver);
