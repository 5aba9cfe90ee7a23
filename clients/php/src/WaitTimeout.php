<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/** What a wait waited for did not happen in time (a sink's messages, a delivery). */
final class WaitTimeout extends \RuntimeException
{
}
