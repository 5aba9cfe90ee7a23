"""The console page's HTML, filled in by ``routes.page`` with the test values and the
object kinds (its script and style are static files beside it)."""

from __future__ import annotations

TEMPLATE = """
<header><div class="brand"><strong>Payments emulator</strong> QA console
<span class="sandbox">SANDBOX: test data only, no money moves</span>
<small>v{version}</small></div>
<div class="bar"><label>Merchant <select id="merchant"><option value="">(server clock,
no merchant)</option></select></label>
<span class="clockline">Clock <code id="clock-now">-</code> <span id="clock-mode"></span>
<span id="clock-own"></span></span>
<span class="buttons" aria-label="Advance the clock"><button data-advance="hours:1">+1 hour</button>
<button data-advance="days:1">+1 day</button><button data-advance="days:3">+3 days</button>
<button data-advance="month">+1 month</button>
<button data-advance="next" id="advance-next">Next job</button>
<span id="advance-result" role="status" aria-live="polite"></span></span>
<form id="find-form" class="find"><label>Find by id <input id="find" size="38"
placeholder="purchase, payout, mandate... id"></label> <button>Open</button>
<span id="find-result" role="status" aria-live="polite"></span></form>
<span><button id="copy-link" type="button" title="a link to this view">Copy a link to this view
</button> <span id="link-result" role="status"></span></span>
<span id="active-scenarios-label" class="hidden">Active scenarios
<span id="active-scenarios"></span></span></div>
<nav>{nav}</nav></header>
<div id="token-box" class="hidden" role="dialog" aria-labelledby="token-title">
<form id="token-form"><h2 id="token-title">Admin token</h2>
<p>This emulator wants its admin token. It is kept in a cookie for this site.</p>
<input id="token" type="password" autocomplete="off" required> <button>Use it</button></form>
</div>
<p id="notice" role="status" aria-live="polite"></p>
<main>
<section id="holds"><h2>Holds <small id="holds-of"></small></h2>
<form id="hold-form"><label>Hold the next <select id="hold-kind">
<option value="delivery">delivery</option>
<option value="purchase.payment">card result (purchase.payment)</option>
<option value="collection.outcome">collection outcome (collection.outcome)</option>
<option value="mandate.authorisation">DebiCheck answer (mandate.authorisation)</option>
</select></label> <label>matching <input id="hold-match" size="36"
placeholder='{{"event_type": "purchase.paid"}}'></label>
<button id="create-hold">Hold</button></form>
<table><thead><tr><th>Hold</th><th>Kind</th><th>State</th><th>What it holds</th><th></th></tr>
</thead><tbody id="hold-list"></tbody></table></section>

<section id="merchants"><h2>Merchants</h2>
<form id="merchant-form"><label>Name <input id="merchant-name" maxlength="128"
placeholder="QA merchant"></label> <label><input type="checkbox" id="merchant-own">
its own clock</label> <button id="create-merchant">Create merchant</button></form>
<table><thead><tr><th>Name</th><th>company_id</th><th>Clock</th></tr></thead>
<tbody id="merchant-list"></tbody></table>
<div id="credentials"></div></section>

<section id="clock"><h2>Clock <small id="clock-of"></small></h2>
<p>Now <code id="clock-now-2">-</code> <span id="clock-mode-2"></span></p>
<div class="buttons"><button id="freeze">Freeze</button>
<button id="resume">Resume</button></div>
<form id="advance-to"><label>To <input id="advance-date" type="datetime-local" step="1">
UTC</label> <button>Advance</button></form><p id="advanced"></p></section>

<section id="schedule"><h2>What happens next</h2>
<table><thead><tr><th>Due</th><th>Kind</th><th>Object</th><th>Description</th></tr></thead>
<tbody id="schedule-list"></tbody></table></section>

<section id="create"><h2>Create <small id="create-of"></small></h2>
<form id="create-form"><label>Create a <select id="create-what">
<option value="purchase">purchase</option><option value="client">client</option>
<option value="payout">payout</option><option value="webhook">webhook</option>
<option value="callback">v2 callback registration</option>
<option value="mandate">mandate (EFT or DebiCheck)</option>
<option value="collection">collection</option><option value="payment">payment (EFT)</option>
<option value="template">billing template</option>
<option value="subscriber">subscriber</option></select></label>
<style>#create-fields{{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;margin:.4rem 0}}
#create-fields label{{white-space:nowrap}}#create-fields select{{max-width:28rem}}
.why{{color:var(--warn)}}</style><div id="create-fields" class="fields"></div>
<button id="create-send">Create</button></form>
<p id="create-result" role="status" aria-live="polite"></p>
<h4>The request it sends <button id="copy-curl" type="button">Copy as curl</button></h4>
<pre id="create-curl"></pre>
<h4>Webhooks and callback URLs registered here</h4><ul id="create-endpoints"></ul>
{create_templates}</section>

<section id="objects"><h2>Objects</h2>
<form id="object-filter"><select id="kind" aria-label="Kind">{kinds}</select>
<input id="status-filter" placeholder="status" size="14" aria-label="Status">
<input id="id-filter" placeholder="id contains" size="30" aria-label="Id contains">
<input id="object-search" placeholder="e-mail, reference, amount" size="26" aria-label="Search">
<select id="object-sort" aria-label="Sort"><option value="newest">newest first</option>
<option value="oldest">oldest first</option><option value="status">by status</option>
<option value="id">by id</option></select>
<button>Filter</button></form>
<p class="pager"><span id="object-count"></span> <button id="page-prev" type="button">Previous
</button> <button id="page-next" type="button">Next</button></p>
<table class="objects"><thead><tr><th>Id</th><th>Status</th><th>Summary</th></tr></thead>
<tbody id="object-list"></tbody></table>
<article id="detail" class="hidden"><h3 id="detail-title" tabindex="-1">
<span id="detail-kind"></span>
<code id="detail-id"></code> <span id="detail-status" class="status"></span></h3>
<ul id="detail-why" class="why hidden" aria-label="why"></ul>
<div id="actions"></div><p id="action-result" role="status"></p>
<div class="cols"><div><h4>Status history</h4><ol id="detail-history" class="timeline"></ol>
<h4>Scheduled jobs</h4><ul id="detail-jobs"></ul>
<h4>Events</h4><ul id="detail-events"></ul></div>
<div><h4>JSON <button id="copy-json" type="button">Copy</button></h4>
<pre id="detail-json"></pre></div></div>
<h4>Deliveries</h4><table><thead><tr><th>#</th><th>At</th><th>Event</th><th>URL</th>
<th>Result</th><th title="response time">ms</th></tr></thead>
<tbody id="detail-deliveries"></tbody></table></article>
<template id="card-options">{card_options}</template></section>

<section id="deliveries"><h2>Deliveries and callbacks <small class="live">live</small></h2>
<form id="delivery-filter"><input id="dfilter-object" placeholder="object id" size="30"
aria-label="Object id"> <input id="dfilter-event" placeholder="event" aria-label="Event">
<select id="dfilter-outcome" aria-label="Outcome"><option value="">any outcome</option>
<option value="ok">succeeded</option><option value="failed">failed</option>
<option value="exhausted">exhausted (no retry left)</option></select>
<button id="replay-filtered" type="button">Replay the filtered</button></form>
<table><thead><tr><th>#</th><th>At</th><th>Event</th><th>Object</th><th>URL</th>
<th>Result</th><th title="response time">ms</th><th></th></tr></thead>
<tbody id="delivery-list"></tbody></table>
<p class="pager"><button id="deliveries-older" type="button">Older</button>
<span id="deliveries-older-said" role="status"></span></p>
<div id="delivery-ops"><h3>Recover and switch off</h3>
<form id="recover-form"><label>Send again what failed since
<input id="recover-since" type="datetime-local" step="1"> UTC</label>
<button id="recover" type="button">Recover</button>
<label>Switch endpoints off after <input id="auto-days" type="number" min="1" max="365"
size="4"> days of only failures</label> <button id="auto-save" type="button">Save</button>
</form>
<table><thead><tr><th>Endpoint</th><th>URL</th><th>State</th><th></th></tr></thead>
<tbody id="endpoint-list"></tbody></table>
<h4>What happened to endpoints</h4><ul id="endpoint-events"></ul></div></section>

<section id="journal"><h2>Request journal <small class="live">live</small></h2>
<form id="journal-filter"><input id="jfilter-path" placeholder="path contains" size="30"
aria-label="Path"> <input id="jfilter-status" placeholder="status" size="6"
aria-label="Status"></form>
<table><thead><tr><th>#</th><th>Time</th><th>Request</th><th>Status</th><th>ms</th>
</tr></thead><tbody id="journal-list"></tbody></table>
<p class="pager"><button id="requests-older" type="button">Older</button>
<span id="requests-older-said" role="status"></span></p></section>

<section id="sink"><h2>Sink</h2><form id="sink-form"><label>Receiver
<input id="sink-name" value="qa" size="20"></label> <button>Show</button>
<code id="sink-url"></code></form><ul id="sink-list"></ul></section>

<section id="expectations"><h2>Expectations <small id="expect-of"></small></h2>
<form id="expect-form"><label for="expect-set">An expectation set for the chosen merchant,
JSON or YAML (<a href="/_emulator/docs#op-merchant_verify">the shape</a>)</label>
<textarea id="expect-set" rows="8" spellcheck="false" aria-describedby="expect-help"
placeholder='{{"expect": [{{"delivery": {{"event": "purchase.paid"}}, "count": 1}}]}}'></textarea>
<p id="expect-help"><small>Ctrl+Enter verifies. With a wait, the answer comes as soon as
every item holds, or after that many seconds.</small></p>
<label>Wait up to <input id="expect-wait" type="number" min="0" max="600" step="any"
value="0" size="5"> seconds</label> <button id="verify-expect">Verify</button></form>
<p id="expect-summary" role="status" aria-live="polite"></p>
<table><thead><tr><th>#</th><th>Result</th><th>What was expected, what happened</th>
<th>Matches</th></tr></thead><tbody id="expect-results"></tbody></table></section>

<section id="receiver"><h2>Receiver check</h2>
<form id="receiver-form"><label>The app's webhook URL <input id="receiver-url" size="50"
placeholder="https://app.test/webhooks" type="url"></label> <label><input type="checkbox"
id="receiver-bank"> bank callbacks</label> <button id="run-receiver-check">Check</button>
<small>Signed probes for the chosen merchant (<a href="/_emulator/docs#op-receiver_check">the
checks</a>).</small></form>
<p id="receiver-summary" role="status" aria-live="polite"></p>
<table><thead><tr><th>Check</th><th>Result</th><th>Why</th></tr></thead>
<tbody id="receiver-results"></tbody></table></section>
<section id="flows"><h2>Flows <small class="live">live</small></h2>
<table><thead><tr><th>Flow</th><th>Description</th><th>Steps</th><th></th></tr></thead>
<tbody id="flow-library"></tbody></table>
<p><a id="export-flow" class="hidden" href="#flows">Export as flow</a> <small id="export-of">
</small></p>
<h3>Runs</h3>
<table><thead><tr><th>#</th><th>Flow</th><th>State</th><th>Steps</th><th>ms</th>
<th>Merchant</th></tr></thead><tbody id="flow-runs"></tbody></table>
<article id="flow-run" class="hidden"><h3>Run <span id="flow-run-number"></span>
<code id="flow-run-flow"></code> <span id="flow-run-state" class="status"></span>
<a id="flow-run-link" href="#flows">link</a> <a id="flow-run-json" href="#flows">JSON</a>
<small>merchant <code id="flow-run-merchant"></code></small></h3>
<table><thead><tr><th>#</th><th>Outcome</th><th>ms</th><th>Instant</th><th>Step</th></tr>
</thead><tbody id="flow-run-steps"></tbody></table><pre id="flow-run-failure"></pre></article>
</section>

<section id="scenarios"><h2>Scenarios</h2>
<table><thead><tr><th>Name</th><th>Description</th><th>Active</th><th></th></tr></thead>
<tbody id="scenario-list"></tbody></table>
<form id="scenario-form"><label for="scenario-yaml">Load a scenario (YAML)</label>
<textarea id="scenario-yaml" rows="8" spellcheck="false"></textarea>
<input type="file" id="scenario-file" accept=".yaml,.yml,text/yaml" aria-label="YAML file">
<button id="load-scenario">Load</button></form>
<div id="scenario-error" class="hidden"><p class="error" id="scenario-message"></p>
<pre id="scenario-lines"></pre></div></section>

<section id="snapshots"><h2>Snapshots</h2><form id="snapshot-form"><label>Name
<input id="snapshot-name" value="qa" size="20"></label> <button>Save</button></form>
<ul id="snapshot-list"></ul></section>

<section id="test-values"><h2>Test values</h2>{cards}</section>
</main>
"""
