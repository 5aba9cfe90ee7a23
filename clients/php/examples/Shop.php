<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing\Examples;

use PaymentsEmulator\Testing\HttpClient;

/**
 * A small shop's payment integration, as an application would write it: it creates a purchase
 * for an order, sends the payer to its checkout page, and marks the order paid (or failed)
 * when the gateway's webhook arrives, having checked its signature. It knows nothing of the
 * emulator: only a gateway client (base URL and key) and the webhook's body and signature.
 */
final class Shop
{
    /** @var array<string, array{purchase: string, status: string}> */
    private array $orders = [];
    private string $publicKey = '';

    public function __construct(private readonly HttpClient $gateway, private readonly string $brandId)
    {
    }

    /** Subscribe `$url` (the shop's webhook endpoint) to the purchase events. */
    public function registerWebhook(string $url): void
    {
        $answer = $this->gateway->post('webhooks/', [
            'title' => 'shop',
            'callback' => $url,
            'events' => ['purchase.paid', 'purchase.payment_failure'],
        ]);
        if ($answer->status !== 201) {
            throw new \RuntimeException("webhook refused: {$answer->body}");
        }
        $this->publicKey = $answer->json()['public_key'];
    }

    /** A purchase for the order; the URL to send the payer to. */
    public function checkout(string $orderId, string $email, int $priceCents): string
    {
        $answer = $this->gateway->post('purchases/', [
            'client' => ['email' => $email],
            'purchase' => ['products' => [['name' => "Order $orderId", 'price' => $priceCents]]],
            'brand_id' => $this->brandId,
            'reference' => $orderId,
        ]);
        if ($answer->status !== 201) {
            throw new \RuntimeException("purchase refused: {$answer->body}");
        }
        $purchase = $answer->json();
        $this->orders[$orderId] = ['purchase' => $purchase['id'], 'status' => 'pending'];
        return $purchase['checkout_url'];
    }

    /** The webhook endpoint: a signed purchase event moves its order on. */
    public function handleWebhook(string $body, string $signature): void
    {
        if (openssl_verify($body, (string) base64_decode($signature, true), $this->publicKey, OPENSSL_ALGO_SHA256) !== 1) {
            throw new \RuntimeException('bad webhook signature');
        }
        $event = json_decode($body, true, 512, JSON_THROW_ON_ERROR);
        $orderId = $event['reference'] ?? '';
        if (!isset($this->orders[$orderId]) || $this->orders[$orderId]['purchase'] !== $event['id']) {
            return;  // not one of ours
        }
        $this->orders[$orderId]['status'] = match ($event['event_type']) {
            'purchase.paid' => 'paid',
            'purchase.payment_failure' => 'failed',
            default => $this->orders[$orderId]['status'],
        };
    }

    public function status(string $orderId): string
    {
        return $this->orders[$orderId]['status'];
    }

    public function purchaseId(string $orderId): string
    {
        return $this->orders[$orderId]['purchase'];
    }
}
