<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * The control plane (`/_emulator/`) of one emulator: reach one that runs (`connect`), start a
 * local `payments-emulator serve` (`start`) or the image (`startImage`). Its methods mirror
 * Python's `emulator.testing.EmulatorClient` in camelCase; the clock verbs, the other side of
 * a flow, expectations and state files are in the traits it uses.
 *
 * Every method throws `EmulatorError` on an error status (with the emulator's code and
 * message), `NotTheEmulator` on an answer that is not JSON, `BadPathSegment` for a name or id
 * that cannot be one path segment (before any request).
 */
final class Emulator
{
    use ClockVerbs;
    use Actors;
    use Expectations;
    use StateFiles;

    /** The package's version: the emulator's, whose control plane it speaks. */
    public const VERSION = '0.1.0';
    /** Milliseconds of one wait request (under a request's timeout). */
    public const WAIT_SLICE_MS = 5000;

    public readonly string $url;
    /** The base URL the emulator reaches itself at (a sink's URL starts with it). */
    public readonly string $callbackUrl;
    private Transport $http;
    private ?Process $process = null;
    /** True once this client moved the server clock or replaced the whole state. */
    public bool $changedClock = false;

    public function __construct(
        string $url,
        public readonly ?string $adminToken = null,
        public readonly float $timeout = 10.0,
        ?string $callbackUrl = null,
    ) {
        $this->url = rtrim($url, '/');
        $this->callbackUrl = rtrim($callbackUrl ?? $this->url, '/');
        $headers = $adminToken !== null && $adminToken !== '' ? ['Authorization' => "Bearer $adminToken"] : [];
        $this->http = new Transport($headers, $timeout);
    }

    /**
     * An emulator that already runs (`make run`, a CI service, a container), once it answers
     * its health check (waiting up to `$waitMs`).
     */
    public static function connect(string $url, ?string $adminToken = null, int $waitMs = 5000): self
    {
        $emulator = new self($url, $adminToken);
        $emulator->awaitHealth($waitMs, null);
        return $emulator;
    }

    /**
     * Start `payments-emulator serve` (the `$command`: a path, or a list such as
     * `['python3', '-m', 'emulator']`) on a free loopback port, its state in memory, and wait
     * until it answers; `stop()` ends it (so does the end of the PHP process). `$clock` and
     * `$start` set its server clock (`serve --clock`, `--start`), `$adminToken` its control
     * plane's token (this client sends it); `$args` are more flags.
     *
     * @param string|list<string> $command
     * @param list<string> $args
     */
    public static function start(
        string|array $command = 'payments-emulator',
        ?string $clock = null,
        \DateTimeInterface|string|null $start = null,
        ?string $adminToken = null,
        array $args = [],
        int $waitMs = 30000,
    ): self {
        $port = Process::freePort();
        $argv = [...(array) $command, 'serve', '--host', '127.0.0.1', '--port', (string) $port,
            '--ephemeral', '--log-level', 'warning'];
        if ($clock !== null) {
            array_push($argv, '--clock', $clock);
        }
        if ($start !== null) {
            array_push($argv, '--start', Time::instant($start));
        }
        if ($adminToken !== null) {
            array_push($argv, '--admin-token', $adminToken);
        }
        $process = Process::run([...$argv, ...$args]);
        $emulator = new self("http://127.0.0.1:$port", $adminToken);
        $emulator->process = $process;
        $emulator->awaitHealth($waitMs, $process);
        return $emulator;
    }

    /**
     * Run the image (`docker run`, a free loopback port mapped to its 8400, state in memory,
     * an admin token of its own) and wait until it answers; `stop()` removes the container.
     * Sinks use the emulator's address inside the container (`http://127.0.0.1:8400`).
     *
     * @param list<string> $dockerArgs more `docker run` options (`-e`, `--network`, ...)
     */
    public static function startImage(string $image = 'payments-emulator', array $dockerArgs = [], int $waitMs = 60000): self
    {
        $token = bin2hex(random_bytes(16));
        $id = Process::docker(['run', '-d', '--rm', '-p', '127.0.0.1::8400', '-e', "EMULATOR_ADMIN_TOKEN=$token",
            '-e', 'EMULATOR_EPHEMERAL=1', ...$dockerArgs, $image]);
        $process = Process::container($id);
        try {
            $mapped = Process::docker(['port', $id, '8400/tcp']);
            $port = (int) substr(strrchr(strtok($mapped, "\n"), ':'), 1);
            $emulator = new self("http://127.0.0.1:$port", $token, callbackUrl: 'http://127.0.0.1:8400');
            $emulator->process = $process;
            $emulator->awaitHealth($waitMs, $process);
            return $emulator;
        } catch (\Throwable $error) {
            $process->stop();
            throw $error;
        }
    }

    /** Stop what `start` or `startImage` started (nothing for `connect`), and close. */
    public function stop(): void
    {
        $this->process?->stop();
        $this->process = null;
        $this->close();
    }

    /** Close the connection (a later call opens another). */
    public function close(): void
    {
        $this->http->close();
    }

    private function awaitHealth(int $waitMs, ?Process $process): void
    {
        $deadline = hrtime(true) + $waitMs * 1_000_000;
        $probe = new Transport([], 2.0);
        while (true) {
            try {
                $answer = $probe->request('GET', "{$this->url}/_emulator/health");
                if ($answer->status === 200 && is_array($answer->json())) {
                    return;
                }
                $problem = "GET /_emulator/health answered {$answer->status}";
            } catch (TransportError $error) {
                $problem = $error->getMessage();
            }
            if ($process !== null && !$process->running()) {
                throw new StartError("the emulator stopped before it answered ($problem):\n" . $process->output());
            }
            if (hrtime(true) > $deadline) {
                $process?->stop();
                throw new StartError(sprintf(
                    "no emulator answers GET %s/_emulator/health within %d ms (%s); start one with"
                    . " `payments-emulator serve`%s",
                    $this->url,
                    $waitMs,
                    $problem,
                    $process !== null ? ":\n" . $process->output() : '',
                ));
            }
            usleep(20_000);  // a starting server's health is the one thing polled
        }
    }

    /**
     * One control-plane request (`$path` relative to `/_emulator/`); its JSON answer.
     *
     * @param array<string, scalar|null> $query
     * @return array<string, mixed>
     */
    public function call(string $method, string $path, mixed $json = null, array $query = [], ?float $timeout = null): array
    {
        return self::object($this->http->request($method, "{$this->url}/_emulator/$path", json: $json, query: $query, timeout: $timeout));
    }

    /**
     * A request to one of the emulator's own pages (a payout's `execution_url`), sent to this
     * emulator whatever host the URL names (behind a proxy or a container's port mapping it
     * names another); its JSON answer.
     *
     * @return array<string, mixed>
     */
    public function page(string $method, string $url, mixed $json = null): array
    {
        $parts = parse_url($url);
        $path = ($parts['path'] ?? '/') . (isset($parts['query']) ? "?{$parts['query']}" : '');
        return self::object($this->http->request($method, $this->url . $path, json: $json));
    }

    /** @return array<string, mixed> */
    private static function object(Response $response): array
    {
        if ($response->isError()) {
            throw new EmulatorError($response);
        }
        $body = ltrim($response->body);
        $json = $response->json();
        if (!str_starts_with($body, '{') || !is_array($json)) {
            throw new NotTheEmulator($response);
        }
        return $json;
    }

    private static function companyId(Merchant|string $merchant): string
    {
        return $merchant instanceof Merchant ? $merchant->companyId : $merchant;
    }

    private static function merchantPath(Merchant|string $merchant, string $rest = ''): string
    {
        $path = 'merchants/' . BadPathSegment::segment(self::companyId($merchant), 'company_id');
        return $rest === '' ? $path : "$path/$rest";
    }

    /** @return array<string, mixed> `status` and `version` */
    public function health(): array
    {
        return $this->call('GET', 'health');
    }

    /** Wipe all state and reseed; the clock goes back to how the emulator was started. */
    public function reset(): ClockInfo
    {
        $this->changedClock = true;
        return ClockInfo::from($this->call('POST', 'reset'));
    }

    /**
     * A fresh merchant that sees nothing of any other. With `$clock` (`frozen` or `real`) or
     * `$start`, it owns a clock of its own, in that mode (frozen by default) at `$start` (the
     * server clock's instant by default); without either it follows the server clock.
     * `$strictRequests`: keys the platform would ignore are refused (400).
     */
    public function newMerchant(
        ?string $name = null,
        ?string $clock = null,
        \DateTimeInterface|string|null $start = null,
        bool $strictRequests = false,
    ): Merchant {
        $body = $name !== null ? ['name' => $name] : [];
        if ($strictRequests) {
            $body['strict_requests'] = true;
        }
        if ($clock !== null || $start !== null) {
            $setting = $clock !== null ? ['mode' => $clock] : [];
            if ($start !== null) {
                $setting['now'] = Time::instant($start);
            }
            $body['clock'] = $setting === [] ? new \stdClass() : $setting;
        }
        return Merchant::from($this->url, $this->call('POST', 'merchants', $body === [] ? null : $body));
    }

    /**
     * Delete a merchant and everything of it (its keys and tokens stop working at once); the
     * answer counts the rows removed by table. The default merchant cannot be (409).
     *
     * @return array<string, mixed>
     */
    public function deleteMerchant(Merchant|string $merchant): array
    {
        return $this->call('DELETE', self::merchantPath($merchant));
    }

    /** @return array<string, mixed> */
    public function snapshot(string $name): array
    {
        return $this->call('POST', 'snapshots/' . BadPathSegment::segment($name, 'snapshot name'));
    }

    /** Put back the whole state saved by `snapshot($name)`, the clock included. */
    public function restore(string $name): ClockInfo
    {
        $this->changedClock = true;
        $path = 'snapshots/' . BadPathSegment::segment($name, 'snapshot name') . '/restore';
        return ClockInfo::from($this->call('POST', $path));
    }

    /**
     * The request journal, newest first (only `$merchant`'s requests when given).
     *
     * @return list<array<string, mixed>>
     */
    public function requests(Merchant|string|null $merchant = null, int $limit = 100): array
    {
        $query = ['limit' => $limit, 'merchant' => $merchant === null ? null : self::companyId($merchant)];
        return $this->call('GET', 'requests', query: $query)['requests'];
    }

    /** @return array<string, mixed> the magic cards and accounts, the schedule of unpaids */
    public function testValues(): array
    {
        return $this->call('GET', 'test-values');
    }

    /** @return list<array<string, mixed>> every scenario (shipped and loaded), with where it is active */
    public function scenarios(): array
    {
        return $this->call('GET', 'scenarios')['scenarios'];
    }

    /**
     * Load (or replace) a scenario from its YAML text; returns its name. The notes on a file
     * in an older form are in `loadScenarioAnswer`'s answer.
     */
    public function loadScenario(string $yaml): string
    {
        return (string) $this->loadScenarioAnswer($yaml)['name'];
    }

    /** @return array<string, mixed> the emulator's whole answer: `name`, `rules`, `notes` */
    public function loadScenarioAnswer(string $yaml): array
    {
        return self::object($this->http->request('POST', "{$this->url}/_emulator/scenarios", content: $yaml,
            headers: ['Content-Type' => 'application/yaml']));
    }

    /**
     * Activate `$name` for one merchant, or for every merchant when none is given.
     *
     * @return array<string, mixed>
     */
    public function activateScenario(string $name, Merchant|string|null $merchant = null): array
    {
        $path = 'scenarios/' . BadPathSegment::segment($name, 'scenario name') . '/activate';
        return $this->call('POST', $path, $merchant === null ? [] : ['merchant' => self::companyId($merchant)]);
    }

    /** @return array<string, mixed> */
    public function deactivateScenario(string $name, Merchant|string|null $merchant = null): array
    {
        $path = 'scenarios/' . BadPathSegment::segment($name, 'scenario name') . '/deactivate';
        return $this->call('POST', $path, $merchant === null ? [] : ['merchant' => self::companyId($merchant)]);
    }

    /** The receiver `$name`, or a new one with a unique name starting with `$prefix`. */
    public function sink(?string $name = null, string $prefix = 'sink'): Sink
    {
        return new Sink($this, $name ?? self::uniqueName($prefix));
    }

    /** A sink or snapshot name no other test picks. */
    public static function uniqueName(string $prefix = 'sink'): string
    {
        $cleaned = substr(trim((string) preg_replace('/[^A-Za-z0-9_.-]+/', '-', $prefix), '-_.'), 0, 48);
        return ($cleaned === '' ? 'sink' : $cleaned) . '-' . bin2hex(random_bytes(6));
    }

    /** A client of `/api/v1/` with `$merchant`'s sandbox API key. */
    public function gateway(Merchant $merchant): HttpClient
    {
        return $merchant->gateway();
    }

    /** A client of `/v2/` with an access token of `$merchant`'s OAuth client. */
    public function bank(Merchant $merchant): HttpClient
    {
        return $merchant->bank();
    }
}
