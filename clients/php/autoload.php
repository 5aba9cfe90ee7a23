<?php

// The package's PSR-4 autoloader, for a suite without Composer:
//     require 'path/to/clients/php/autoload.php';
// With Composer, composer.json's "autoload" does the same.

declare(strict_types=1);

spl_autoload_register(static function (string $class): void {
    $prefixes = [
        'PaymentsEmulator\\Testing\\Tests\\' => __DIR__ . '/tests/',
        'PaymentsEmulator\\Testing\\Examples\\' => __DIR__ . '/examples/',
        'PaymentsEmulator\\Testing\\' => __DIR__ . '/src/',
    ];
    foreach ($prefixes as $prefix => $dir) {
        if (strncmp($class, $prefix, strlen($prefix)) === 0) {
            $file = $dir . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
            if (is_file($file)) {
                require $file;
            }
            return;
        }
    }
});
