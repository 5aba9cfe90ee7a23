<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * The control plane's answer to a verify or a wait: `ok`, one result per expectation (arrays
 * as the emulator answers them: `index`, `id`, `kind`, `ok`, `description`, `expected`,
 * `matched`, `matches`, `message`, `candidates`); a wait's `at` (the instant it all held on
 * the merchant's clock) and `timedOut`.
 */
final class ExpectationReport
{
    /** @param list<array<string, mixed>> $results */
    public function __construct(
        public readonly bool $ok,
        public readonly \DateTimeImmutable $now,
        public readonly array $results,
        public readonly ?\DateTimeImmutable $at = null,
        public readonly bool $timedOut = false,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function from(array $data): self
    {
        return new self(
            (bool) $data['ok'],
            Time::parse((string) $data['now']),
            array_values((array) $data['results']),
            isset($data['at']) ? Time::parse((string) $data['at']) : null,
            (bool) ($data['timed_out'] ?? false),
        );
    }

    /** One line per expectation, with the emulator's sentence for each that failed. */
    public function text(): string
    {
        $lines = [$this->ok ? 'expectations held:' : 'expectations did not hold:'];
        foreach ($this->results as $r) {
            $name = sprintf('[%d]', $r['index']) . (isset($r['id']) ? ' ' . $r['id'] : '');
            $lines[] = sprintf(
                '  %s %s: %s',
                $r['ok'] ? 'ok    ' : 'FAILED',
                $name,
                ($r['message'] ?? null) ?: $r['description'],
            );
        }
        return implode("\n", $lines);
    }
}
