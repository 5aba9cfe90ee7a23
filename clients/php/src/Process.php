<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * An emulator this package started: a local `serve` process (its output in a temporary file)
 * or a container. Stopped by `stop()`, or when the PHP process ends.
 */
final class Process
{
    /** @var resource|null */
    private $handle;
    private bool $stopped = false;

    /** @param resource|null $handle */
    private function __construct($handle, private readonly ?string $log, private readonly ?string $container)
    {
        $this->handle = $handle;
        register_shutdown_function([$this, 'stop']);
    }

    /** @param list<string> $argv */
    public static function run(array $argv): self
    {
        $log = tempnam(sys_get_temp_dir(), 'payments-emulator-');
        $handle = @proc_open($argv, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'w'], 2 => ['file', $log, 'a']], $pipes);
        if ($handle === false) {
            @unlink($log);
            throw new StartError('cannot run ' . implode(' ', $argv) . ': ' . (error_get_last()['message'] ?? 'proc_open failed'));
        }
        return new self($handle, $log, null);
    }

    public static function container(string $id): self
    {
        return new self(null, null, $id);
    }

    /** A loopback port free now. */
    public static function freePort(): int
    {
        $server = stream_socket_server('tcp://127.0.0.1:0', $code, $message);
        if ($server === false) {
            throw new StartError("no free port: $message");
        }
        $name = (string) stream_socket_get_name($server, false);
        fclose($server);
        return (int) substr((string) strrchr($name, ':'), 1);
    }

    /**
     * Run `docker ARGS`; its output. `StartError` when docker is missing or fails.
     *
     * @param list<string> $args
     */
    public static function docker(array $args): string
    {
        $handle = @proc_open(['docker', ...$args], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        if ($handle === false) {
            throw new StartError('cannot run docker: ' . (error_get_last()['message'] ?? 'proc_open failed'));
        }
        $out = (string) stream_get_contents($pipes[1]);
        $err = (string) stream_get_contents($pipes[2]);
        fclose($pipes[1]);
        fclose($pipes[2]);
        if (proc_close($handle) !== 0) {
            throw new StartError(sprintf('docker %s failed: %s', $args[0] ?? '', trim($err . $out)));
        }
        return trim($out);
    }

    public function running(): bool
    {
        if ($this->container !== null) {
            return !$this->stopped;
        }
        return $this->handle !== null && proc_get_status($this->handle)['running'];
    }

    /** What the process printed so far (a container's log). */
    public function output(): string
    {
        if ($this->container !== null) {
            try {
                return self::docker(['logs', $this->container]);
            } catch (StartError $error) {
                return $error->getMessage();
            }
        }
        return $this->log !== null && is_file($this->log) ? (string) file_get_contents($this->log) : '';
    }

    /** SIGTERM, then SIGKILL if it has not ended within ten seconds; removes a container. */
    public function stop(): void
    {
        if ($this->stopped) {
            return;
        }
        $this->stopped = true;
        if ($this->container !== null) {
            try {
                self::docker(['rm', '-f', $this->container]);
            } catch (StartError) {
                // already gone
            }
            return;
        }
        if ($this->handle === null) {
            return;
        }
        proc_terminate($this->handle, 15);
        for ($i = 0; $i < 500 && proc_get_status($this->handle)['running']; $i++) {
            usleep(20_000);
        }
        if (proc_get_status($this->handle)['running']) {
            proc_terminate($this->handle, 9);
        }
        proc_close($this->handle);
        $this->handle = null;
        if ($this->log !== null) {
            @unlink($this->log);
        }
    }
}
