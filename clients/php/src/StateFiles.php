<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/** The state files of `Emulator`: `exportState`, `importState`, `loadState`. */
trait StateFiles
{
    /** The whole state (or `$merchant`'s) as a readable file: `yaml`, or `json`. */
    public function exportState(Merchant|string|null $merchant = null, string $format = 'yaml'): string
    {
        $query = ['format' => $format, 'merchant' => $merchant === null ? null : self::companyId($merchant)];
        $response = $this->http->request('GET', "{$this->url}/_emulator/export", query: $query);
        if ($response->isError()) {
            throw new EmulatorError($response);
        }
        return $response->body;
    }

    /**
     * Load a state file (its YAML or JSON text, or the document as an array), all or nothing:
     * each merchant in it replaces the one with its id.
     *
     * @param string|array<string, mixed> $state
     * @return array<string, mixed>
     */
    public function importState(string|array $state): array
    {
        $this->changedClock = true;  // a file may set the server clock
        if (is_array($state)) {
            return $this->call('POST', 'import', $state);
        }
        return self::object($this->http->request('POST', "{$this->url}/_emulator/import", content: $state,
            headers: ['Content-Type' => 'application/yaml']));
    }

    /**
     * Load the named state from the emulator's `--states` folder (a provider state).
     *
     * @return array<string, mixed>
     */
    public function loadState(string $name): array
    {
        $this->changedClock = true;
        return $this->call('POST', 'states/' . BadPathSegment::segment($name, 'state name'));
    }
}
