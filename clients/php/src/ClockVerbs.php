<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * The clock verbs of `Emulator`: each acts on the server clock (with every merchant that
 * follows it) when `$merchant` is null, else on that merchant's own clock (409
 * `clock_not_own` if it follows the server clock).
 */
trait ClockVerbs
{
    /** @param array<string, mixed>|null $body */
    private function clockCall(string $path, ?array $body, Merchant|string|null $merchant): ClockInfo
    {
        if ($merchant === null) {
            $this->changedClock = true;
            return ClockInfo::from($this->call('POST', $path, $body));
        }
        return ClockInfo::from(['own' => true] + $this->call('POST', self::merchantPath($merchant, $path), $body));
    }

    /** The server clock, or the clock `$merchant`'s time is read from (`own`: its own or not). */
    public function clock(Merchant|string|null $merchant = null): ClockInfo
    {
        return ClockInfo::from($this->call('GET', $merchant === null ? 'clock' : self::merchantPath($merchant, 'clock')));
    }

    /**
     * Give `$merchant` a clock of its own (or set its own anew): in `$mode` (frozen by default)
     * at `$now` (the server clock's instant by default). A jump: only what is then due runs.
     */
    public function setClock(Merchant|string $merchant, ?string $mode = null, \DateTimeInterface|string|null $now = null): ClockInfo
    {
        $body = $mode !== null ? ['mode' => $mode] : [];
        if ($now !== null) {
            $body['now'] = Time::instant($now);
        }
        return ClockInfo::from($this->call('PUT', self::merchantPath($merchant, 'clock'), $body));
    }

    /**
     * Move forward by `$by` (seconds, `"3d"`, `"1h30m"`, `['days' => 3]`) or to `$to` (an
     * instant, or `"next"`: the next scheduled job's due time), running due jobs in order on
     * the way; the clock, with `jobsRun`.
     *
     * @param int|float|string|array<string, int|float>|null $by
     */
    public function advance(
        Merchant|string|null $merchant,
        int|float|string|array|null $by = null,
        \DateTimeInterface|string|null $to = null,
    ): ClockInfo {
        $body = $by !== null ? ['seconds' => Time::seconds($by)] : [];
        if ($to !== null) {
            $body['to'] = $to === 'next' ? 'next' : Time::instant($to);
        }
        return $this->clockCall('clock/advance', $body, $merchant);
    }

    /** Stop the clock, now or at `$at` (a jump: nothing runs on the way). */
    public function freeze(Merchant|string|null $merchant = null, \DateTimeInterface|string|null $at = null): ClockInfo
    {
        return $this->clockCall('clock/freeze', $at !== null ? ['at' => Time::instant($at)] : null, $merchant);
    }

    /** Real mode again, going on from now (or from `$at`, or exactly on system time). */
    public function resume(
        Merchant|string|null $merchant = null,
        \DateTimeInterface|string|null $at = null,
        bool $system = false,
    ): ClockInfo {
        $body = $at !== null ? ['at' => Time::instant($at)] : ($system ? ['system' => true] : null);
        return $this->clockCall('clock/resume', $body, $merchant);
    }

    /**
     * Advance to the next scheduled job and run it (with any others due then); returns that
     * job. `EmulatorError` 409 `nothing_scheduled` when there is none.
     */
    public function next(Merchant|string|null $merchant = null): ScheduledJob
    {
        $path = $merchant === null ? 'clock/advance' : self::merchantPath($merchant, 'clock/advance');
        if ($merchant === null) {
            $this->changedClock = true;
        }
        return ScheduledJob::from($this->call('POST', $path, ['to' => 'next'])['next']);
    }

    /**
     * Pending jobs, soonest first: of the server clock, or of `$merchant`'s clock; only those
     * acting on `$objectId` when given.
     *
     * @return list<ScheduledJob>
     */
    public function schedule(Merchant|string|null $merchant = null, ?string $objectId = null, int $limit = 100): array
    {
        $path = $merchant === null ? 'schedule' : self::merchantPath($merchant, 'schedule');
        $jobs = $this->call('GET', $path, query: ['limit' => $limit, 'object_id' => $objectId])['jobs'];
        return array_map([ScheduledJob::class, 'from'], $jobs);
    }
}
