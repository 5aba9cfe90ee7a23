<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * Plain HTTP over ext-curl, one handle kept open (its connections are reused). Bodies given as
 * `json` are encoded as JSON (an empty array as `{}`); `content` is sent as it is.
 */
final class Transport
{
    private ?\CurlHandle $curl = null;

    /** @param array<string, string> $headers sent with every request */
    public function __construct(private readonly array $headers = [], public readonly float $timeout = 10.0)
    {
    }

    /**
     * @param array<string, string> $headers
     * @param array<string, scalar|null> $query
     */
    public function request(
        string $method,
        string $url,
        mixed $json = null,
        ?string $content = null,
        array $headers = [],
        array $query = [],
        ?float $timeout = null,
    ): Response {
        $query = array_filter($query, static fn ($v): bool => $v !== null);
        if ($query !== []) {
            $url .= (str_contains($url, '?') ? '&' : '?') . http_build_query(array_map(
                static fn ($v) => is_bool($v) ? ($v ? 'true' : 'false') : $v,
                $query,
            ), '', '&', PHP_QUERY_RFC3986);
        }
        $all = ['Expect' => '', 'Accept' => 'application/json'] + $this->headers;
        foreach ($headers as $name => $value) {
            $all[$name] = $value;
        }
        if ($json !== null) {
            $content = $json === [] ? '{}' : json_encode(
                $json,
                JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_PRESERVE_ZERO_FRACTION,
            );
            $all['Content-Type'] ??= 'application/json';
        }
        $lines = [];
        foreach ($all as $name => $value) {
            $lines[] = $value === '' ? "$name:" : "$name: $value";
        }
        $this->curl ??= curl_init();
        $curl = $this->curl;
        curl_reset($curl);
        $received = [];
        curl_setopt_array($curl, [
            CURLOPT_URL => $url,
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_HTTPHEADER => $lines,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_TIMEOUT_MS => (int) round(($timeout ?? $this->timeout) * 1000),
            CURLOPT_CONNECTTIMEOUT_MS => 5000,
            CURLOPT_HEADERFUNCTION => static function ($handle, string $line) use (&$received): int {
                $parts = explode(':', $line, 2);
                if (count($parts) === 2) {
                    $received[strtolower(trim($parts[0]))] = trim($parts[1]);
                } elseif (str_starts_with($line, 'HTTP/')) {
                    $received = [];  // a new answer (after a 100 Continue)
                }
                return strlen($line);
            },
        ]);
        if ($content !== null) {
            curl_setopt($curl, CURLOPT_POSTFIELDS, $content);
        }
        $body = curl_exec($curl);
        if ($body === false) {
            throw new TransportError(sprintf('%s %s: %s', $method, $url, curl_error($curl)));
        }
        $status = (int) curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
        return new Response($method, $url, $status, $received, (string) $body);
    }

    public function close(): void
    {
        if ($this->curl !== null) {
            curl_close($this->curl);
            $this->curl = null;
        }
    }
}
