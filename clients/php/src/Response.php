<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/** One HTTP answer: its status, headers (names in lower case) and body. */
final class Response
{
    /** @param array<string, string> $headers */
    public function __construct(
        public readonly string $method,
        public readonly string $url,
        public readonly int $status,
        public readonly array $headers,
        public readonly string $body,
    ) {
    }

    /** The body, parsed (arrays for JSON objects); null when it is not JSON. */
    public function json(): mixed
    {
        if ($this->body === '') {
            return null;
        }
        try {
            return json_decode($this->body, true, 512, JSON_THROW_ON_ERROR);
        } catch (\JsonException) {
            return null;
        }
    }

    public function header(string $name): ?string
    {
        return $this->headers[strtolower($name)] ?? null;
    }

    public function isError(): bool
    {
        return $this->status >= 400;
    }
}
