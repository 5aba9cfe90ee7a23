<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing\Tests;

use PaymentsEmulator\Testing\Clock;
use PaymentsEmulator\Testing\Merchant;
use PaymentsEmulator\Testing\UsesEmulator;
use PHPUnit\Framework\TestCase;

/**
 * Two merchants, each with a clock of its own, run a purchase and a payout story step by step
 * side by side on one emulator: each waits on its own clock and sees only its own deliveries.
 */
final class TwoMerchantsTest extends TestCase
{
    use UsesEmulator;

    private Merchant $payouts;

    protected function merchantClock(): array
    {
        return ['clock' => 'frozen', 'start' => Stories::START];
    }

    protected function setUp(): void
    {
        $this->payouts = $this->emulator->newMerchant(clock: 'frozen', start: Stories::START);
    }

    protected function tearDown(): void
    {
        $this->emulator->deleteMerchant($this->payouts);
    }

    public function testAPurchaseAndAPayoutStoryInterleaved(): void
    {
        [$shop, $payouts] = [$this->merchant, $this->payouts];
        [$shopSink, $payoutSink] = [$this->emulator->sink('shop-' . $shop->companyId), $this->sink()];
        Stories::hook($shop, $shopSink);
        Stories::hook($payouts, $payoutSink);

        $purchase = Stories::purchase($shop->gateway(), $shop);
        $payout = Stories::payout($payouts->gateway(), $payouts);

        $this->assertSame('paid', $this->emulator->pay($purchase['id'])['status']);
        $executed = $this->emulator->executePayout($payout, '5555555555554444');  // pending, success 3 days later
        $this->assertSame('pending', $executed['status']);

        $paid = $this->emulator->waitFor($shop, [
            ['transition' => ['object_id' => $purchase['id'], 'status' => 'paid']],
            ['delivery' => ['event' => 'purchase.paid', 'sink' => $shopSink->name], 'count' => 1],
        ], timeoutMs: 5000);
        $settled = $this->emulator->waitFor($payouts, [
            ['transition' => ['object_id' => $payout['id'], 'status' => 'success']],
            ['delivery' => ['event' => 'payout.success', 'sink' => $payoutSink->name], 'count' => 1],
        ], timeoutMs: 5000, advanceUpTo: '7d');

        $this->assertEquals(new \DateTimeImmutable(Stories::START), $paid->at);
        $this->assertEquals(new \DateTimeImmutable('2026-01-08T09:00:00Z'), $settled->at, 'settled 3 days on');
        $this->assertEquals(new \DateTimeImmutable(Stories::START), (new Clock($this->emulator, $shop))->now());
        $this->assertGreaterThanOrEqual($settled->at, $this->emulator->clock($payouts)->now);

        $events = static fn (array $messages): array => array_map(static fn ($m) => $m->json['event_type'], $messages);
        $this->assertContains('purchase.paid', $events($shopSink->waitFor(1)));
        $this->assertNotContains('payout.success', $events($shopSink->messages()));
        $this->assertContains('payout.success', $events($payoutSink->waitFor(2)));
        $this->emulator->verify($shop, [
            ['request' => ['method' => 'POST', 'path' => '/api/v1/purchases/', 'status' => 201], 'count' => 1],
            ['delivery' => ['event' => 'payout.*'], 'never' => true],
        ]);
        $this->verify(['expect' => [
            ['id' => 'created', 'event' => ['event' => 'purchase.created']],
            ['delivery' => ['event' => 'purchase.paid', 'sink' => $shopSink->name], 'after' => 'created', 'within' => '1m'],
        ]], inOrder: true);
    }
}
