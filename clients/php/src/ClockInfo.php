<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * A clock as the control plane shows it. `own`, for a merchant's clock, says whether the
 * merchant owns it (false: it follows the server clock); null for the server clock.
 * `jobsRun`: how many jobs an advance ran (null for the other verbs).
 */
final class ClockInfo
{
    public function __construct(
        public readonly \DateTimeImmutable $now,
        public readonly string $mode,
        public readonly ?bool $own = null,
        public readonly ?int $jobsRun = null,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function from(array $data): self
    {
        return new self(
            Time::parse((string) $data['now']),
            (string) $data['mode'],
            isset($data['own']) ? (bool) $data['own'] : null,
            isset($data['jobs_run']) ? (int) $data['jobs_run'] : null,
        );
    }
}
