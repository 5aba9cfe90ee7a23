<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * `verify` and `waitFor` of `Emulator`: expectations in the control plane's JSON shape, as PHP
 * arrays (a list of items, or the whole set with `expect`, `in_order`, `start`):
 *
 *     $emulator->waitFor($merchant, [
 *         ['transition' => ['object_id' => $payout['id'], 'status' => 'success']],
 *         ['delivery' => ['event' => 'payout.success', 'sink' => $sink->name], 'count' => 1],
 *     ], advanceUpTo: '7d');
 *
 * Both throw `ExpectationFailed` (an `\AssertionError`) with the report's text when the
 * expectations do not hold (`check: false`: just the report).
 */
trait Expectations
{
    /**
     * Whether what happened to `$merchant` meets `$expectations` now.
     *
     * @param array<int|string, mixed> $expectations
     */
    public function verify(Merchant|string $merchant, array $expectations, bool $inOrder = false, bool $check = true): ExpectationReport
    {
        return $this->expectations($merchant, 'verify', self::expectationSet($expectations, $inOrder), null, $check);
    }

    /**
     * Until `$expectations` hold for `$merchant` or `$timeoutMs` real milliseconds pass; with
     * `$advanceUpTo` (a duration: `"7d"`, `['days' => 7]`, seconds), the merchant's own clock
     * steps from one due job to the next, no further than that.
     *
     * @param array<int|string, mixed> $expectations
     * @param int|float|string|array<string, int|float>|null $advanceUpTo
     */
    public function waitFor(
        Merchant|string $merchant,
        array $expectations,
        int $timeoutMs = 10000,
        int|float|string|array|null $advanceUpTo = null,
        bool $inOrder = false,
        bool $check = true,
    ): ExpectationReport {
        $body = self::expectationSet($expectations, $inOrder);
        $body['timeout_seconds'] = $timeoutMs / 1000;
        if ($advanceUpTo !== null) {
            $body['advance'] = ['up_to' => $advanceUpTo];
        }
        return $this->expectations($merchant, 'wait', $body, $timeoutMs / 1000 + 10, $check);
    }

    /**
     * @param array<int|string, mixed> $expectations
     * @return array<string, mixed>
     */
    private static function expectationSet(array $expectations, bool $inOrder): array
    {
        $body = array_key_exists('expect', $expectations) ? $expectations : ['expect' => array_values($expectations)];
        if ($inOrder) {
            $body['in_order'] = true;
        }
        return $body;
    }

    /** @param array<string, mixed> $body */
    private function expectations(Merchant|string $merchant, string $verb, array $body, ?float $timeout, bool $check): ExpectationReport
    {
        $report = ExpectationReport::from($this->call('POST', self::merchantPath($merchant, $verb), $body, timeout: $timeout));
        if ($check && !$report->ok) {
            throw new ExpectationFailed($report);
        }
        return $report;
    }
}
