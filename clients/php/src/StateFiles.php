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
     * Load a state file, all or nothing: each merchant in it replaces the one with its id.
     * Give its YAML or JSON text as `exportState` wrote it, or the document decoded with
     * objects (`json_decode($text)`): an array decoded with `true` has lost which empty
     * values were objects, and the emulator refuses a list where it reads an object.
     *
     * @param string|array<string, mixed>|object $state
     * @return array<string, mixed>
     */
    public function importState(string|array|object $state): array
    {
        $this->changedClock = true;  // a file may set the server clock
        if (!is_string($state)) {
            return $this->call('POST', 'import', $state);
        }
        $type = str_starts_with(ltrim($state), '{') ? 'application/json' : 'application/yaml';
        return self::object($this->http->request('POST', "{$this->url}/_emulator/import", content: $state,
            headers: ['Content-Type' => $type]));
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
