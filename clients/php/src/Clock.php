<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * A test's clock control, with time-machine's verbs (`shift`, `moveTo`) too: the server clock,
 * or with `$merchant` that merchant's own clock (it moves nothing else).
 */
final class Clock
{
    public function __construct(
        public readonly Emulator $emulator,
        public readonly Merchant|string|null $merchant = null,
    ) {
    }

    public function info(): ClockInfo
    {
        return $this->emulator->clock($this->merchant);
    }

    public function now(): \DateTimeImmutable
    {
        return $this->info()->now;
    }

    /** `frozen` or `real`. */
    public function mode(): string
    {
        return $this->info()->mode;
    }

    public function freeze(\DateTimeInterface|string|null $at = null): \DateTimeImmutable
    {
        return $this->emulator->freeze($this->merchant, $at)->now;
    }

    public function resume(\DateTimeInterface|string|null $at = null, bool $system = false): \DateTimeImmutable
    {
        return $this->emulator->resume($this->merchant, $at, $system)->now;
    }

    /**
     * Move forward by `$by` (seconds, `"3d"`, `['days' => 3]`) or to `$to` (an instant, or
     * `"next"`: the next scheduled job's due time), running every job that falls due in order;
     * returns how many ran.
     *
     * @param int|float|string|array<string, int|float>|null $by
     */
    public function advance(int|float|string|array|null $by = null, \DateTimeInterface|string|null $to = null): int
    {
        return (int) $this->emulator->advance($this->merchant, $by, $to)->jobsRun;
    }

    /** @param int|float|string|array<string, int|float> $by */
    public function shift(int|float|string|array $by): int
    {
        return $this->advance($by);
    }

    /** Jump to `$at`, backwards too, keeping the mode; no jobs run on the way. */
    public function moveTo(\DateTimeInterface|string $at): \DateTimeImmutable
    {
        return $this->mode() === 'frozen' ? $this->freeze($at) : $this->resume($at);
    }

    /**
     * Advance to the next scheduled job and run it (with any others due then); returns that
     * job. `EmulatorError` 409 `nothing_scheduled` when there is none.
     */
    public function next(): ScheduledJob
    {
        return $this->emulator->next($this->merchant);
    }

    /** @return list<ScheduledJob> this clock's pending jobs, soonest first */
    public function schedule(?string $objectId = null, int $limit = 100): array
    {
        return $this->emulator->schedule($this->merchant, $objectId, $limit);
    }
}
