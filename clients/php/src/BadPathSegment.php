<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/**
 * A name or id that cannot be one segment of a URL path (empty, `.`, `..`, or with control
 * characters): refused before any request is made.
 */
final class BadPathSegment extends \InvalidArgumentException
{
    /** `$value` as exactly one percent-encoded path segment (`/`, `?`, `#`, `%` included). */
    public static function segment(string|int $value, string $what = 'name'): string
    {
        $text = (string) $value;
        if ($text === '' || $text === '.' || $text === '..') {
            throw new self(sprintf("%s '%s' cannot name anything: give a real name", $what, $text));
        }
        if (preg_match('/[\x00-\x1f\x7f]|\xc2[\x80-\x9f]/', $text) === 1) {
            throw new self(sprintf('%s %s holds control characters', $what, json_encode($text)));
        }
        return rawurlencode($text);
    }
}
