<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/** No HTTP answer at all: nothing listens at the URL, or the request timed out. */
class TransportError extends \RuntimeException
{
}
