// A small checkout integration tested against the emulator with Node's test runner:
//   EMULATOR_URL=http://127.0.0.1:8400 node --test examples/checkout.test.mjs
// The app under test (`checkout`) only knows a base URL and a key, as it would with the
// official SDK; the test gives it a fresh merchant with a frozen clock of its own.

import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';

import { Emulator, expect } from 'payments-emulator';

/** The app: start a checkout for a cart; the purchase the gateway made. */
async function checkout({ basePath, apiKey, brandId }, cart) {
  const response = await fetch(`${basePath}purchases/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      brand_id: brandId,
      client: { email: cart.email },
      purchase: { products: cart.items },
      reference: cart.orderId,
    }),
  });
  if (response.status !== 201) throw new Error(`checkout failed: ${await response.text()}`);
  return response.json();
}

let emu;
let merchant;
let sink;

before(async () => {
  emu = await Emulator.connect(process.env.EMULATOR_URL ?? 'http://127.0.0.1:8400', {
    adminToken: process.env.EMULATOR_ADMIN_TOKEN,
  });
});
after(() => emu.stop());

beforeEach(async () => {
  merchant = await emu.newMerchant({ clock: 'frozen', start: '2026-03-02T08:00:00Z' });
  sink = emu.sink(); // the built-in receiver stands in for the app's webhook endpoint
  await merchant.gateway('webhooks/', {
    method: 'POST',
    json: { title: 'shop', callback: sink.url, events: ['purchase.paid'] },
  });
});

test('a paid checkout is delivered to the shop once', async () => {
  const purchase = await checkout(merchant.sdkConfig(), {
    email: 'jane@example.com', orderId: 'ORDER-1', items: [{ name: 'Book', price: 2500 }],
  });
  await emu.pay(purchase.id); // the payer pays on the checkout page
  await emu.waitFor(merchant, [
    expect.transition(purchase.id, 'paid'),
    expect.delivery('purchase.paid', { sink, count: 1 }),
  ]);
  await emu.verify(merchant, expect.request('POST', '/api/v1/purchases/', {
    body: { reference: 'ORDER-1' }, status: 201, count: 1,
  }));
});

test('an unpaid checkout falls overdue an hour later on the merchant clock', async () => {
  const purchase = await checkout(merchant.sdkConfig(), {
    email: 'jane@example.com', orderId: 'ORDER-2', items: [{ name: 'Pen', price: 900 }],
  });
  const report = await emu.waitFor(merchant, expect.transition(purchase.id, 'overdue'), {
    advanceUpTo: '7d', // the merchant's clock jumps from job to job: milliseconds, not an hour
  });
  assert.equal(report.at, '2026-03-02T09:00:00Z');
  await emu.verify(merchant, expect.delivery('purchase.paid', { never: true }));
});
