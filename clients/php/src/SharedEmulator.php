<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * The one emulator of a test run, for `UsesEmulator`: the one at `PAYMENTS_EMULATOR_URL` (with
 * `PAYMENTS_EMULATOR_ADMIN_TOKEN`), else one started on first use with the command in
 * `PAYMENTS_EMULATOR_COMMAND` (default `payments-emulator`, found on the PATH), stopped when
 * the run ends.
 */
final class SharedEmulator
{
    private static ?Emulator $emulator = null;

    public static function get(): Emulator
    {
        if (self::$emulator === null) {
            $url = getenv('PAYMENTS_EMULATOR_URL');
            $token = getenv('PAYMENTS_EMULATOR_ADMIN_TOKEN');
            $command = getenv('PAYMENTS_EMULATOR_COMMAND');
            self::$emulator = is_string($url) && $url !== ''
                ? Emulator::connect($url, is_string($token) && $token !== '' ? $token : null)
                : Emulator::start(is_string($command) && $command !== '' ? $command : 'payments-emulator');
        }
        return self::$emulator;
    }

    /** Use this emulator for the rest of the run (a suite's bootstrap may start its own). */
    public static function set(?Emulator $emulator): void
    {
        self::$emulator = $emulator;
    }
}
