"""Typed helpers of ``EmulatorClient`` that act for the other side of a flow (the payer, the
provider, the debtor, the bank) through the control plane, and read what the emulator sent.

    purchase = gateway.post("purchases/", json=body).json()
    control.pay(purchase["id"])                          # the payer pays with the default card
    control.settle_payout(payout_id, "failed")           # the provider gives up on a payout
    control.authorise_mandate(mandate_id)                # the debtor accepts a DebiCheck mandate
    control.settle_collection(collection_id, "UNPAID")   # the bank's outcome, now
    for attempt in control.deliveries(merchant, object_id=purchase["id"]):
        print(attempt.event_type, attempt.status, attempt.json())

Each acts at once, on the clock of the object's merchant, and returns the object as the
interface shows it (a dict); ``EmulatorError`` when the emulator refuses.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import msgspec

from emulator.testing.records import merchant_path, path_segment

DeliveryKind = Literal["webhook", "success_callback", "callback"]
BankOutcome = Literal["COMPLETED", "UNPAID", "REJECTED", "DISPUTED"]
MAX_ROUNDS = 10_000  # answers of the delivery log's wait read by one wait_for_delivery
WAIT_SLICE = 5.0  # seconds of one wait request (under the client's request timeout)


class Delivery(msgspec.Struct, frozen=True):
    """One delivery attempt (webhook, success callback or bank callback) as
    ``GET /_emulator/deliveries`` shows it: what was sent where, and what came back
    (``status`` None when no HTTP answer came; ``error`` says why)."""

    id: int
    message_id: int
    merchant: str | None
    kind: DeliveryKind
    target_id: str
    event_id: str
    event_type: str
    object_type: str
    object_id: str
    url: str
    headers: dict[str, str]
    body: str
    attempt: int
    at: datetime
    status: int | None
    error: str | None
    success: bool

    def json(self) -> Any:
        """The body, parsed (every delivery is JSON)."""
        return msgspec.json.decode(self.body)


msgspec.json.Decoder(Delivery)  # resolve annotations now, outside any freezegun (testing_records)


class Actors:
    """Mixed into ``EmulatorClient``: ``call`` is its one control-plane request."""

    def call(
        self, method: str, path: str, *, json: Any = None, params: Any = None
    ) -> dict[str, Any]:
        raise NotImplementedError  # pragma: no cover (EmulatorClient.call)

    def pay(
        self,
        purchase_id: str,
        card_number: str | None = None,
        *,
        expires: str | None = None,
        cvc: str | None = None,
        cardholder_name: str | None = None,
        remember_card: bool = False,
    ) -> dict[str, Any]:
        """Pay a purchase as its payer would on the checkout page: the default test card
        (paid) or ``card_number`` (see the test values: declines, 3-D Secure, slow captures);
        3-D Secure completes at once with the card's result. Returns the purchase."""
        card = {
            "card_number": card_number,
            "expires": expires,
            "cvc": cvc,
            "cardholder_name": cardholder_name,
        }
        body: dict[str, Any] = {k: v for k, v in card.items() if v is not None}
        if remember_card:
            body["remember_card"] = True
        return self.call(
            "POST", f"purchases/{path_segment(purchase_id, 'purchase id')}/pay", json=body
        )

    def page(self, method: str, url: str, *, json: Any = None) -> dict[str, Any]:
        raise NotImplementedError  # pragma: no cover (EmulatorClient.page)

    def execute_payout(
        self,
        payout: dict[str, Any] | str,
        card_number: str = "4444333322221111",
        *,
        cardholder_name: str = "Jane Doe",
        expiry_month: str = "12",
        expiry_year: str = "30",
    ) -> dict[str, Any]:
        """Execute a payout as its payee would: POST the card to its ``execution_url`` (the
        payout as the gateway answered it, or that URL). The default card pays out; see the test
        values for the cards that fail. Returns the payout."""
        url = payout if isinstance(payout, str) else str(payout["execution_url"])
        card = {"card_number": card_number, "cardholder_name": cardholder_name,
                "expiry_month": expiry_month, "expiry_year": expiry_year}  # fmt: skip
        return self.page("POST", url, json=card)

    def settle_payout(
        self, payout_id: str, status: Literal["success", "failed"] | None = None
    ) -> dict[str, Any]:
        """Settle a pending payout now: as its card planned, or as ``status`` says."""
        body = {"status": status} if status is not None else {}
        return self.call(
            "POST", f"payouts/{path_segment(payout_id, 'payout id')}/settle", json=body
        )

    def authorise_mandate(self, mandate_id: str | int) -> dict[str, Any]:
        """The debtor authorises a PENDING_AUTHENTICATION DebiCheck mandate."""
        return self.call("POST", f"mandates/{path_segment(mandate_id, 'mandate id')}/authorise")

    def reject_mandate(self, mandate_id: str | int) -> dict[str, Any]:
        """The debtor rejects a PENDING_AUTHENTICATION DebiCheck mandate."""
        return self.call("POST", f"mandates/{path_segment(mandate_id, 'mandate id')}/reject")

    def settle_collection(
        self, collection_id: str | int, status: BankOutcome = "COMPLETED"
    ) -> dict[str, Any]:
        """The bank's outcome for a collection (EFT or DebiCheck), now."""
        return self.call(
            "POST",
            f"collections/{path_segment(collection_id, 'collection id')}/settle",
            json={"status": status},
        )

    def settle_payment(
        self, payment_id: str | int, status: BankOutcome = "COMPLETED"
    ) -> dict[str, Any]:
        """The bank's outcome for an EFT payment, now."""
        return self.call(
            "POST",
            f"payments/{path_segment(payment_id, 'payment id')}/settle",
            json={"status": status},
        )

    def deliveries(
        self,
        merchant: Any = None,
        *,
        object_id: str | int | None = None,
        kind: DeliveryKind | None = None,
        after: int | None = None,
        limit: int = 100,
    ) -> list[Delivery]:
        """Delivery attempts, newest first; with ``after`` (an attempt id), those after it,
        oldest first. ``merchant``: a Merchant or a company_id. What is due is sent first."""
        params: dict[str, Any] = {"limit": limit}
        if merchant is not None:
            params["merchant"] = getattr(merchant, "company_id", merchant)
        for name, value in (("object_id", object_id), ("kind", kind), ("after", after)):
            if value is not None:
                params[name] = value
        found = self.call("GET", "deliveries", params=params)["deliveries"]
        return msgspec.convert(found, list[Delivery])

    def wait_for_delivery(
        self,
        event_type: str,
        merchant: Any = None,
        *,
        object_id: str | int | None = None,
        timeout: float = 5.0,
    ) -> Delivery:
        """Wait until an attempt of ``event_type`` shows in the log; the newest one.
        ``TimeoutError`` naming what was seen otherwise. With ``merchant``, the emulator
        answers as soon as the attempt is recorded (``POST .../wait``); without, the delivery
        log's wait (``GET /_emulator/deliveries/wait``) answers with each new attempt."""
        seen: list[Delivery] = []
        if merchant is not None:
            self._wait_for_attempt(event_type, merchant, object_id, timeout)
            seen = self.deliveries(merchant, object_id=object_id)
            for delivery in seen:
                if delivery.event_type == event_type:
                    return delivery
            raise TimeoutError(
                f"no {event_type} delivery in {timeout}s; seen: {[d.event_type for d in seen]}"
            )
        seen = self.deliveries(None, object_id=object_id)  # newest first
        for delivery in seen:
            if delivery.event_type == event_type:
                return delivery
        after = seen[0].id if seen else 0
        left = max(0.0, timeout)
        for _ in range(MAX_ROUNDS):  # each round ends with new attempts, or a slice waited out
            part = min(left, WAIT_SLICE)
            params: dict[str, Any] = {"after": after, "timeout_seconds": part, "limit": 1000}
            if object_id is not None:
                params["object_id"] = object_id
            answer = self.call("GET", "deliveries/wait", params=params)
            new = msgspec.convert(answer["deliveries"], list[Delivery])  # oldest first
            matching = [d for d in new if d.event_type == event_type]
            if matching:
                return matching[-1]
            seen = [*reversed(new), *seen]
            after = new[-1].id if new else after
            if answer["timed_out"]:
                left -= part
                if left <= 0:
                    break
        raise TimeoutError(
            f"no {event_type} delivery in {timeout}s; seen: {[d.event_type for d in seen]}"
        )

    def _wait_for_attempt(
        self, event_type: str, merchant: Any, object_id: str | int | None, timeout: float
    ) -> None:
        """The emulator's wait for one attempt, in slices shorter than a request's timeout."""
        fields: dict[str, Any] = {"event": event_type, "outcome": "any"}
        if object_id is not None:
            fields["object_id"] = str(object_id)
        path = merchant_path(getattr(merchant, "company_id", merchant), "wait")
        left = max(0.0, timeout)
        while True:
            part = min(left, WAIT_SLICE)
            body = {"expect": [{"delivery": fields}], "timeout_seconds": part}
            if self.call("POST", path, json=body)["ok"] or left <= part:
                return
            left -= part
