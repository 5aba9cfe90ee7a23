// The control plane (`/_emulator/`) of one emulator: merchants, clocks, the other side of a
// flow, deliveries, sinks, scenarios, expectations and state files. Mirrors Python's
// `emulator.testing.EmulatorClient` in camelCase; every method is async unless it says not.

import { AssertionError } from 'node:assert';
import { randomUUID } from 'node:crypto';

import { seconds, wireDuration } from './duration.js';
import { segment } from './errors.js';
import { reportText } from './expect.js';
import { DEFAULT_TIMEOUT_MS, jsonObject, query, send, text } from './http.js';
import { Merchant, companyId } from './merchant.js';
import { clockInfo, delivery, scheduledJob, sinkMessage } from './records.js';

export const WAIT_SLICE_S = 5; // seconds of one wait request (under a request's timeout)
const SLACK_MS = 10_000; // a wait's request timeout beyond the wait itself
const MAX_ROUNDS = 10_000; // answers of the delivery log's wait read by one waitForDelivery

function instant(value) {
  return value instanceof Date ? value.toISOString() : value;
}

function merchantPath(merchant, ...rest) {
  return ['merchants', segment(companyId(merchant), 'companyId'), ...rest].join('/');
}

function expectations(items) {
  return Array.isArray(items) ? items : [items];
}

/** A sink or snapshot name that no other test will pick. */
export function uniqueName(prefix = 'sink') {
  const cleaned = prefix.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[-_.]+|[-_.]+$/g, '');
  return `${cleaned.slice(0, 48) || 'sink'}-${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}

/** The built-in receiver under one name: register `url` as a webhook or callback URL. */
export class Sink {
  constructor(emulator, name) {
    this.emulator = emulator;
    this.name = name;
    this.segment = segment(name, 'sink name');
    this.url = `${emulator.url}/_emulator/sink/${this.segment}`;
  }

  /** What arrived so far, oldest first. */
  async messages() {
    return (await this.emulator.call('GET', `sink/${this.segment}`)).messages.map(sinkMessage);
  }

  /** Forget what arrived; how many messages that was. */
  async clear() {
    return Number((await this.emulator.call('DELETE', `sink/${this.segment}`)).deleted);
  }

  /** Until at least `count` messages arrived (the emulator answers as each arrives: nothing
   * polls); all of them. An Error naming what arrived when `timeoutMs` passes first. */
  async waitFor(count = 1, { timeoutMs = 5_000 } = {}) {
    let left = Math.max(0, timeoutMs / 1000);
    for (;;) {
      const part = Math.min(left, WAIT_SLICE_S);
      const params = { count: Math.max(1, count), timeout_seconds: part };
      const answer = await this.emulator.call('GET', `sink/${this.segment}/wait`, { params });
      const messages = answer.messages.map(sinkMessage);
      if (messages.length >= count) return messages;
      left -= part;
      if (left <= 0) {
        const bodies = messages.map((m) => m.body.slice(0, 200));
        throw new Error(
          `sink ${JSON.stringify(this.name)} received ${messages.length} of ${count} message(s)` +
            ` in ${timeoutMs} ms: ${JSON.stringify(bodies)}`,
        );
      }
    }
  }
}

export class Emulator {
  #stop;

  /** An emulator's control plane at `url`; `stop` ends what Emulator.start started. */
  constructor(url, { adminToken = null, timeoutMs = DEFAULT_TIMEOUT_MS } = {}, stop = null) {
    this.url = url.replace(/\/+$/, '');
    this.adminToken = adminToken;
    this.timeoutMs = timeoutMs;
    this.#stop = stop;
  }

  /** An emulator already running at `url` (checked with its health endpoint). */
  static async connect(url, options = {}) {
    const emulator = new Emulator(url, options);
    await emulator.health();
    return emulator;
  }

  /** Start an emulator: `{image}` with Testcontainers, or `{command}` (the path of
   * `payments-emulator`) as a local process; see src/start.js. */
  static async start(options = {}) {
    const { start } = await import('./start.js');
    const started = await start(options);
    return new Emulator(started.url, { adminToken: started.adminToken }, started.stop);
  }

  /** Stop what Emulator.start started; nothing for an emulator that was connected to. */
  async stop() {
    const stop = this.#stop;
    this.#stop = null;
    if (stop) await stop();
  }

  #headers(extra = {}) {
    const headers = { ...extra };
    if (this.adminToken) headers.authorization = `Bearer ${this.adminToken}`;
    return headers;
  }

  /** One control-plane request (`path` relative to `/_emulator/`); its JSON answer. */
  async call(method, path, { json, params, timeoutMs } = {}) {
    const url = `${this.url}/_emulator/${path}${query(params)}`;
    const init = { headers: this.#headers() };
    if (json !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(json);
    }
    return jsonObject(method, url, await send(method, url, init, timeoutMs ?? this.timeoutMs));
  }

  /** A request to one of the emulator's own pages (a payout's `execution_url`), sent to this
   * emulator whatever host the URL names (a container's port mapping names another). */
  async page(method, pageUrl, { json } = {}) {
    const parsed = new URL(pageUrl, this.url);
    const url = `${this.url}${parsed.pathname}${parsed.search}`;
    const init = { headers: this.#headers({ 'content-type': 'application/json' }) };
    if (json !== undefined) init.body = JSON.stringify(json);
    return jsonObject(method, url, await send(method, url, init, this.timeoutMs));
  }

  async health() {
    return this.call('GET', 'health');
  }

  /** Wipe all state and reseed; the clock goes back to how the emulator was started. */
  async reset() {
    return clockInfo(await this.call('POST', 'reset'));
  }

  /** A fresh merchant that sees nothing of any other. With `clock` ('frozen' or 'real') or
   * `start` (an instant), it owns a clock of its own; without either it follows the server's. */
  async newMerchant({ name, clock, start, now, strictRequests = false } = {}) {
    const body = {};
    if (name != null) body.name = name;
    if (strictRequests) body.strict_requests = true;
    const at = start ?? now;
    if (clock != null || at != null) {
      body.clock = {};
      if (clock != null) body.clock.mode = clock;
      if (at != null) body.clock.now = instant(at);
    }
    return new Merchant(this.url, await this.call('POST', 'merchants', { json: body }));
  }

  /** Delete a merchant and everything of it; the rows removed by table. */
  async deleteMerchant(merchant) {
    return this.call('DELETE', merchantPath(merchant));
  }

  async snapshot(name) {
    return this.call('POST', `snapshots/${segment(name, 'snapshot name')}`);
  }

  /** Put back the whole state saved by snapshot(name), the clock included. */
  async restore(name) {
    return clockInfo(await this.call('POST', `snapshots/${segment(name, 'snapshot name')}/restore`));
  }

  /** The request journal, newest first (only `merchant`'s when given). */
  async requests(merchant = null, { limit = 100 } = {}) {
    const params = { limit, merchant: merchant == null ? null : companyId(merchant) };
    return (await this.call('GET', 'requests', { params })).requests;
  }

  async testValues() {
    return this.call('GET', 'test-values');
  }

  // --- clocks: the server clock (merchant null) or a merchant's own clock -------------------

  #clockPath(merchant, path) {
    return merchant == null ? path : merchantPath(merchant, path);
  }

  /** The server clock, or the clock `merchant`'s time is read from: {now, mode, own}. */
  async clock(merchant = null) {
    return clockInfo(await this.call('GET', this.#clockPath(merchant, 'clock')));
  }

  /** Give `merchant` a clock of its own (or set it anew): `mode` (frozen by default) at `now`
   * (the server clock's instant by default). A jump: nothing runs on the way. */
  async setClock(merchant, { mode, now } = {}) {
    const body = {};
    if (mode != null) body.mode = mode;
    if (now != null) body.now = instant(now);
    return clockInfo(await this.call('PUT', merchantPath(merchant, 'clock'), { json: body }));
  }

  /** Move `merchant`'s own clock (or the server clock: null) forward by `by` ('3d',
   * {days: 3} or seconds), or `{to}` an instant or 'next', running due jobs in order on the
   * way; {now, mode, own, jobsRun}. EmulatorError 409 clock_not_own for a merchant that
   * follows the server clock. */
  async advance(merchant, by = null, { to } = {}) {
    const body = {};
    if (by != null) body.seconds = seconds(by);
    if (to != null) body.to = instant(to);
    return clockInfo(await this.call('POST', this.#clockPath(merchant, 'clock/advance'), { json: body }));
  }

  /** Stop the clock, now or at `at` (a jump: nothing runs on the way). */
  async freeze(merchant = null, { at } = {}) {
    const body = at == null ? {} : { at: instant(at) };
    return clockInfo(await this.call('POST', this.#clockPath(merchant, 'clock/freeze'), { json: body }));
  }

  /** Real mode again, from now (or from `at`, or exactly on system time: `system: true`). */
  async resume(merchant = null, { at, system = false } = {}) {
    const body = at != null ? { at: instant(at) } : system ? { system: true } : {};
    return clockInfo(await this.call('POST', this.#clockPath(merchant, 'clock/resume'), { json: body }));
  }

  /** Advance to the next scheduled job and run it (with any others due then); that job.
   * EmulatorError 409 nothing_scheduled when there is none. */
  async next(merchant = null) {
    return this.advance(merchant, null, { to: 'next' }).then((answer) => answer.next);
  }

  /** Pending jobs, soonest first (only those acting on `objectId` when given). */
  async schedule(merchant = null, { objectId, limit = 100 } = {}) {
    const params = { limit, object_id: objectId };
    const answer = await this.call('GET', this.#clockPath(merchant, 'schedule'), { params });
    return answer.jobs.map(scheduledJob);
  }

  // --- scenarios -------------------------------------------------------------------------------

  /** Every scenario (shipped and loaded), each with where it is active. */
  async scenarios() {
    return (await this.call('GET', 'scenarios')).scenarios;
  }

  /** Load (or replace) a scenario from its YAML text; its name. */
  async loadScenario(source) {
    return (await this.loadScenarioAnswer(source)).name;
  }

  /** Load (or replace) a scenario; the emulator's whole answer (name, rules, notes). */
  async loadScenarioAnswer(source) {
    const url = `${this.url}/_emulator/scenarios`;
    const init = { headers: this.#headers({ 'content-type': 'application/yaml' }), body: source };
    return jsonObject('POST', url, await send('POST', url, init, this.timeoutMs));
  }

  /** Activate `name` for one merchant, or for every merchant when none is given. */
  async activateScenario(name, merchant = null) {
    const json = merchant == null ? {} : { merchant: companyId(merchant) };
    return this.call('POST', `scenarios/${segment(name, 'scenario name')}/activate`, { json });
  }

  async deactivateScenario(name, merchant = null) {
    const json = merchant == null ? {} : { merchant: companyId(merchant) };
    return this.call('POST', `scenarios/${segment(name, 'scenario name')}/deactivate`, { json });
  }

  // --- sinks and the merchant's own fetch ------------------------------------------------------

  /** The receiver `name`, or a new one with a unique name starting with `prefix`. Not async. */
  sink(name = null, { prefix = 'sink' } = {}) {
    return new Sink(this, name ?? uniqueName(prefix));
  }

  /** fetch bound to the gateway (`/api/v1/`) as `merchant`. Not async. */
  gateway(merchant) {
    return (path, init) => merchant.gateway(path, init);
  }

  /** fetch bound to the bank interface (`/v2/`) as `merchant`. Not async. */
  bank(merchant) {
    return (path, init) => merchant.bank(path, init);
  }

  // --- the other side of a flow ----------------------------------------------------------------

  /** Pay a purchase as its payer: the default test card, or `cardNumber`. The purchase. */
  async pay(purchaseId, { cardNumber, expires, cvc, cardholderName, rememberCard = false } = {}) {
    const card = { card_number: cardNumber, expires, cvc, cardholder_name: cardholderName };
    const json = Object.fromEntries(Object.entries(card).filter(([, v]) => v != null));
    if (rememberCard) json.remember_card = true;
    return this.call('POST', `purchases/${segment(purchaseId, 'purchase id')}/pay`, { json });
  }

  /** Execute a payout as its payee: POST the card to its `execution_url` (the payout as the
   * gateway answered it, or that URL). The payout. */
  async executePayout(payout, {
    cardNumber = '4444333322221111', cardholderName = 'Jane Doe', expiryMonth = '12', expiryYear = '30',
  } = {}) {
    const url = typeof payout === 'string' ? payout : payout.execution_url;
    const json = {
      card_number: cardNumber, cardholder_name: cardholderName,
      expiry_month: expiryMonth, expiry_year: expiryYear,
    };
    return this.page('POST', url, { json });
  }

  /** Settle a pending payout now: as its card planned, or as `status` ('success', 'failed'). */
  async settlePayout(payoutId, { status } = {}) {
    const json = status == null ? {} : { status };
    return this.call('POST', `payouts/${segment(payoutId, 'payout id')}/settle`, { json });
  }

  /** The debtor authorises a PENDING_AUTHENTICATION DebiCheck mandate. */
  async authoriseMandate(mandateId) {
    return this.call('POST', `mandates/${segment(mandateId, 'mandate id')}/authorise`);
  }

  /** The debtor rejects a PENDING_AUTHENTICATION DebiCheck mandate. */
  async rejectMandate(mandateId) {
    return this.call('POST', `mandates/${segment(mandateId, 'mandate id')}/reject`);
  }

  /** The bank's outcome for a collection, now: COMPLETED (default), UNPAID, REJECTED or
   * DISPUTED, with a `reasonCode` where the outcome takes one. */
  async settleCollection(collectionId, { status = 'COMPLETED', reasonCode } = {}) {
    const json = reasonCode == null ? { status } : { status, reasonCode };
    return this.call('POST', `collections/${segment(collectionId, 'collection id')}/settle`, { json });
  }

  /** The bank's outcome for an EFT payment, now. */
  async settlePayment(paymentId, { status = 'COMPLETED', reasonCode } = {}) {
    const json = reasonCode == null ? { status } : { status, reasonCode };
    return this.call('POST', `payments/${segment(paymentId, 'payment id')}/settle`, { json });
  }

  // --- deliveries ------------------------------------------------------------------------------

  /** Delivery attempts, newest first; with `after` (an attempt id), those after it, oldest
   * first. What is due is sent first. */
  async deliveries(merchant = null, { objectId, kind, after, limit = 100 } = {}) {
    const params = {
      limit, merchant: merchant == null ? null : companyId(merchant), object_id: objectId, kind, after,
    };
    return (await this.call('GET', 'deliveries', { params })).deliveries.map(delivery);
  }

  /** Until an attempt of `eventType` shows in the log (the emulator answers as soon as it is
   * recorded: nothing polls); the newest such attempt. An Error naming what was seen when
   * `timeoutMs` passes first. */
  async waitForDelivery(eventType, merchant = null, { objectId, timeoutMs = 5_000 } = {}) {
    const fields = { event: eventType, outcome: 'any' };
    if (objectId != null) fields.object_id = String(objectId);
    let seen = [];
    if (merchant != null) {
      let left = Math.max(0, timeoutMs / 1000);
      for (;;) {
        const part = Math.min(left, WAIT_SLICE_S);
        const json = { expect: [{ delivery: fields }], timeout_seconds: part };
        const timeout = part * 1000 + SLACK_MS;
        const answer = await this.call('POST', merchantPath(merchant, 'wait'), { json, timeoutMs: timeout });
        if (answer.ok || left <= part) break;
        left -= part;
      }
      seen = await this.deliveries(merchant, { objectId });
    } else {
      seen = await this.deliveries(null, { objectId });
      let after = seen.length ? seen[0].id : 0;
      let left = Math.max(0, timeoutMs / 1000);
      for (let round = 0; round < MAX_ROUNDS; round += 1) {
        if (seen.some((d) => d.eventType === eventType) || left <= 0) break;
        const part = Math.min(left, WAIT_SLICE_S);
        const params = { after, timeout_seconds: part, limit: 1000, object_id: objectId };
        const answer = await this.call('GET', 'deliveries/wait', { params, timeoutMs: part * 1000 + SLACK_MS });
        const fresh = answer.deliveries.map(delivery); // oldest first
        seen = [...fresh.reverse(), ...seen];
        after = seen.length ? seen[0].id : after;
        if (answer.timed_out) left -= part;
      }
    }
    const found = seen.find((d) => d.eventType === eventType);
    if (found) return found;
    throw new Error(
      `no ${eventType} delivery in ${timeoutMs} ms; seen: ${JSON.stringify(seen.map((d) => d.eventType))}`,
    );
  }

  // --- expectations ----------------------------------------------------------------------------

  async #expectations(merchant, verb, body, timeoutMs) {
    const report = await this.call('POST', merchantPath(merchant, verb), { json: body, timeoutMs });
    const result = { ...report, timedOut: report.timed_out ?? false };
    delete result.timed_out;
    result.text = () => reportText(report);
    return result;
  }

  /** Whether what happened to `merchant` meets `items` (one expectation or a list, in the
   * JSON shape or from `expect`) now; AssertionError with the report when not (`check:
   * false`: just the report). */
  async verify(merchant, items, { inOrder = false, check = true } = {}) {
    const body = { expect: expectations(items) };
    if (inOrder) body.in_order = true;
    const report = await this.#expectations(merchant, 'verify', body, this.timeoutMs);
    if (check && !report.ok) throw new AssertionError({ message: report.text() });
    return report;
  }

  /** Until `items` hold for `merchant` or `timeoutMs` real milliseconds pass; with
   * `advanceUpTo` (a duration such as '7d'), its own clock steps from one due job to the next,
   * no further than that. AssertionError with the report when they did not hold in time. */
  async waitFor(merchant, items, { timeoutMs = 10_000, advanceUpTo, inOrder = false, check = true } = {}) {
    const body = { expect: expectations(items), timeout_seconds: timeoutMs / 1000 };
    if (inOrder) body.in_order = true;
    if (advanceUpTo != null) body.advance = { up_to: wireDuration(advanceUpTo) };
    const report = await this.#expectations(merchant, 'wait', body, timeoutMs + SLACK_MS);
    if (check && !report.ok) throw new AssertionError({ message: report.text() });
    return report;
  }

  // --- state files -----------------------------------------------------------------------------

  /** The whole state (or `merchant`'s) as a readable file: 'yaml' or 'json'. */
  async exportState(merchant = null, { format = 'yaml' } = {}) {
    const params = { format, merchant: merchant == null ? null : companyId(merchant) };
    const url = `${this.url}/_emulator/export${query(params)}`;
    return text('GET', url, await send('GET', url, { headers: this.#headers() }, this.timeoutMs));
  }

  /** Load a state file (its YAML or JSON text, or the document), all or nothing. */
  async importState(state) {
    if (typeof state === 'object' && state !== null) return this.call('POST', 'import', { json: state });
    const url = `${this.url}/_emulator/import`;
    const init = { headers: this.#headers({ 'content-type': 'application/yaml' }), body: state };
    return jsonObject('POST', url, await send('POST', url, init, this.timeoutMs));
  }

  /** Load the named state from the emulator's `--states` folder. */
  async loadState(name) {
    return this.call('POST', `states/${segment(name, 'state name')}`);
  }
}
