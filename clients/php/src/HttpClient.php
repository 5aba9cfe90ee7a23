<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * A tiny HTTP client on one base URL (a merchant's gateway `/api/v1/` or bank `/v2/`):
 * `get`, `post`, `put`, `patch`, `delete` with a path relative to the base and an optional JSON
 * body; every answer comes back as a `Response`, error statuses too (the API's own dialect is
 * what a test of it asserts). The bank's client fetches an OAuth token from the merchant's
 * client credentials on first use and again after a 401 (tokens expire after 24 hours of
 * emulator time, and one advance can pass that).
 */
final class HttpClient
{
    private Transport $transport;
    private ?string $token = null;

    /**
     * @param array<string, string> $headers
     * @param null|array{string, string, string} $oauth token URL, client id and secret
     */
    public function __construct(
        public readonly string $baseUrl,
        array $headers = [],
        private readonly ?array $oauth = null,
        float $timeout = 10.0,
    ) {
        $this->transport = new Transport($headers, $timeout);
    }

    /**
     * @param array<string, string> $headers
     * @param array<string, scalar|null> $query
     */
    public function request(string $method, string $path, mixed $json = null, array $headers = [], array $query = []): Response
    {
        $url = preg_match('#^https?://#', $path) === 1 ? $path : $this->baseUrl . ltrim($path, '/');
        if ($this->oauth === null) {
            return $this->transport->request($method, $url, json: $json, headers: $headers, query: $query);
        }
        $fresh = $this->token === null;
        $this->token ??= $this->fetchToken();
        $response = $this->transport->request($method, $url, json: $json, query: $query,
            headers: ['Authorization' => "Bearer {$this->token}"] + $headers);
        if ($response->status === 401 && !$fresh) {
            $this->token = $this->fetchToken();
            $response = $this->transport->request($method, $url, json: $json, query: $query,
                headers: ['Authorization' => "Bearer {$this->token}"] + $headers);
        }
        return $response;
    }

    /** @param array<string, scalar|null> $query */
    public function get(string $path, array $query = []): Response
    {
        return $this->request('GET', $path, query: $query);
    }

    public function post(string $path, mixed $json = null): Response
    {
        return $this->request('POST', $path, $json);
    }

    public function put(string $path, mixed $json = null): Response
    {
        return $this->request('PUT', $path, $json);
    }

    public function patch(string $path, mixed $json = null): Response
    {
        return $this->request('PATCH', $path, $json);
    }

    public function delete(string $path): Response
    {
        return $this->request('DELETE', $path);
    }

    /** The access token this client sends (fetched now if it has none yet). */
    public function accessToken(): ?string
    {
        if ($this->oauth !== null) {
            $this->token ??= $this->fetchToken();
        }
        return $this->token;
    }

    private function fetchToken(): string
    {
        [$url, $id, $secret] = $this->oauth;
        $response = $this->transport->request('POST', $url, content: 'grant_type=client_credentials', headers: [
            'Authorization' => 'Basic ' . base64_encode("$id:$secret"),
            'Content-Type' => 'application/x-www-form-urlencoded',
        ]);
        if ($response->status !== 200) {
            throw new EmulatorError($response);
        }
        return (string) $response->json()['access_token'];
    }
}
