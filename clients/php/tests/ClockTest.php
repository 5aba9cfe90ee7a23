<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing\Tests;

use PaymentsEmulator\Testing\EmulatorError;
use PaymentsEmulator\Testing\UsesEmulator;
use PHPUnit\Framework\TestCase;

/** The clock verbs, on the test's merchant's own clock: no other merchant moves. */
final class ClockTest extends TestCase
{
    use UsesEmulator;

    protected function merchantClock(): array
    {
        return ['clock' => 'frozen', 'start' => Stories::START];
    }

    public function testAdvanceTakesADurationStringAnArrayOrSeconds(): void
    {
        $info = $this->emulator->advance($this->merchant, '1d12h');
        $this->assertSame('2026-01-06T21:00:00+00:00', $info->now->format(DATE_ATOM));
        $this->assertTrue($info->own);
        $this->assertSame(0, $info->jobsRun);
        $this->emulator->advance($this->merchant, ['days' => 1, 'hours' => 12]);
        $this->emulator->advance($this->merchant, 3600);
        $this->assertSame('2026-01-08T10:00:00+00:00', $this->clock->now()->format(DATE_ATOM));
        $this->assertSame(0, $this->clock->shift('1h'));
        $this->assertSame('frozen', $this->clock->mode());
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('\'3x\' is not a duration');
        $this->clock->advance('3x');
    }

    public function testTheScheduleAndNextRunTheMerchantsJobs(): void
    {
        $purchase = Stories::purchase($this->merchant->gateway(), $this->merchant);
        $jobs = $this->clock->schedule();
        $this->assertSame(['purchase.expiry'], array_map(static fn ($job) => $job->kind, $jobs));
        $this->assertSame($purchase['id'], $jobs[0]->objectId);
        $this->assertEquals($jobs, $this->emulator->schedule($this->merchant, $purchase['id']));
        $ran = $this->emulator->next($this->merchant);
        $this->assertSame('purchase.expiry', $ran->kind);
        $this->assertEquals($jobs[0]->due, $this->clock->now());
        $this->assertSame('overdue', $this->merchant->gateway()->get("purchases/{$purchase['id']}/")->json()['status']);
        $this->assertSame([], $this->clock->schedule());
    }

    public function testFreezeResumeMoveToAndSetClock(): void
    {
        $this->assertSame('2026-02-01T00:00:00+00:00', $this->clock->freeze('2026-02-01T00:00:00Z')->format(DATE_ATOM));
        $resumed = $this->emulator->resume($this->merchant, new \DateTimeImmutable('2026-03-01T00:00:00Z'));
        $this->assertSame('real', $resumed->mode);
        $this->assertSame('real', $this->clock->mode());
        $this->clock->freeze();
        $this->assertSame('2026-01-01T00:00:00+00:00', $this->clock->moveTo('2026-01-01T00:00:00Z')->format(DATE_ATOM));
        $set = $this->emulator->setClock($this->merchant, 'frozen', '2026-04-01T08:00:00Z');
        $this->assertSame(['2026-04-01T08:00:00+00:00', 'frozen'], [$set->now->format(DATE_ATOM), $set->mode]);
        $this->assertSame(['2026-04-01T08:00:00+00:00', true], [$this->clock->info()->now->format(DATE_ATOM), $this->clock->info()->own]);
    }

    public function testAMerchantOnTheServerClockCannotBeAdvancedAlone(): void
    {
        $follower = $this->emulator->newMerchant();
        try {
            $this->assertFalse($this->emulator->clock($follower)->own);
            $this->emulator->advance($follower, '1h');
            $this->fail('advanced a merchant that follows the server clock');
        } catch (EmulatorError $error) {
            $this->assertSame([409, 'clock_not_own'], [$error->status, $error->errorCode]);
        } finally {
            $this->emulator->deleteMerchant($follower);
        }
        $this->assertNull($this->emulator->clock()->own);
    }
}
