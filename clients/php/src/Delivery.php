<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * One delivery attempt (webhook, success callback or bank callback) as
 * `GET /_emulator/deliveries` shows it: what was sent where, and what came back (`status` null
 * when no HTTP answer came; `error` says why).
 */
final class Delivery
{
    /** @param array<string, string> $headers */
    public function __construct(
        public readonly int $id,
        public readonly int $messageId,
        public readonly ?string $merchant,
        public readonly string $kind,
        public readonly string $targetId,
        public readonly string $eventId,
        public readonly string $eventType,
        public readonly string $objectType,
        public readonly string $objectId,
        public readonly string $url,
        public readonly array $headers,
        public readonly string $body,
        public readonly int $attempt,
        public readonly \DateTimeImmutable $at,
        public readonly ?int $status,
        public readonly ?string $error,
        public readonly bool $success,
    ) {
    }

    /** @param array<string, mixed> $d */
    public static function from(array $d): self
    {
        return new self(
            (int) $d['id'],
            (int) $d['message_id'],
            isset($d['merchant']) ? (string) $d['merchant'] : null,
            (string) $d['kind'],
            (string) $d['target_id'],
            (string) $d['event_id'],
            (string) $d['event_type'],
            (string) $d['object_type'],
            (string) $d['object_id'],
            (string) $d['url'],
            (array) $d['headers'],
            (string) $d['body'],
            (int) $d['attempt'],
            Time::parse((string) $d['at']),
            isset($d['status']) ? (int) $d['status'] : null,
            isset($d['error']) ? (string) $d['error'] : null,
            (bool) $d['success'],
        );
    }

    /** The body, parsed (every delivery is JSON). */
    public function json(): mixed
    {
        return json_decode($this->body, true, 512, JSON_THROW_ON_ERROR);
    }
}
