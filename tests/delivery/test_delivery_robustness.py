"""Deliveries under stress: a receiver that hangs holds up no request, a reordered message
releases nothing, a stale send job does nothing, card fields are whole-string checks."""

from __future__ import annotations

import asyncio
import time

import httpx

from emulator.delivery.engine import SEND_JOB
from tests.delivery.test_deliveries import CARD, DOWN, SINK, advance, attempts, paid_out, webhook
from tests.http.clock_helpers import stop_accepting
from tests.http.purchase_helpers import create, pay


class NeverAnswers(asyncio.Protocol):
    """A receiver's connection that reads and never answers, until the test lets it go."""

    def __init__(self, receiver: HungReceiver) -> None:
        self.receiver = receiver
        receiver.opened += 1  # made by the server's accept, before its transport exists

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.receiver.transports.append(transport)
        if self.receiver.done:
            transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.receiver.closed += 1


class HungReceiver:
    """Counts its connections, so that the test ends with every one of them closed."""

    def __init__(self) -> None:
        self.opened = self.closed = 0
        self.done = False
        self.transports: list[asyncio.BaseTransport] = []

    async def close(self, server: asyncio.Server) -> None:
        """Stops accepting, closes every connection, then the server."""
        self.done = True
        await stop_accepting(server)
        deadline = time.monotonic() + 5
        while True:
            for transport in self.transports:
                transport.close()
            if self.closed == self.opened or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.005)
        server.close()
        await server.wait_closed()
        assert self.closed == self.opened, f"{self.opened - self.closed} connections still open"


async def test_a_receiver_that_hangs_holds_up_no_request(http, gw, merchant):
    """Deliveries run in the background from the request path: five payouts whose webhooks
    go to a receiver that never answers are answered at once, and so is the next read."""
    receiver = HungReceiver()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: NeverAnswers(receiver), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        await webhook(http, gw, f"http://127.0.0.1:{port}/hook")
        started = time.perf_counter()
        for _ in range(5):
            await paid_out(http, gw, merchant, "4444333322221111")
        listed = await http.get("/api/v1/payouts/", headers=gw)
        assert listed.status_code == 200
        assert time.perf_counter() - started < 2.5  # one hung send alone takes 5 s
    finally:
        await receiver.close(server)


async def test_a_reordered_message_does_not_release_the_ones_behind_an_earlier_one(
    http, gw, merchant
):
    """purchase.created keeps failing; purchase.paid (reorder, held 30 s) goes past it; the
    refund's purchase events stay behind purchase.created until it is delivered."""
    await webhook(http, gw, SINK.format(name="strict"))
    text = (
        "name: hooks\nrules:\n"
        "  - when: webhook.delivery\n    match: {event_type: purchase.created}\n"
        "    then: {fail_attempts: 2}\n"
        "  - when: webhook.delivery\n    match: {event_type: purchase.paid}\n"
        "    then: {reorder: true, delay_seconds: 30}\n"
    )
    await http.post("/_emulator/scenarios", content=text)
    await http.post(
        "/_emulator/scenarios/hooks/activate", json={"merchant": merchant["company_id"]}
    )
    purchase = await create(http, gw, merchant)
    await pay(http, purchase["id"])
    assert (
        await http.post(f"/api/v1/purchases/{purchase['id']}/refund/", headers=gw)
    ).status_code == 200

    async def purchase_events() -> list[str]:
        messages = (await http.get("/_emulator/sink/strict")).json()["messages"]
        return [m["json"]["event_type"] for m in messages if m["json"].get("id") == purchase["id"]]

    await advance(http, 30)
    assert await purchase_events() == ["purchase.paid"]
    await advance(http, 270)  # the third attempt of purchase.created, 5 minutes after the first
    events = await purchase_events()
    assert events[:2] == ["purchase.paid", "purchase.created"]
    assert "purchase.pending_refund" in events[2:]


async def test_a_stale_send_job_makes_no_extra_attempt(http, gw, merchant, runtime):
    """A crash between recording an attempt and removing its job leaves the job behind; run
    again, it finds its attempt taken and does nothing (the retry schedule stays as it was)."""
    await webhook(http, gw, DOWN)
    payout = await paid_out(http, gw, merchant, "4444333322221111")
    before = [
        a
        for a in await attempts(http, object_id=payout["id"])
        if a["event_type"] == "payout.success"
    ]
    assert [a["attempt"] for a in before] == [1]
    message_id = before[0]["message_id"]

    def leftover(tx):
        runtime.scheduler.schedule(
            tx, SEND_JOB, runtime.clock.now_us(), {"message": message_id, "attempt": 1}
        )

    await runtime.db.write(leftover)
    await runtime.deliveries.flush()
    after = [
        a
        for a in await attempts(http, object_id=payout["id"])
        if a["event_type"] == "payout.success"
    ]
    assert [a["attempt"] for a in after] == [1]
    await advance(http, 60)
    again = [
        a
        for a in await attempts(http, object_id=payout["id"])
        if a["event_type"] == "payout.success"
    ]
    assert [a["attempt"] for a in again] == [1, 2]


async def test_a_read_waits_for_a_send_that_another_run_is_starting(http, gw, merchant, runtime):
    """Another run of due jobs (the ticker's, another request's) holds the timeline while it
    starts a send: the control plane's flush finds it held, waits for it to let go, then for
    the send, so the read that follows shows the attempt (it used to return at once)."""
    await webhook(http, gw, DOWN)
    payout = await paid_out(http, gw, merchant, "4444333322221111")
    first = [a for a in await attempts(http, object_id=payout["id"]) if a["attempt"] == 1]
    message_id = first[0]["message_id"]
    timeline = runtime.scheduler.server

    def due_now(tx):
        runtime.scheduler.schedule(
            tx, SEND_JOB, runtime.clock.now_us(), {"message": message_id, "attempt": 2}
        )

    async def another_run() -> None:
        async with timeline.run_hold():
            await flushing.wait()
            for _ in range(5000):  # until the flush has found the timeline held
                if timeline.skipped:
                    break
                await asyncio.sleep(0.001)
            assert timeline.skipped

    flushing = asyncio.Event()
    holder = asyncio.create_task(another_run())
    await asyncio.sleep(0)  # it holds the timeline now
    assert timeline.lock.locked()
    await runtime.db.write(due_now)  # due now, on the held timeline
    await runtime.scheduler.kicked()
    timeline.skipped = False  # a kick found it held too: only the flush's look counts here
    flushing.set()
    await runtime.deliveries.flush()
    made = await runtime.db.read(
        lambda tx: tx.execute(
            "SELECT attempt FROM delivery_attempts WHERE message_id = ? ORDER BY attempt",
            (message_id,),
        ).fetchall()
    )  # read as it stands when the flush returns (a read of deliveries would flush again)
    await holder
    assert [row[0] for row in made] == [1, 2]


async def test_card_fields_with_a_trailing_newline_are_invalid(http, gw, merchant):
    for field, value in (("card_number", "4444333322221111\n"), ("cardholder_name", "Jane\n"),
                         ("expiry_month", "12\n")):  # fmt: skip
        created = await http.post(
            "/api/v1/payouts/",
            json={"client": {"email": "p@example.com"}, "payment": {"amount": 100, "currency": "ZAR"},
                  "brand_id": merchant["brand_id"]},
            headers=gw,
        )  # fmt: skip
        card = {"card_number": "4444333322221111", **CARD, field: value}
        response = await http.post(httpx.URL(created.json()["execution_url"]).path, json=card)
        assert response.status_code == 400, (field, response.text)
        assert response.json()[field]["code"] == "invalid_card_data"


async def test_deleting_a_webhook_stops_its_retries(http, gw, merchant):
    hook = await webhook(http, gw, DOWN)
    payout = await paid_out(http, gw, merchant, "4444333322221111")
    before = len(await attempts(http, object_id=payout["id"]))
    assert before >= 1
    assert (await http.delete(f"/api/v1/webhooks/{hook['id']}/", headers=gw)).status_code == 204
    await advance(http, 3 * 86_400)  # every retry would be due by now
    assert len(await attempts(http, object_id=payout["id"])) == before


async def test_callback_urls_that_could_never_be_sent_are_refused(http, gw):
    for url in ("https://exa mple.com/x", "https://example.com/\u0000", "http://localhost:0/x"):
        body = {"title": "t", "all_events": True, "callback": url}
        response = await http.post("/api/v1/webhooks/", json=body, headers=gw)
        assert response.status_code == 400, url
        assert response.json()["callback"]["code"] == "invalid"


class AnswersWhenLetGo(asyncio.Protocol):
    """A receiver's connection that answers 200 to each request once the test lets it go."""

    def __init__(self, asked: asyncio.Event, let_go: asyncio.Event) -> None:
        self.asked, self.let_go = asked, let_go

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.asked.set()
        asyncio.get_running_loop().create_task(self._answer())

    async def _answer(self) -> None:
        await self.let_go.wait()
        if not self.transport.is_closing():
            self.transport.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")


async def test_an_attempt_out_when_its_webhook_is_deleted_changes_nothing(
    http, gw, merchant, runtime
):
    """The webhook is deleted while its attempt waits for the answer (its messages given
    up): the 200 that comes after is not recorded, and the message stays given up."""
    asked, let_go = asyncio.Event(), asyncio.Event()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: AnswersWhenLetGo(asked, let_go), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        hook = await webhook(http, gw, f"http://127.0.0.1:{port}/hook")
        payout = await paid_out(http, gw, merchant, "4444333322221111")
        await asyncio.wait_for(asked.wait(), 5)
        deleted = await http.delete(f"/api/v1/webhooks/{hook['id']}/", headers=gw)
        assert deleted.status_code == 204
        let_go.set()
        assert await attempts(http, object_id=payout["id"]) == []  # waits for the send
        states = await runtime.db.read(
            lambda tx: tx.all(
                "SELECT state, attempts FROM delivery_messages WHERE object_id = ?", (payout["id"],)
            )
        )
        assert [tuple(row) for row in states] == [("failed", 0)]
    finally:
        let_go.set()
        server.close()
        await server.wait_closed()
