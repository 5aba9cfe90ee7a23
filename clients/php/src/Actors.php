<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * `Emulator` acting for the other side of a flow (the payer, the payee, the provider, the
 * debtor, the bank), at once and on the clock of the object's merchant, each returning the
 * object as the interface shows it; and reading what the emulator delivered.
 */
trait Actors
{
    /**
     * Pay a purchase as its payer would on the checkout page: the default test card (paid) or
     * `$cardNumber` (see the test values: declines, 3-D Secure, slow captures). Returns the
     * purchase.
     *
     * @return array<string, mixed>
     */
    public function pay(
        string $purchaseId,
        ?string $cardNumber = null,
        ?string $expires = null,
        ?string $cvc = null,
        ?string $cardholderName = null,
        bool $rememberCard = false,
    ): array {
        $body = array_filter(
            ['card_number' => $cardNumber, 'expires' => $expires, 'cvc' => $cvc, 'cardholder_name' => $cardholderName],
            static fn ($v): bool => $v !== null,
        );
        if ($rememberCard) {
            $body['remember_card'] = true;
        }
        return $this->call('POST', 'purchases/' . BadPathSegment::segment($purchaseId, 'purchase id') . '/pay', $body);
    }

    /**
     * Execute a payout as its payee would: POST the card to its `execution_url` (give the
     * payout as the gateway answered it, or that URL). The default card pays out at once.
     *
     * @param array<string, mixed>|string $payout
     * @return array<string, mixed>
     */
    public function executePayout(
        array|string $payout,
        string $cardNumber = '4444333322221111',
        string $cardholderName = 'Jane Doe',
        string $expiryMonth = '12',
        string $expiryYear = '30',
    ): array {
        $url = is_string($payout) ? $payout : (string) $payout['execution_url'];
        return $this->page('POST', $url, ['card_number' => $cardNumber, 'cardholder_name' => $cardholderName,
            'expiry_month' => $expiryMonth, 'expiry_year' => $expiryYear]);
    }

    /**
     * Settle a pending payout now: as its card planned, or as `$status` (`success`, `failed`).
     *
     * @return array<string, mixed>
     */
    public function settlePayout(string $payoutId, ?string $status = null): array
    {
        $path = 'payouts/' . BadPathSegment::segment($payoutId, 'payout id') . '/settle';
        return $this->call('POST', $path, $status !== null ? ['status' => $status] : []);
    }

    /** @return array<string, mixed> the mandate, after the debtor authorised it */
    public function authoriseMandate(string|int $mandateId): array
    {
        return $this->call('POST', 'mandates/' . BadPathSegment::segment($mandateId, 'mandate id') . '/authorise');
    }

    /** @return array<string, mixed> the mandate, after the debtor rejected it */
    public function rejectMandate(string|int $mandateId): array
    {
        return $this->call('POST', 'mandates/' . BadPathSegment::segment($mandateId, 'mandate id') . '/reject');
    }

    /**
     * The bank's outcome for a collection (EFT or DebiCheck), now: `COMPLETED`, `UNPAID`,
     * `REJECTED` or `DISPUTED`, with a reason code of the schedule of unpaids (`"02"`).
     *
     * @return array<string, mixed>
     */
    public function settleCollection(string|int $collectionId, string $status = 'COMPLETED', ?string $reasonCode = null): array
    {
        $path = 'collections/' . BadPathSegment::segment($collectionId, 'collection id') . '/settle';
        return $this->call('POST', $path, self::outcome($status, $reasonCode));
    }

    /**
     * The bank's outcome for an EFT payment, now.
     *
     * @return array<string, mixed>
     */
    public function settlePayment(string|int $paymentId, string $status = 'COMPLETED', ?string $reasonCode = null): array
    {
        $path = 'payments/' . BadPathSegment::segment($paymentId, 'payment id') . '/settle';
        return $this->call('POST', $path, self::outcome($status, $reasonCode));
    }

    /** @return array<string, string> */
    private static function outcome(string $status, ?string $reasonCode): array
    {
        return $reasonCode === null ? ['status' => $status] : ['status' => $status, 'reasonCode' => $reasonCode];
    }

    /**
     * Delivery attempts, newest first; with `$after` (an attempt id), those after it, oldest
     * first. What is due is sent first.
     *
     * @return list<Delivery>
     */
    public function deliveries(
        Merchant|string|null $merchant = null,
        string|int|null $objectId = null,
        ?string $kind = null,
        ?int $after = null,
        int $limit = 100,
    ): array {
        $query = ['limit' => $limit, 'merchant' => $merchant === null ? null : self::companyId($merchant),
            'object_id' => $objectId, 'kind' => $kind, 'after' => $after];
        return array_map([Delivery::class, 'from'], $this->call('GET', 'deliveries', query: $query)['deliveries']);
    }

    /**
     * Wait until an attempt of `$eventType` shows in the log; the newest one. With a merchant,
     * the emulator answers as soon as it is recorded (`POST .../wait`); without, the delivery
     * log's wait answers with each new attempt. `WaitTimeout` naming what was seen otherwise.
     */
    public function waitForDelivery(
        string $eventType,
        Merchant|string|null $merchant = null,
        string|int|null $objectId = null,
        int $timeoutMs = 5000,
    ): Delivery {
        if ($merchant !== null) {
            $this->waitForAttempt($eventType, $merchant, $objectId, $timeoutMs);
            $seen = $this->deliveries($merchant, $objectId);
        } else {
            $seen = $this->deliveries(null, $objectId);
            $after = $seen === [] ? 0 : $seen[0]->id;
            $left = max(0, $timeoutMs);
            while (self::newest($seen, $eventType) === null) {
                $part = min($left, self::WAIT_SLICE_MS);
                $answer = $this->call('GET', 'deliveries/wait', query: ['after' => $after,
                    'timeout_seconds' => $part / 1000, 'limit' => 1000, 'object_id' => $objectId], timeout: $part / 1000 + 10);
                $new = array_map([Delivery::class, 'from'], $answer['deliveries']);  // oldest first
                $seen = [...array_reverse($new), ...$seen];
                $after = $new === [] ? $after : end($new)->id;
                if ($answer['timed_out']) {
                    $left -= $part;
                    if ($left <= 0) {
                        break;
                    }
                }
            }
        }
        return self::newest($seen, $eventType) ?? throw new WaitTimeout(sprintf(
            'no %s delivery in %d ms; seen: %s',
            $eventType,
            $timeoutMs,
            json_encode(array_map(static fn (Delivery $d) => $d->eventType, $seen)),
        ));
    }

    /** @param list<Delivery> $deliveries newest first */
    private static function newest(array $deliveries, string $eventType): ?Delivery
    {
        foreach ($deliveries as $delivery) {
            if ($delivery->eventType === $eventType) {
                return $delivery;
            }
        }
        return null;
    }

    private function waitForAttempt(string $eventType, Merchant|string $merchant, string|int|null $objectId, int $timeoutMs): void
    {
        $fields = ['event' => $eventType, 'outcome' => 'any'];
        if ($objectId !== null) {
            $fields['object_id'] = (string) $objectId;
        }
        $left = max(0, $timeoutMs);
        while (true) {
            $part = min($left, self::WAIT_SLICE_MS);
            $body = ['expect' => [['delivery' => $fields]], 'timeout_seconds' => $part / 1000];
            if ($this->call('POST', self::merchantPath($merchant, 'wait'), $body, timeout: $part / 1000 + 10)['ok'] || $left <= $part) {
                return;
            }
            $left -= $part;
        }
    }
}
