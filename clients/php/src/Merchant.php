<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * An isolated merchant's credentials, as `POST /_emulator/merchants` returns them, and where
 * its interfaces are: `gateway()` and `bank()` give HTTP clients signed in as it, and
 * `sdkConfig()` the base URL and key an SDK's client takes.
 */
final class Merchant
{
    /**
     * @param list<Profile> $profiles
     * @param list<string> $brandIds
     */
    public function __construct(
        public readonly string $url,
        public readonly string $companyId,
        public readonly string $name,
        public readonly string $brandId,
        public readonly string $apiKey,
        public readonly string $productionApiKey,
        public readonly string $clientId,
        public readonly string $clientSecret,
        public readonly array $profiles = [],
        public readonly array $brandIds = [],
    ) {
    }

    /** @param array<string, mixed> $data the control plane's answer */
    public static function from(string $url, array $data): self
    {
        return new self(
            rtrim($url, '/'),
            (string) $data['company_id'],
            (string) $data['name'],
            (string) $data['brand_id'],
            (string) $data['api_key'],
            (string) ($data['production_api_key'] ?? ''),
            (string) $data['client_id'],
            (string) $data['client_secret'],
            array_map([Profile::class, 'from'], array_values((array) ($data['profiles'] ?? []))),
            array_map('strval', array_values((array) ($data['brand_ids'] ?? []))),
        );
    }

    /** The gateway's base URL, `<emulator>/api/v1/`. */
    public function gatewayUrl(): string
    {
        return "{$this->url}/api/v1/";
    }

    /** The bank interface's base URL, `<emulator>/v2/`. */
    public function bankUrl(): string
    {
        return "{$this->url}/v2/";
    }

    /** The OAuth token endpoint, `<emulator>/oauth2/token`. */
    public function tokenUrl(): string
    {
        return "{$this->url}/oauth2/token";
    }

    /**
     * What an SDK's client takes to reach this merchant's gateway: its base URL and sandbox key
     * (`base_url`, `api_key`), and for the bank interface `bank_url`, `token_url`,
     * `client_id`, `client_secret`.
     *
     * @return array<string, string>
     */
    public function sdkConfig(): array
    {
        return [
            'base_url' => $this->gatewayUrl(),
            'api_key' => $this->apiKey,
            'bank_url' => $this->bankUrl(),
            'token_url' => $this->tokenUrl(),
            'client_id' => $this->clientId,
            'client_secret' => $this->clientSecret,
        ];
    }

    /** A client of `<emulator>/api/v1/` with this merchant's sandbox API key. */
    public function gateway(float $timeout = 10.0): HttpClient
    {
        return new HttpClient($this->gatewayUrl(), ['Authorization' => "Bearer {$this->apiKey}"], timeout: $timeout);
    }

    /** A client of `<emulator>/v2/` with an access token of this merchant's OAuth client. */
    public function bank(float $timeout = 10.0): HttpClient
    {
        return new HttpClient($this->bankUrl(), [], [$this->tokenUrl(), $this->clientId, $this->clientSecret], $timeout);
    }
}
