<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing\Examples;

use PaymentsEmulator\Testing\UsesEmulator;
use PHPUnit\Framework\TestCase;

/**
 * The shop's checkout against the emulator: each test has its own merchant and clock
 * (`UsesEmulator`); the emulator plays the payer, and its built-in sink stands in for the
 * shop's webhook endpoint.
 */
final class CheckoutTest extends TestCase
{
    use UsesEmulator;

    public function testAnOrderIsPaidWhenThePurchasePaidWebhookArrives(): void
    {
        $sink = $this->sink();
        $shop = new Shop($this->merchant->gateway(), $this->merchant->brandId);
        $shop->registerWebhook($sink->url);

        $checkoutUrl = $shop->checkout('ORDER-42', 'jane@example.com', 2500);
        $this->assertStringStartsWith($this->emulator->url, $checkoutUrl);
        $this->assertSame('pending', $shop->status('ORDER-42'));

        $this->emulator->pay($shop->purchaseId('ORDER-42'));  // the payer, on the checkout page
        foreach ($sink->waitFor(1) as $message) {
            $shop->handleWebhook($message->body, $message->headers['x-signature']);
        }

        $this->assertSame('paid', $shop->status('ORDER-42'));
        $this->verify([
            ['request' => ['method' => 'POST', 'path' => '/api/v1/purchases/', 'body' => ['reference' => 'ORDER-42']], 'count' => 1],
            ['delivery' => ['event' => 'purchase.paid', 'sink' => $sink->name], 'count' => 1],
        ]);
    }

    public function testADeclinedCardFailsTheOrder(): void
    {
        $sink = $this->sink();
        $shop = new Shop($this->merchant->gateway(), $this->merchant->brandId);
        $shop->registerWebhook($sink->url);
        $shop->checkout('ORDER-43', 'jane@example.com', 2500);

        $this->emulator->pay($shop->purchaseId('ORDER-43'), '4000000000009995', cvc: '123');  // insufficient funds
        foreach ($sink->waitFor(1) as $message) {
            $shop->handleWebhook($message->body, $message->headers['x-signature']);
        }

        $this->assertSame('failed', $shop->status('ORDER-43'));
        $this->verify([['delivery' => ['event' => 'purchase.paid'], 'never' => true]]);
    }
}
