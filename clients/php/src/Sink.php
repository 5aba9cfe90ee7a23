<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/** The built-in receiver under one name: register `url` as a webhook or callback URL. */
final class Sink
{
    public readonly string $segment;
    /** Where the emulator delivers to this sink (register it as a webhook's `callback`). */
    public readonly string $url;

    public function __construct(private readonly Emulator $emulator, public readonly string $name)
    {
        $this->segment = BadPathSegment::segment($name, 'sink name');
        $this->url = "{$emulator->callbackUrl}/_emulator/sink/{$this->segment}";
    }

    /** @return list<SinkMessage> what arrived so far, oldest first */
    public function messages(): array
    {
        $answer = $this->emulator->call('GET', "sink/{$this->segment}");
        return array_map([SinkMessage::class, 'from'], $answer['messages']);
    }

    /** Forget what arrived; returns how many messages that was. */
    public function clear(): int
    {
        return (int) $this->emulator->call('DELETE', "sink/{$this->segment}")['deleted'];
    }

    /**
     * Until at least `$count` messages arrived; returns them all. The emulator answers as soon
     * as they have (`GET /_emulator/sink/{name}/wait`: nothing polls), asked in slices of at
     * most five seconds. `WaitTimeout` otherwise, naming what did arrive.
     *
     * @return list<SinkMessage>
     */
    public function waitFor(int $count = 1, int $timeoutMs = 5000): array
    {
        $left = max(0, $timeoutMs);
        while (true) {
            $part = min($left, Emulator::WAIT_SLICE_MS);
            $answer = $this->emulator->call('GET', "sink/{$this->segment}/wait", query: [
                'count' => max(1, $count),
                'timeout_seconds' => $part / 1000,
            ], timeout: $part / 1000 + 10);
            $messages = array_map([SinkMessage::class, 'from'], $answer['messages']);
            if (count($messages) >= $count) {
                return $messages;
            }
            $left -= $part;
            if ($left <= 0) {
                throw new WaitTimeout(sprintf(
                    "sink '%s' received %d of %d message(s) in %d ms: %s",
                    $this->name,
                    count($messages),
                    $count,
                    $timeoutMs,
                    json_encode(array_map(static fn (SinkMessage $m) => substr($m->body, 0, 200), $messages)),
                ));
            }
        }
    }
}
