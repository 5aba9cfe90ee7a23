// Emulator.start({command}) runs a local `payments-emulator serve` (EMULATOR_COMMAND: the
// suite passes its venv's) on a free port, in memory; the verbs that replace the whole state
// (reset, restore, import) run on it, not on the emulator the other tests share.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Emulator, EmulatorConnectionError, EmulatorError } from '../index.js';

const command = process.env.EMULATOR_COMMAND;

test('Emulator.start runs a local emulator, and its state verbs', { skip: !command && 'EMULATOR_COMMAND is not set' }, async () => {
  const emu = await Emulator.start({ command, args: ['--clock', 'frozen', '--start', '2026-03-02T08:00:00Z'] });
  try {
    assert.equal((await emu.health()).status, 'ok');
    assert.match(emu.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok((await emu.testValues()).cards);
    const shop = await emu.newMerchant({ name: 'Before' });
    await emu.snapshot('before');
    assert.deepEqual(await emu.reset(), { reset: true, now: '2026-03-02T08:00:00Z', mode: 'frozen' });
    await assert.rejects(emu.deleteMerchant(shop), { status: 404 });
    await emu.restore('before');
    const file = await emu.exportState(shop, { format: 'json' });
    assert.equal(JSON.parse(file).merchants[0].name, 'Before');
    const removed = await emu.deleteMerchant(shop);
    assert.ok(Object.keys(removed).length > 0);
    await emu.importState(file);
    assert.equal(JSON.parse(await emu.exportState(shop, { format: 'json' })).merchants[0].name, 'Before');
    await assert.rejects(emu.loadState('nothing-here'), EmulatorError);
  } finally {
    await emu.stop();
  }
  await assert.rejects(emu.health(), EmulatorConnectionError);
});
