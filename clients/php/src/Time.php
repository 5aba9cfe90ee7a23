<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing;

/** Instants and durations as the control plane reads and writes them. */
final class Time
{
    private const UNITS = [
        'w' => 604800, 'weeks' => 604800, 'd' => 86400, 'days' => 86400, 'h' => 3600,
        'hours' => 3600, 'm' => 60, 'minutes' => 60, 's' => 1, 'seconds' => 1, 'ms' => 0.001,
        'milliseconds' => 0.001,
    ];

    /**
     * An instant as ISO-8601 UTC with a Z: a `DateTimeInterface`, or a string the control plane
     * reads (`2026-01-05T09:00:00Z`; one without an offset is UTC).
     */
    public static function instant(\DateTimeInterface|string $value): string
    {
        if (is_string($value)) {
            return $value;
        }
        $utc = \DateTimeImmutable::createFromInterface($value)->setTimezone(new \DateTimeZone('UTC'));
        $micro = (int) $utc->format('u');
        return $utc->format('Y-m-d\TH:i:s') . ($micro === 0 ? '' : sprintf('.%06d', $micro)) . 'Z';
    }

    /** An instant of the control plane's answers. */
    public static function parse(string $value): \DateTimeImmutable
    {
        return (new \DateTimeImmutable($value))->setTimezone(new \DateTimeZone('UTC'));
    }

    /**
     * A duration in seconds: a number of seconds, `"3d"`, `"1h30m"`, `"500ms"`, `"2w"`, or
     * `['days' => 3, 'hours' => 1]` (weeks, days, hours, minutes, seconds, milliseconds).
     *
     * @param int|float|string|array<string, int|float> $value
     */
    public static function seconds(int|float|string|array $value): float
    {
        if (is_int($value) || is_float($value)) {
            return (float) $value;
        }
        if (is_array($value)) {
            $total = 0.0;
            foreach ($value as $unit => $amount) {
                if (!isset(self::UNITS[$unit]) || strlen((string) $unit) < 3) {
                    throw new \InvalidArgumentException(sprintf(
                        "'%s' is not a unit of a duration: give weeks, days, hours, minutes, seconds or milliseconds",
                        $unit,
                    ));
                }
                $total += $amount * self::UNITS[$unit];
            }
            return $total;
        }
        $text = trim($value);
        if (is_numeric($text)) {
            return (float) $text;
        }
        if (preg_match('/^(?:\d+(?:\.\d+)?(?:ms|w|d|h|m|s))+$/', $text) !== 1) {
            throw new \InvalidArgumentException(sprintf("'%s' is not a duration (such as \"90s\", \"3d\", \"1h30m\")", $value));
        }
        preg_match_all('/(\d+(?:\.\d+)?)(ms|w|d|h|m|s)/', $text, $parts, PREG_SET_ORDER);
        $total = 0.0;
        foreach ($parts as [, $amount, $unit]) {
            $total += (float) $amount * self::UNITS[$unit];
        }
        return $total;
    }
}
