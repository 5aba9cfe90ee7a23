<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing\Tests;

use PaymentsEmulator\Testing\BadPathSegment;
use PaymentsEmulator\Testing\Emulator;
use PaymentsEmulator\Testing\EmulatorError;
use PaymentsEmulator\Testing\ExpectationFailed;
use PaymentsEmulator\Testing\StartError;
use PaymentsEmulator\Testing\UsesEmulator;
use PHPUnit\Framework\AssertionFailedError;
use PHPUnit\Framework\TestCase;

/** What the emulator refuses surfaces as an `EmulatorError` with its own code and message. */
final class ErrorsTest extends TestCase
{
    use UsesEmulator;

    public function testAnUnknownMerchantIsA404WithTheEmulatorsMessage(): void
    {
        try {
            $this->emulator->deleteMerchant('no-such-merchant');
            $this->fail('deleted a merchant that does not exist');
        } catch (EmulatorError $error) {
            $this->assertSame(404, $error->status);
            $this->assertSame(404, $error->getCode());
            $this->assertSame('merchant_not_found', $error->errorCode);
            $this->assertSame("no merchant with company_id 'no-such-merchant'", $error->emulatorMessage);
            $this->assertStringContainsString("-> 404 merchant_not_found: no merchant with company_id 'no-such-merchant'", $error->getMessage());
            $this->assertSame('merchant_not_found', $error->body['error']['code']);
        }
    }

    public function testABadExpectationIsA400NamingItsKeyPath(): void
    {
        $this->expectException(EmulatorError::class);
        $this->expectExceptionMessage('expect[0].within');
        $this->emulator->verify($this->merchant, [['event' => ['event' => 'purchase.paid'], 'within' => '5x']]);
    }

    public function testAnExpectationThatDoesNotHoldThrowsTheReport(): void
    {
        try {
            $this->emulator->verify($this->merchant, [['request' => ['method' => 'POST', 'path' => '/api/v1/purchases/'], 'count' => 1]]);
            $this->fail('a verify of a request never made held');
        } catch (ExpectationFailed $failed) {
            $this->assertInstanceOf(\AssertionError::class, $failed);
            $this->assertFalse($failed->report->ok);
            $this->assertStringContainsString("expectations did not hold:\n  FAILED [0]: expected exactly 1 POST /api/v1/purchases/", $failed->getMessage());
        }
        $report = $this->emulator->verify($this->merchant, [['request' => ['method' => 'POST']]], check: false);
        $this->assertFalse($report->ok);
    }

    public function testTheTraitTurnsAFailedExpectationIntoAPhpunitFailure(): void
    {
        try {
            $this->waitFor([['delivery' => ['event' => 'purchase.paid']]], timeoutMs: 50);
        } catch (AssertionFailedError $failure) {
            $this->assertStringContainsString('FAILED [0]', $failure->getMessage());
            $this->assertStringContainsString('purchase.paid', $failure->getMessage());
            return;
        }
        $this->fail('no PHPUnit failure');
    }

    public function testTheGatewaysOwnErrorsComeBackAsAnswers(): void
    {
        $answer = $this->merchant->gateway()->post('purchases/', ['brand_id' => $this->merchant->brandId]);
        $this->assertSame(400, $answer->status);
        $this->assertSame(['message' => 'This field is required.', 'code' => 'required'], $answer->json()['purchase']);
    }

    public function testANameThatIsNotOnePathSegmentIsRefusedBeforeAnyRequest(): void
    {
        $this->expectException(BadPathSegment::class);
        $this->emulator->snapshot('..');
    }

    public function testNothingListeningIsAStartError(): void
    {
        $this->expectException(StartError::class);
        $this->expectExceptionMessage('no emulator answers GET http://127.0.0.1:9/_emulator/health');
        Emulator::connect('http://127.0.0.1:9', waitMs: 100);
    }
}
