// Two merchants, each with its own frozen clock, run a purchase story and a payout story at the
// same time: each waits on its own clock and verifies its own deliveries into its own sink.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { expect } from '../index.js';
import { START, created, served, webhook } from './helpers.mjs';

let emu;
before(async () => {
  emu = await served();
});
after(() => emu.stop());

async function purchaseStory() {
  const shop = await emu.newMerchant({ clock: 'frozen', start: START });
  const sink = emu.sink(null, { prefix: 'purchase-story' });
  await webhook(shop, sink, ['purchase.paid']);
  const purchase = await created(shop, 'purchases/', {
    client: { email: 'payer@example.com' },
    purchase: { products: [{ name: 'Book', price: 2500 }] },
    brand_id: shop.brandId,
  });
  const paid = await emu.pay(purchase.id);
  assert.equal(paid.status, 'paid');
  const [message] = await sink.waitFor(1, { timeoutMs: 5_000 });
  assert.equal(message.json.id, purchase.id);
  await emu.verify(shop, [
    expect.request('POST', '/api/v1/purchases/', { status: 201, count: 1 }),
    expect.delivery('purchase.paid', { sink, objectId: purchase.id, count: 1 }),
    expect.transition(purchase.id, 'paid'),
  ], { inOrder: true });
  return shop;
}

async function payoutStory() {
  const payer = await emu.newMerchant({ clock: 'frozen', start: START });
  const sink = emu.sink(null, { prefix: 'payout-story' });
  await webhook(payer, sink, ['payout.success']);
  const payout = await created(payer, 'payouts/', {
    client: { email: 'payee@example.com' },
    payment: { amount: 700, currency: 'ZAR' },
    brand_id: payer.brandId,
  });
  // this card's payout settles three days later, on the merchant's own clock
  const executed = await emu.executePayout(payout, { cardNumber: '5555555555554444' });
  assert.equal(executed.status, 'pending');
  const report = await emu.waitFor(payer, [
    expect.transition(payout.id, 'success'),
    expect.delivery('payout.success', { sink, count: 1 }),
  ], { advanceUpTo: '7d', timeoutMs: 10_000 });
  assert.equal(report.at, '2026-03-05T08:00:00Z');
  assert.equal((await sink.messages()).length, 1);
  return payer;
}

test('a purchase story and a payout story run in parallel, each on its own clock', async () => {
  const [shop, payer] = await Promise.all([purchaseStory(), payoutStory()]);
  assert.notEqual(shop.companyId, payer.companyId);
  assert.equal((await emu.clock(shop)).now, START); // the payout's three days moved only its own
  assert.deepEqual(await emu.clock(payer), { now: '2026-03-05T08:00:00Z', mode: 'frozen', own: true });
  await emu.verify(shop, expect.request('POST', '/api/v1/payouts/', { never: true }));
});

test('a failed expectation throws an AssertionError with the report', async () => {
  const shop = await emu.newMerchant({ clock: 'frozen', start: START });
  await assert.rejects(
    emu.verify(shop, expect.request('POST', '/api/v1/purchases/', { count: 1 })),
    (error) => error instanceof assert.AssertionError &&
      /expected exactly 1 POST \/api\/v1\/purchases\/, saw none/.test(error.message) &&
      error.message.startsWith('expectations did not hold:'),
  );
  await assert.rejects(
    emu.waitFor(shop, [{ event: { event: 'purchase.paid' } }], { timeoutMs: 200 }),
    (error) => error instanceof assert.AssertionError && /FAILED \[0\]/.test(error.message),
  );
  const quiet = await emu.verify(shop, expect.event('purchase.paid'), { check: false });
  assert.equal(quiet.ok, false);
  assert.match(quiet.text(), /FAILED/);
});
