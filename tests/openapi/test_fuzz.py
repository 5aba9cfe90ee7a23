"""Bounded fuzzing with schemathesis against a running emulator, with its own document.

The emulator serves over real HTTP (``EmulatorServer``: uvicorn in a thread); schemathesis
reads ``/_emulator/openapi.json`` from it and sends a few generated requests per operation
(fixed seed, derandomized, positive data) with valid credentials of a fresh merchant that owns
a frozen clock (so no advance of the server clock expires its token). Every answer must be
no 5xx and exactly as documented: status, content type, headers and body schema.

Left out: what destroys or replaces the state the run stands on (reset, restoring a snapshot)
and activating scenarios (a scenario's very job is to answer 5xx).
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from emulator.openapi import document
from emulator.openapi.model import Operation
from emulator.testing import EmulatorServer

pytestmark = pytest.mark.slow  # schemathesis drives every operation through generated requests

SEED = 20_260_105
EXAMPLES = 8  # per operation
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
EXCLUDED = {
    ("POST", "/_emulator/reset"),
    ("POST", "/_emulator/snapshots/{name}/restore"),
    ("POST", "/_emulator/scenarios/{name}/activate"),
    # A wait answers after its timeout_seconds (up to 600) unless what it waits for comes:
    # tests/http/test_sink_wait.py covers its answers and its 400s.
    ("GET", "/_emulator/sink/{name}/wait"),
    ("GET", "/_emulator/deliveries/wait"),  # the same: tests/http/test_sink_wait.py
}


@pytest.fixture(scope="module")
def running() -> Iterator[EmulatorServer]:
    with EmulatorServer(clock="frozen", start="2026-01-05T09:00:00Z", seed=7) as server:
        yield server


@pytest.fixture(scope="module")
def credentials(running: EmulatorServer) -> dict[str, str]:
    with running.client() as control:
        merchant = control.new_merchant(clock="frozen")
    token = httpx.post(
        f"{running.url}/oauth2/token",
        auth=(merchant.client_id, merchant.client_secret),
        data={"grant_type": "client_credentials"},
    ).json()["access_token"]
    basic = base64.b64encode(f"{merchant.client_id}:{merchant.client_secret}".encode())
    return {
        "api_key": merchant.api_key,
        "token": token,
        "basic": f"Basic {basic.decode()}",
        "company_id": merchant.company_id,
        "brand_id": merchant.brand_id,
        "profile": merchant.profiles[0].profile_code,
    }


@pytest.fixture(scope="module")
def known(running: EmulatorServer, credentials: dict[str, str]) -> dict[tuple[str, str], str]:
    """Ids of real objects of the merchant, by (path prefix, path parameter): half the
    generated requests name them, so operations are fuzzed past their 404."""
    gw = httpx.Client(
        base_url=f"{running.url}/api/v1", headers=authorization("/api/v1/", credentials)
    )
    bank = httpx.Client(base_url=f"{running.url}/v2", headers=authorization("/v2/", credentials))
    with gw, bank:
        client = gw.post("/clients/", json={"email": "fuzz@example.com"}).json()
        purchase = gw.post(
            "/purchases/",
            json={
                "client_id": client["id"],
                "brand_id": credentials["brand_id"],
                "purchase": {"products": [{"name": "A", "price": 100}]},
            },
        ).json()
        template = gw.post(
            "/billing_templates/",
            json={
                "purchase": {"products": [{"name": "Gym", "price": 500}]},
                "is_subscription": True,
                "brand_id": credentials["brand_id"],
            },
        ).json()
        subscriber = gw.post(
            f"/billing_templates/{template['id']}/add_subscriber/", json={"client_id": client["id"]}
        ).json()["billing_template_client"]
        payout = gw.post(
            "/payouts/",
            json={
                "client": {"email": "r@example.com"},
                "payment": {"amount": 100, "currency": "ZAR"},
                "brand_id": credentials["brand_id"],
            },
        ).json()
        webhook = gw.post(
            "/webhooks/",
            json={
                "title": "w",
                "all_events": True,
                "callback": f"{running.url}/_emulator/sink/fuzz",
            },
        ).json()
        collection = bank.post(
            "/collection/eft",
            json={
                "profileCode": credentials["profile"],
                "externalReference": "FUZZ-1",
                "amountCents": 1000,
                "debtor": {"accountNumber": "110000001", "branchCode": "051001"},
            },
        ).json()
        mandate = bank.post(
            "/mandate/debicheck",
            json={
                "profileCode": credentials["profile"],
                "externalReference": "FUZZ-2",
                "maxAmountCents": 5000,
                "debtor": {"accountNumber": "62000000001", "branchCode": "250655"},
            },
        ).json()
        payment = bank.post(
            "/payment/eft",
            json={
                "profileCode": credentials["profile"],
                "amountCents": 100,
                "paymentDate": "2026-01-06",
                "abbreviatedName": "P",
                "contractReference": "C",
                "debtor": {"accountNumber": "4052218811", "branchCode": "051001"},
                "creditor": {"accountNumber": "62000000001", "branchCode": "250655"},
            },
        ).json()
    token = payout["execution_url"].rstrip("/").rsplit("/", 1)[-1]
    return {
        ("/api/v1/clients/", "id"): client["id"],
        ("/api/v1/clients/", "token"): purchase["id"],
        ("/api/v1/purchases/", "id"): purchase["id"],
        ("/api/v1/billing_templates/", "id"): template["id"],
        ("/api/v1/billing_templates/", "subscriber_id"): subscriber["id"],
        ("/api/v1/payouts/", "id"): payout["id"],
        ("/payouts/", "id"): payout["id"],
        ("/payouts/", "token"): token,
        ("/api/v1/webhooks/", "id"): webhook["id"],
        ("/v2/collection/", "type"): "eft",
        ("/v2/collection/", "id"): collection["id"],
        ("/v2/collection/", "collectionId"): collection["id"],
        ("/v2/callback/", "collectionId"): collection["id"],
        ("/v2/mandate/", "type"): "eft",
        ("/v2/mandate/", "id"): collection["mandateId"],
        ("/v2/mandate/", "mandateId"): mandate["id"],
        ("/v2/payment/", "id"): payment["id"],
        ("/_emulator/merchants/", "company_id"): credentials["company_id"],
        ("/_emulator/purchases/", "id"): purchase["id"],
        ("/_emulator/mandates/", "id"): mandate["id"],
        ("/_emulator/collections/", "id"): collection["id"],
        ("/_emulator/payments/", "id"): payment["id"],
        ("/_emulator/payouts/", "id"): payout["id"],
        ("/_emulator/sink/", "name"): "fuzz",
        ("/_emulator/snapshots/", "name"): "fuzz",
        ("/_emulator/scenarios/", "name"): "insufficient-funds",
        ("/_emulator/openapi/", "name"): "gateway",
    }


def fixed_params(op: Operation, known: dict[tuple[str, str], str]) -> dict[str, str]:
    return {
        p.name: value
        for p in op.params
        if p.where == "path"
        for (prefix, name), value in known.items()
        if name == p.name and op.path.startswith(prefix)
    }


@pytest.fixture(scope="module")
def fuzzed(running: EmulatorServer) -> Any:
    config = SchemathesisConfig.from_dict({"seed": SEED, "generation": {"mode": "positive"}})
    return schemathesis.openapi.from_url(f"{running.url}/_emulator/openapi.json", config=config)


def authorization(path: str, credentials: dict[str, str]) -> dict[str, str]:
    for prefix, header in (
        ("/api/v1/", f"Bearer {credentials['api_key']}"),
        ("/v2/", f"Bearer {credentials['token']}"),
        ("/oauth2/", credentials["basic"]),
    ):
        if path.startswith(prefix):
            return {"Authorization": header}
    return {}


FUZZED = [op for op in document.OPERATIONS if op.key not in EXCLUDED]


@pytest.mark.parametrize("op", FUZZED, ids=[op.id for op in FUZZED])
def test_no_5xx_and_every_answer_as_documented(
    fuzzed: Any, credentials: dict[str, str], known: dict[tuple[str, str], str], op: Operation
) -> None:
    """Generated requests to the operation: no 5xx, and each answer as documented."""
    headers = authorization(op.path, credentials)
    operation = fuzzed[op.path][op.method]
    strategy = operation.as_strategy()
    fixed = fixed_params(op, known)
    if fixed:
        strategy = st.one_of(strategy, operation.as_strategy(path_parameters=fixed))

    @given(case=strategy)
    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: a failure is shown as found
        suppress_health_check=list(HealthCheck),
    )
    def fuzz(case: Any) -> None:
        case.call_and_validate(headers=headers, checks=CHECKS)

    fuzz()
