<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * Expectations that did not hold (or not in time): the message is the report's text, one line
 * per expectation with the emulator's sentence. An `\AssertionError`, so PHPUnit (and any
 * runner that knows PHP's own assertion error) counts it as a failed test, not an error.
 */
final class ExpectationFailed extends \AssertionError
{
    public function __construct(public readonly ExpectationReport $report)
    {
        parent::__construct($report->text());
    }
}
