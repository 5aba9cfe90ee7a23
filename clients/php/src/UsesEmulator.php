<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * A PHPUnit test case's emulator, merchant and clock (`use UsesEmulator;` in a `TestCase`):
 * before each test a fresh merchant with a clock of its own (frozen at the server clock's
 * instant, unless `merchantClock()` says otherwise), deleted after it; the emulator is the
 * run's one (`SharedEmulator`: `PAYMENTS_EMULATOR_URL`, or started once). `verify` and
 * `waitFor` fail the test with the emulator's report when the expectations do not hold.
 *
 * The set-up and tear-down are `@before` / `@after` methods, so a test case keeps its own
 * `setUp` and `tearDown`.
 */
trait UsesEmulator
{
    protected Emulator $emulator;
    protected Merchant $merchant;
    protected Clock $clock;

    /**
     * How each test's merchant is made: `newMerchant`'s arguments. A frozen clock of its own
     * by default; `['clock' => 'frozen', 'start' => '2026-01-05T09:00:00Z']` sets its instant.
     *
     * @return array<string, mixed>
     */
    protected function merchantClock(): array
    {
        return ['clock' => 'frozen'];
    }

    /** @before */
    #[\PHPUnit\Framework\Attributes\Before]
    public function setUpEmulatorMerchant(): void
    {
        $this->emulator = SharedEmulator::get();
        $this->merchant = $this->emulator->newMerchant(...$this->merchantClock());
        $this->clock = new Clock($this->emulator, $this->merchant);
    }

    /** @after */
    #[\PHPUnit\Framework\Attributes\After]
    public function tearDownEmulatorMerchant(): void
    {
        if (isset($this->merchant)) {
            $this->emulator->deleteMerchant($this->merchant);
        }
    }

    /** A sink with a name unique to this test. */
    protected function sink(): Sink
    {
        return $this->emulator->sink(prefix: (new \ReflectionClass($this))->getShortName());
    }

    /**
     * `Emulator::verify` for this test's merchant, a PHPUnit failure with the report when the
     * expectations do not hold.
     *
     * @param array<int|string, mixed> $expectations
     */
    protected function verify(array $expectations, bool $inOrder = false): ExpectationReport
    {
        try {
            $report = $this->emulator->verify($this->merchant, $expectations, $inOrder);
        } catch (ExpectationFailed $failed) {
            static::fail($failed->getMessage());
        }
        $this->addToAssertionCount(1);
        return $report;
    }

    /**
     * `Emulator::waitFor` for this test's merchant (its own clock steps up to `$advanceUpTo`),
     * a PHPUnit failure with the report when the expectations did not hold in time.
     *
     * @param array<int|string, mixed> $expectations
     * @param int|float|string|array<string, int|float>|null $advanceUpTo
     */
    protected function waitFor(array $expectations, int $timeoutMs = 10000, int|float|string|array|null $advanceUpTo = null, bool $inOrder = false): ExpectationReport
    {
        try {
            $report = $this->emulator->waitFor($this->merchant, $expectations, $timeoutMs, $advanceUpTo, $inOrder);
        } catch (ExpectationFailed $failed) {
            static::fail($failed->getMessage());
        }
        $this->addToAssertionCount(1);
        return $report;
    }
}
