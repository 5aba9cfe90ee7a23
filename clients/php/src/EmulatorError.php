<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * The emulator answered with an error status. `errorCode` and `emulatorMessage` come from its
 * body (control plane `{"error": {code, message}}`, OAuth `{error, error_description}`); the
 * exception's message is `METHOD URL -> STATUS CODE: MESSAGE`, and `getCode()` the status.
 */
class EmulatorError extends \RuntimeException
{
    public readonly int $status;
    public readonly string $errorCode;
    public readonly string $emulatorMessage;
    /** @var mixed the parsed JSON body (the text when it is not JSON) */
    public readonly mixed $body;
    public readonly Response $response;

    public function __construct(Response $response, ?string $code = null, ?string $message = null)
    {
        $body = $response->json() ?? $response->body;
        $error = is_array($body) ? ($body['error'] ?? null) : null;
        if (is_array($error)) {
            [$found, $text] = [(string) ($error['code'] ?? ''), (string) ($error['message'] ?? '')];
        } elseif (is_string($error)) {
            [$found, $text] = [$error, (string) ($body['error_description'] ?? '')];
        } else {
            $raw = is_string($body) ? $body : (string) json_encode($body);
            [$found, $text] = ['http_error', substr($raw, 0, 500)];
        }
        $this->status = $response->status;
        $this->errorCode = $code ?? $found;
        $this->emulatorMessage = $message ?? $text;
        $this->body = $body;
        $this->response = $response;
        parent::__construct(sprintf(
            '%s %s -> %d %s: %s',
            $response->method,
            $response->url,
            $response->status,
            $this->errorCode,
            $this->emulatorMessage,
        ), $response->status);
    }
}
