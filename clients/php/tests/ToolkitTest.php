<?php

declare(strict_types=1);

namespace PaymentsEmulator\Testing\Tests;

use PaymentsEmulator\Testing\Emulator;
use PaymentsEmulator\Testing\UsesEmulator;
use PHPUnit\Framework\TestCase;

/** Sinks, the delivery log, the bank's side, scenarios, the journal and state files. */
final class ToolkitTest extends TestCase
{
    use UsesEmulator;

    public function testTheVersionIsTheComposerPackages(): void
    {
        $composer = json_decode((string) file_get_contents(__DIR__ . '/../composer.json'), true);
        $this->assertSame($composer['version'], Emulator::VERSION);
    }

    public function testASinkWaitsForWhatArrivesAndClears(): void
    {
        $sink = $this->sink();
        Stories::hook($this->merchant, $sink);
        $purchase = Stories::purchase($this->merchant->gateway(), $this->merchant);
        $messages = $sink->waitFor(1, timeoutMs: 5000);
        $this->assertSame('purchase.created', $messages[0]->json['event_type']);
        $this->assertSame($purchase['id'], $messages[0]->json['id']);
        $delivery = $this->emulator->waitForDelivery('purchase.created', $this->merchant, $purchase['id']);
        $this->assertSame([200, true, $purchase['id']], [$delivery->status, $delivery->success, $delivery->json()['id']]);
        $this->emulator->pay($purchase['id']);
        $paid = $this->emulator->waitForDelivery('purchase.paid', objectId: $purchase['id']);
        $this->assertSame('purchase.paid', $paid->eventType);
        $this->assertSame(['purchase.paid', 'purchase.created'], array_map(
            static fn ($d) => $d->eventType,
            $this->emulator->deliveries($this->merchant, kind: 'webhook'),
        ));
        $this->assertSame(2, $sink->clear());
        $this->assertSame([], $sink->messages());
    }

    public function testTheBankSideSettlesACollectionWithAReasonCode(): void
    {
        $bank = $this->emulator->bank($this->merchant);
        $debtor = ['accountNumber' => '62000000001', 'branchCode' => '250655', 'name' => 'J Doe'];
        $profile = $this->merchant->profiles[0]->profileCode;
        $collection = $bank->post('collection/eft', ['debtor' => $debtor, 'profileCode' => $profile,
            'externalReference' => 'C-1', 'amountCents' => 1000])->json();
        $settled = $this->emulator->settleCollection($collection['id'], 'UNPAID', reasonCode: '04');
        $this->assertSame('UNPAID', $settled['status']);
        $mandate = $bank->post('mandate/debicheck', ['debtor' => $debtor, 'profileCode' => $profile,
            'externalReference' => 'M-1', 'maxAmountCents' => 5000])->json();
        $this->assertSame('AUTHENTICATED', $this->emulator->authoriseMandate($mandate['id'])['status']);
        $this->assertNotNull($bank->accessToken());
    }

    public function testAScenarioForOneMerchant(): void
    {
        $names = array_column($this->emulator->scenarios(), 'name');
        $this->assertNotEmpty($names);
        $this->emulator->activateScenario($names[0], $this->merchant);
        $active = array_column($this->emulator->scenarios(), null, 'name')[$names[0]];
        $this->assertStringContainsString($this->merchant->companyId, json_encode($active));
        $this->emulator->deactivateScenario($names[0], $this->merchant);
    }

    public function testTheJournalTestValuesAndTheMerchantsStateFile(): void
    {
        $this->merchant->gateway()->get('clients/');
        $journal = $this->emulator->requests($this->merchant);
        $this->assertSame(['GET', 200], [$journal[0]['method'], $journal[0]['status']]);
        $this->assertArrayHasKey('cards', $this->emulator->testValues());
        $this->assertStringContainsString($this->merchant->companyId, $this->emulator->exportState($this->merchant));
        $json = json_decode($this->emulator->exportState($this->merchant, format: 'json'), true);
        $this->assertIsArray($json);
    }

    public function testASnapshotRestoresTheWholeStateAndAStateFileReplacesAMerchant(): void
    {
        $name = Emulator::uniqueName('php');
        $this->emulator->snapshot($name);
        $gateway = $this->merchant->gateway();
        $this->assertSame(201, $gateway->post('clients/', ['email' => 'later@example.com'])->status);
        $this->assertTrue($this->emulator->restore($name)->now instanceof \DateTimeImmutable);
        $this->assertSame([], $gateway->get('clients/')->json()['results']);

        $this->assertSame(201, $gateway->post('clients/', ['email' => 'kept@example.com'])->status);
        $json = $this->emulator->exportState($this->merchant, format: 'json');
        $yaml = $this->emulator->exportState($this->merchant);
        $emails = static fn (): array => array_column($gateway->get('clients/')->json()['results'], 'email');
        foreach ([$json, json_decode($json), $yaml] as $state) {
            $gateway->post('clients/', ['email' => 'dropped@example.com']);
            $this->emulator->importState($state);
            $this->assertSame(['kept@example.com'], $emails());
        }
    }
}
