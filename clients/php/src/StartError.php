<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/** An emulator that did not start, or does not answer its health check; with its output. */
final class StartError extends \RuntimeException
{
}
