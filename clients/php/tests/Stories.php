<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing\Tests;

use PaymentsEmulator\Testing\Emulator;
use PaymentsEmulator\Testing\HttpClient;
use PaymentsEmulator\Testing\Merchant;
use PaymentsEmulator\Testing\Sink;

/** The gateway calls the tests' stories make, each asserting its status. */
final class Stories
{
    public const START = '2026-01-05T09:00:00Z';

    /** Register a webhook of every event to `$sink`. */
    public static function hook(Merchant $merchant, Sink $sink): void
    {
        $answer = $merchant->gateway()->post('webhooks/', ['title' => 'all', 'callback' => $sink->url, 'all_events' => true]);
        self::expect(201, $answer->status, $answer->body);
    }

    /** @return array<string, mixed> */
    public static function purchase(HttpClient $gateway, Merchant $merchant, string $reference = 'ORDER-1', int $price = 2500): array
    {
        $answer = $gateway->post('purchases/', [
            'client' => ['email' => 'payer@example.com'],
            'purchase' => ['products' => [['name' => 'Book', 'price' => $price]]],
            'brand_id' => $merchant->brandId,
            'reference' => $reference,
        ]);
        self::expect(201, $answer->status, $answer->body);
        return $answer->json();
    }

    /** @return array<string, mixed> */
    public static function payout(HttpClient $gateway, Merchant $merchant): array
    {
        $answer = $gateway->post('payouts/', [
            'client' => ['email' => 'payee@example.com'],
            'payment' => ['amount' => 500, 'currency' => 'ZAR', 'description' => 'Payout'],
            'brand_id' => $merchant->brandId,
        ]);
        self::expect(201, $answer->status, $answer->body);
        return $answer->json();
    }

    public static function emulatorCommand(): ?string
    {
        $command = getenv('PAYMENTS_EMULATOR_COMMAND');
        return is_string($command) && $command !== '' ? $command : null;
    }

    private static function expect(int $status, int $got, string $body): void
    {
        if ($status !== $got) {
            throw new \UnexpectedValueException("expected $status, got $got: $body");
        }
    }
}
