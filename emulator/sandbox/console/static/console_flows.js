// The console's flows panel (after console.js, whose helpers it uses): the library
// (GET /_emulator/flows), a run of one of them (POST /_emulator/flows/runs), the numbered past
// runs with the chosen one's steps updating live while it runs (GET /_emulator/flows/runs/{id}),
// a link to each run (#run=<id>), and "Export as flow": the chosen merchant's session as a
// flow file (GET /_emulator/merchants/{id}/flow.yaml), downloaded.
"use strict";

const flows = { run: "", runs: [], busy: false };

function runLink(id) { return `#run=${encodeURIComponent(id)}`; }

async function loadFlowLibrary() {
  const data = await call("GET", "/_emulator/flows");
  fill("flow-library", data.flows.map((f) => h("tr", { dataset: { flow: f.name } },
    h("td", {}, h("code", {}, f.name)),
    h("td", { class: f.error ? "error" : "" }, f.error || f.description || ""),
    h("td", {}, f.error ? "" : String(f.steps)),
    h("td", {}, f.error ? "" : h("button", { type: "button", dataset: { runFlow: f.name }, onclick: () => startFlow(f.name) }, "Run")))));
}

async function startFlow(name) {
  try {
    const run = await call("POST", "/_emulator/flows/runs", { name });
    notice(`Run #${run.number} of ${name} started.`);
    location.hash = runLink(run.id);
    await showRun(run.id);
    await loadRuns();
  } catch (error) { failed(error); }
}

function runRow(r) {
  return h("tr", { dataset: { run: r.id }, class: r.id === flows.run ? "chosen" : "" },
    h("td", {}, h("a", { href: runLink(r.id) }, `#${r.number}`)),
    h("td", {}, h("code", {}, r.flow)),
    h("td", { class: `status ${r.state}` }, r.state),
    h("td", {}, String(r.step_count ?? "")),
    h("td", {}, r.ms ? r.ms.toFixed(0) : ""),
    h("td", {}, r.merchant ? h("code", {}, r.merchant) : ""));
}

async function loadRuns() {
  const data = await call("GET", "/_emulator/flows/runs");
  flows.runs = data.runs;
  fill("flow-runs", data.runs.map(runRow));
}

function stepRow(s) {
  return h("tr", { dataset: { step: s.index }, class: s.outcome },
    h("td", {}, String(s.index)),
    h("td", { class: s.outcome === "failed" ? "error" : (s.outcome === "passed" ? "ok" : "") }, s.outcome),
    h("td", {}, s.ms.toFixed(1)),
    h("td", {}, h("code", {}, s.instant || "-")),
    h("td", {}, s.summary));
}

function failureText(run) {
  const lines = [];
  if (run.error) lines.push(`error: ${run.error}`);
  for (const s of run.steps.filter((x) => x.outcome === "failed")) {
    lines.push(`step ${s.where} (${s.kind}) failed: ${s.error || ""}`);
    if (s.request) lines.push(`request: ${JSON.stringify(s.request)}`);
    if (s.answer) lines.push(`answer: ${JSON.stringify(s.answer)}`);
    for (const item of s.report || []) lines.push(`  - ${item}`);
  }
  return lines.join("\n");
}

async function showRun(id) {
  flows.run = id;
  const run = await call("GET", `/_emulator/flows/runs/${encodeURIComponent(id)}`);
  $("flow-run").classList.remove("hidden");
  $("flow-run-number").textContent = `#${run.number}`;
  $("flow-run-flow").textContent = run.flow;
  $("flow-run-state").textContent = run.state;
  $("flow-run-state").className = `status ${run.state}`;
  $("flow-run-link").href = runLink(run.id);
  $("flow-run-json").href = `/_emulator/flows/runs/${encodeURIComponent(run.id)}`;
  $("flow-run-merchant").textContent = run.merchant || "";
  fill("flow-run-steps", run.steps.map(stepRow));
  $("flow-run-failure").textContent = failureText(run);
  return run;
}

function exportLink() {
  const link = $("export-flow");
  if (!state.merchant) {
    link.classList.add("hidden");
    $("export-of").textContent = "(choose a merchant to export its session)";
    return;
  }
  const id = encodeURIComponent(state.merchant);
  link.href = `/_emulator/merchants/${id}/flow.yaml`;
  link.setAttribute("download", `${state.merchant}.flow.yaml`);
  link.classList.remove("hidden");
  const m = state.merchants.find((x) => x.company_id === state.merchant);
  $("export-of").textContent = m ? `the session of ${m.name}` : "";
}

function fromHash() {
  const found = /^#run=(.+)$/.exec(location.hash);
  if (found) showRun(decodeURIComponent(found[1])).catch(failed);
}

// Live: the runs list, and the chosen run's steps while it is running (each poll one GET).
async function flowTick() {
  if (!flows.busy && !document.hidden && $("token-box").classList.contains("hidden")) {
    flows.busy = true;
    try {
      const chosen = flows.runs.find((r) => r.id === flows.run);
      const running = flows.runs.some((r) => r.state === "running") || (chosen && chosen.state === "running");
      if (running || !flows.runs.length) await loadRuns();
      if (flows.run && (running || $("flow-run-state").textContent === "running")) await showRun(flows.run);
    } catch (error) { if (error.status !== 401) failed(error); }
    flows.busy = false;
  }
  setTimeout(flowTick, POLL_MS);
}

window.addEventListener("hashchange", fromHash);
$("merchant").addEventListener("change", () => setTimeout(exportLink));
Promise.all([loadFlowLibrary(), loadRuns()]).then(() => { exportLink(); fromHash(); }, (error) => {
  if (error.status !== 401) failed(error);
}).finally(() => setTimeout(flowTick, POLL_MS));
