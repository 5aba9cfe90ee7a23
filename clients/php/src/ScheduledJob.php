<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * A pending job as `GET /_emulator/schedule` shows it: when it is due, a stable `kind`
 * (`purchase.expiry`, `payout.settlement`, `delivery.attempt`, ...), the object it acts on and
 * a one-line `description`.
 */
final class ScheduledJob
{
    public function __construct(
        public readonly \DateTimeImmutable $due,
        public readonly string $kind,
        public readonly ?string $objectType,
        public readonly ?string $objectId,
        public readonly string $description,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function from(array $data): self
    {
        return new self(
            Time::parse((string) $data['due']),
            (string) $data['kind'],
            isset($data['object_type']) ? (string) $data['object_type'] : null,
            isset($data['object_id']) ? (string) $data['object_id'] : null,
            (string) $data['description'],
        );
    }
}
