<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/** One request the built-in receiver recorded; `json` is the parsed body or null. */
final class SinkMessage
{
    /** @param array<string, string> $headers */
    public function __construct(
        public readonly int $id,
        public readonly \DateTimeImmutable $receivedAt,
        public readonly string $method,
        public readonly string $path,
        public readonly array $headers,
        public readonly string $body,
        public readonly mixed $json,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function from(array $data): self
    {
        return new self(
            (int) $data['id'],
            Time::parse((string) $data['received_at']),
            (string) $data['method'],
            (string) $data['path'],
            (array) $data['headers'],
            (string) $data['body'],
            $data['json'] ?? null,
        );
    }
}
