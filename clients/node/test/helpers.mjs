// What the tests share: the emulator the suite serves (EMULATOR_URL, EMULATOR_ADMIN_TOKEN, set
// by tests/clients/test_node_client.py), and the gateway calls of the stories.

import assert from 'node:assert/strict';

import { Emulator } from '../index.js';

export const START = '2026-03-02T08:00:00Z';

/** The served emulator; a clear failure when the suite did not say where it is. */
export async function served() {
  const url = process.env.EMULATOR_URL;
  assert.ok(url, 'EMULATOR_URL is not set: run these through tests/clients/test_node_client.py');
  return Emulator.connect(url, { adminToken: process.env.EMULATOR_ADMIN_TOKEN || null });
}

/** POST to the gateway as `merchant`; the created object (asserting the 201). */
export async function created(merchant, path, json) {
  const response = await merchant.gateway(path, { method: 'POST', json });
  const body = await response.json();
  assert.equal(response.status, 201, JSON.stringify(body));
  return body;
}

/** A webhook of `merchant` to `sink` for `events`. */
export function webhook(merchant, sink, events) {
  return created(merchant, 'webhooks/', { title: sink.name, callback: sink.url, events });
}
