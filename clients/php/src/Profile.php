<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/** A merchant profile of the bank interface (v2). */
final class Profile
{
    public function __construct(
        public readonly string $profileCode,
        public readonly int $id,
        public readonly int $createdByClient,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function from(array $data): self
    {
        return new self((string) $data['profileCode'], (int) $data['id'], (int) $data['createdByClient']);
    }
}
