// Type-checked by the suite (tsc --noEmit -p examples/tsconfig.json), never run: the
// declarations as a TypeScript test would use them.

import {
  Emulator, EmulatorClock, EmulatorError, expect,
  type Delivery, type ExpectationReport, type Merchant, type SinkMessage,
} from 'payments-emulator';

export async function story(url: string, adminToken?: string): Promise<number> {
  const emu: Emulator = await Emulator.connect(url, { adminToken });
  const merchant: Merchant = await emu.newMerchant({ clock: 'frozen', start: new Date('2026-03-02T08:00:00Z') });
  const { basePath, apiKey } = merchant.sdkConfig();
  const sink = emu.sink(null, { prefix: 'typed' });
  const created = await merchant.gateway('purchases/', {
    method: 'POST',
    json: { brand_id: merchant.brandId, client: { email: 'a@example.com' }, purchase: { products: [] } },
  });
  const purchase = (await created.json()) as { id: string };
  await emu.pay(purchase.id, { cardNumber: '4444333322221111' });
  const report: ExpectationReport = await emu.waitFor(
    merchant,
    [expect.transition(purchase.id, 'paid'), expect.delivery('purchase.paid', { sink, count: 1, within: '5m' })],
    { timeoutMs: 5_000, advanceUpTo: { days: 7 } },
  );
  const messages: SinkMessage[] = await sink.waitFor(1, { timeoutMs: 1_000 });
  const sent: Delivery = await emu.waitForDelivery('purchase.paid', merchant);
  const advanced = await emu.advance(merchant, '3d');
  const clock = new EmulatorClock(emu, merchant);
  const ran: number = await clock.advance({ hours: 1 });
  await emu.settleCollection(1, { status: 'UNPAID', reasonCode: '02' });
  try {
    await emu.deleteMerchant('nobody');
  } catch (error) {
    if (error instanceof EmulatorError) return error.status;
  }
  await emu.stop();
  return report.ok ? messages.length + sent.attempt + advanced.jobsRun + ran + basePath.length + apiKey.length : 0;
}
