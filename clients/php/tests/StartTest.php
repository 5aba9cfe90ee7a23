<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing\Tests;

use PaymentsEmulator\Testing\Emulator;
use PaymentsEmulator\Testing\EmulatorError;
use PaymentsEmulator\Testing\Process;
use PaymentsEmulator\Testing\StartError;
use PaymentsEmulator\Testing\TransportError;
use PHPUnit\Framework\TestCase;

/** `Emulator::start` runs a local `serve` and `stop` ends it; the image runs through docker. */
final class StartTest extends TestCase
{
    public function testStartServesOnAFreePortUntilStopped(): void
    {
        $command = Stories::emulatorCommand() ?? self::markTestSkipped('PAYMENTS_EMULATOR_COMMAND is not set');
        $emulator = Emulator::start(command: $command, clock: 'frozen', start: Stories::START, adminToken: 'php-secret');
        try {
            $this->assertSame(['status' => 'ok', 'version' => Emulator::VERSION], $emulator->health());
            $this->assertSame('2026-01-05T09:00:00+00:00', $emulator->clock()->now->format(DATE_ATOM));
            $merchant = $emulator->newMerchant();
            $this->assertSame(200, $merchant->gateway()->get('clients/')->status);
            try {
                Emulator::connect($emulator->url)->clock();
                $this->fail('the control plane answered without its admin token');
            } catch (EmulatorError $refused) {
                $this->assertSame([401, 'admin_token_required'], [$refused->status, $refused->errorCode]);
            }
        } finally {
            $emulator->stop();
        }
        $this->expectException(TransportError::class);
        $merchant->gateway()->get('clients/');
    }

    public function testACommandThatIsNotTheEmulatorIsAStartErrorWithItsOutput(): void
    {
        $this->expectException(StartError::class);
        $this->expectExceptionMessage('the emulator stopped before it answered');
        Emulator::start(command: ['sh', '-c', 'echo not an emulator'], waitMs: 5000);
    }

    public function testTheImageRunsThroughDocker(): void
    {
        try {
            Process::docker(['image', 'inspect', 'payments-emulator']);
        } catch (StartError $absent) {
            self::markTestSkipped('docker or the payments-emulator image is absent: ' . $absent->getMessage());
        }
        $emulator = Emulator::startImage('payments-emulator');
        try {
            $this->assertSame('ok', $emulator->health()['status']);
            $merchant = $emulator->newMerchant(clock: 'frozen');
            $this->assertSame('http://127.0.0.1:8400/_emulator/sink/x', $emulator->sink('x')->url);
            $this->assertTrue($emulator->clock($merchant)->own);
        } finally {
            $emulator->stop();
        }
    }
}
