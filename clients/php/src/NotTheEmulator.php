<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * A success status whose body is not a JSON object (a web page, say): whatever answers at the
 * URL is not the emulator's control plane. `errorCode` is `not_the_emulator`.
 */
final class NotTheEmulator extends EmulatorError
{
    public function __construct(Response $response)
    {
        $type = $response->header('content-type') ?? 'no content type';
        parent::__construct($response, 'not_the_emulator', sprintf(
            "the answer (%d, %s) is not the control plane's JSON: is this the emulator?",
            $response->status,
            trim(explode(';', $type)[0]),
        ));
    }
}
