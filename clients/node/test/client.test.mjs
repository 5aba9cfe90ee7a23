// The verbs one by one against the served emulator: errors, clocks, the bank's side, the
// delivery log, sinks, and what needs no emulator (durations, the expect builders).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import {
  BadPathSegment, Emulator, EmulatorClock, EmulatorConnectionError, EmulatorError,
  EmulatorStartError, durationSeconds, expect,
} from '../index.js';
import { START, created, served, webhook } from './helpers.mjs';

let emu;
before(async () => {
  emu = await served();
});
after(() => emu.stop());

test('a 4xx surfaces as an EmulatorError with the emulator message', async () => {
  const error = await emu.pay('no-such-purchase').catch((caught) => caught);
  assert.ok(error instanceof EmulatorError);
  assert.equal(error.status, 404);
  assert.equal(error.code, 'purchase_not_found');
  assert.equal(error.message, error.body.error.message);
  assert.match(String(error), /POST http:\/\/.*\/_emulator\/purchases\/no-such-purchase\/pay -> 404/);
  assert.equal(error.stack.split('\n')[0], String(error)); // what an uncaught one shows
  const shop = await emu.newMerchant(); // follows the server clock: it has none to advance
  await assert.rejects(emu.advance(shop, '1h'), { name: 'EmulatorError', status: 409, code: 'clock_not_own' });
  await assert.rejects(emu.newMerchant({ clock: 'sideways' }), { status: 400, code: 'invalid' });
  assert.throws(() => emu.sink('..'), BadPathSegment);
});

test('a network error names the URL', async () => {
  const nobody = new Emulator('http://127.0.0.1:9');
  await assert.rejects(nobody.health(), (error) => error instanceof EmulatorConnectionError &&
    error.message.startsWith('GET http://127.0.0.1:9/_emulator/health failed: '));
});

test('the clock verbs move a merchant own clock only', async () => {
  const shop = await emu.newMerchant({ clock: 'frozen', start: START });
  const server = await emu.clock();
  assert.deepEqual(await emu.clock(shop), { now: START, mode: 'frozen', own: true });
  const moved = await emu.advance(shop, '3d');
  assert.equal(moved.now, '2026-03-05T08:00:00Z');
  assert.equal(moved.jobsRun, 0);
  assert.equal((await emu.advance(shop, { days: 1, hours: 2 })).now, '2026-03-06T10:00:00Z');
  assert.equal((await emu.advance(shop, 60)).now, '2026-03-06T10:01:00Z');
  assert.equal((await emu.advance(shop, null, { to: new Date('2026-03-07T00:00:00Z') })).now, '2026-03-07T00:00:00Z');
  const later = await emu.clock(); // the server clock did not move with it (or only in real time)
  assert.equal(later.mode, server.mode);
  assert.ok(Date.parse(later.now) - Date.parse(server.now) < 60_000);
  assert.equal((await emu.resume(shop)).mode, 'real');
  assert.equal((await emu.freeze(shop, { at: START })).now, START);
  await emu.setClock(shop, { mode: 'frozen', now: '2026-04-01T00:00:00Z' });
  const clock = new EmulatorClock(emu, shop);
  assert.equal((await clock.now()).toISOString(), '2026-04-01T00:00:00.000Z');
  assert.equal(await clock.mode(), 'frozen');
  const sink = emu.sink(null, { prefix: 'clock' });
  await webhook(shop, sink, ['payout.success']);
  const payout = await created(shop, 'payouts/', {
    client: { email: 'payee@example.com' }, payment: { amount: 500, currency: 'ZAR' }, brand_id: shop.brandId,
  });
  await emu.executePayout(payout.execution_url, { cardNumber: '5555555555554444' });
  const jobs = await emu.schedule(shop, { objectId: payout.id });
  assert.deepEqual(jobs.map((j) => j.kind).sort(), ['payout.expiry', 'payout.settlement']);
  assert.equal(jobs[0].objectId, payout.id);
  assert.equal((await clock.next()).kind, 'payout.expiry'); // it has no effect: executed
  const settled = await clock.next();
  assert.equal(settled.kind, 'payout.settlement');
  assert.equal((await clock.now()).toISOString(), new Date(settled.due).toISOString());
  await assert.rejects(emu.next(shop), { status: 409, code: 'nothing_scheduled' });
  const delivered = await emu.waitForDelivery('payout.success', shop, { objectId: payout.id });
  assert.equal(delivered.json.id, payout.id);
  assert.equal((await sink.clear()), 1);
  assert.deepEqual(await sink.messages(), []);
  await assert.rejects(sink.waitFor(1, { timeoutMs: 100 }), /received 0 of 1 message\(s\) in 100 ms/);
});

test('acting as the debtor and the bank, through the bank interface with OAuth', async () => {
  const shop = await emu.newMerchant({ clock: 'frozen', start: START });
  const sink = emu.sink(null, { prefix: 'bank' });
  const profileCode = shop.profiles[0].profileCode;
  for (const callbackType of ['EFT_COLLECTION', 'DEBICHECK_MANDATE']) {
    const response = await shop.bank('clientcallbackurl/', {
      method: 'POST',
      json: { clientId: shop.profiles[0].createdByClient, url: sink.url, callbackType, callbackVersion: 'V2' },
    });
    assert.equal(response.status, 200, await response.text());
  }
  const debtor = { accountNumber: '62000000001', branchCode: '250655', name: 'J Doe' };
  const post = async (path, json) => (await shop.fetch(`/v2/${path}`, { method: 'POST', json })).json();
  const mandate = await post('mandate/debicheck', {
    debtor, profileCode, externalReference: 'M-1', maxAmountCents: 5000,
  });
  const refused = await post('mandate/debicheck', {
    debtor, profileCode, externalReference: 'M-2', maxAmountCents: 5000,
  });
  const collection = await post('collection/eft', {
    debtor, profileCode, externalReference: 'C-1', amountCents: 1000,
  });
  assert.equal((await emu.authoriseMandate(mandate.id)).status, 'AUTHENTICATED');
  assert.equal((await emu.rejectMandate(refused.id)).status, 'REJECTED');
  const unpaid = await emu.settleCollection(collection.id, { status: 'UNPAID', reasonCode: '22' });
  assert.deepEqual([unpaid.status, unpaid.reasonCode], ['UNPAID', '22']);
  await assert.rejects(emu.settleCollection(collection.id), { name: 'EmulatorError', status: 409 });
  await emu.waitFor(shop, expect.delivery('collection.unpaid', { sink, kind: 'callback' }));
  const callbacks = await emu.deliveries(shop, { kind: 'callback' });
  assert.ok(callbacks.some((d) => d.eventType === 'mandate.authenticated' && d.success));
});

test('durations and the expect builders make the JSON the control plane reads', () => {
  assert.equal(durationSeconds('1h30m'), 5400);
  assert.equal(durationSeconds({ weeks: 1, days: 1 }), 8 * 86400);
  assert.equal(durationSeconds('500ms'), 0.5);
  assert.throws(() => durationSeconds('5x'), /"5x" is not a duration/);
  const refund = expect.request('POST', '/api/v1/purchases/{id}/refund/', { count: 1, id: 'refund' });
  assert.deepEqual(refund, {
    request: { method: 'POST', path: '/api/v1/purchases/{id}/refund/' }, count: 1, id: 'refund',
  });
  assert.deepEqual(expect.delivery('purchase.paid', { sink: { name: 'shop' }, within: '5m', after: refund }), {
    delivery: { event: 'purchase.paid', sink: 'shop' }, within: '5m', after: 'refund',
  });
  assert.deepEqual(expect.request(null, null, { body: { amount: expect.any('integer'), note: expect.regex('a.*') } }), {
    request: { body: { amount: { any: 'integer' }, note: { regex: 'a.*' } } },
  });
  assert.deepEqual(expect.transition('p1', 'paid', { never: true, atLeast: 1 }), {
    transition: { object_id: 'p1', status: 'paid' }, at_least: 1, never: true,
  });
  assert.throws(() => expect.event('purchase.paid', null, { after: expect.event('purchase.created') }), /give that expectation an id/);
});

test('Emulator.start with an image says what is missing without testcontainers', async (t) => {
  const installed = await import('testcontainers').then(() => true, () => false);
  if (installed) return t.skip('testcontainers is installed here');
  await assert.rejects(Emulator.start({ image: 'payments-emulator' }), (error) =>
    error instanceof EmulatorStartError && /needs the testcontainers package/.test(error.message));
  await assert.rejects(Emulator.start({}), EmulatorStartError);
  await assert.rejects(Emulator.start({ command: '/nonexistent/payments-emulator' }),
    { name: 'EmulatorStartError', message: /^cannot run \/nonexistent\/payments-emulator: .*ENOENT/ });
  return undefined;
});

test('a scenario loaded and activated for one merchant declines its payments only', async () => {
  const name = `node-declines-${process.pid}-${Date.now()}`;
  const source = `name: ${name}\ndescription: every payment declined\nrules:\n` +
    '  - when: purchase.payment\n    then: {result: declined, reason: insufficient_funds}\n';
  assert.equal(await emu.loadScenario(source), name);
  const shop = await emu.newMerchant({ clock: 'frozen', start: START });
  const other = await emu.newMerchant({ clock: 'frozen', start: START });
  await emu.activateScenario(name, shop);
  const listed = (await emu.scenarios()).find((s) => s.name === name);
  assert.ok(listed, 'the loaded scenario is listed');
  const buy = (merchant) => created(merchant, 'purchases/', {
    client: { email: 'payer@example.com' },
    purchase: { products: [{ name: 'Book', price: 2500 }] },
    brand_id: merchant.brandId,
  });
  assert.equal((await emu.pay((await buy(shop)).id)).status, 'error');
  assert.equal((await emu.pay((await buy(other)).id)).status, 'paid');
  await emu.deactivateScenario(name, shop);
  assert.equal((await emu.pay((await buy(shop)).id)).status, 'paid');
  const journal = await emu.requests(shop, { limit: 10 });
  assert.equal(journal.length, 2); // its two purchases; the control plane is not journaled
});
