"""The OpenAPI documents: every route documented and every operation served, valid OpenAPI 3.1,
served at /_emulator/openapi*.json and rendered at /_emulator/docs."""

from __future__ import annotations

import re
from typing import Any

import httpx
import jsonschema
import pytest
from openapi_spec_validator import OpenAPIV31SpecValidator

from emulator.openapi import document
from tests.openapi_check import served

INTERFACE_PREFIXES = ("/api/v1/", "/payouts/", "/v2/", "/oauth2/", "/_emulator/")
NAMES = [None, "gateway", "bank", "control"]


def served_operations() -> set[tuple[str, str]]:
    return {(m, p) for m, p in served() if m != "HEAD" and p.startswith(INTERFACE_PREFIXES)}


def test_every_served_route_is_documented():
    """Each method and path the app serves on an interface has an entry in a table of
    emulator/openapi/ (gateway.py, bank.py, oauth.py, control.py)."""
    missing = sorted(served_operations() - document.documented())
    assert missing == [], f"add these to emulator/openapi/'s tables: {missing}"


def test_every_documented_operation_is_served():
    """No table documents a method and path that the app does not serve."""
    extra = sorted(document.documented() - served_operations())
    assert extra == [], f"documented, not served: {extra}"


@pytest.mark.parametrize("name", NAMES, ids=lambda n: n or "all")
def test_documents_are_valid_openapi_3_1(name):
    """Each document passes the OpenAPI 3.1 validator, and its schemas are valid 2020-12."""
    doc = document.build(served(), name)
    assert doc["openapi"] == "3.1.0"
    errors = [e.message for e in OpenAPIV31SpecValidator(doc).iter_errors()]
    assert errors == []
    for schema in doc["components"]["schemas"].values():
        jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("name", NAMES, ids=lambda n: n or "all")
def test_documents_say_nothing_undocumented(name):
    """With every route in a table, no operation is marked x-undocumented."""
    doc = document.build(served(), name)
    marked = [
        (m, p)
        for p, item in doc["paths"].items()
        for m, op in item.items()
        if "x-undocumented" in op
    ]
    assert marked == []


def test_an_unknown_route_is_listed_as_undocumented_and_an_unserved_entry_left_out():
    """A route no table knows still appears (so whoever merges sees it); an entry nothing
    serves is not claimed."""
    routes = [r for r in served() if r != ("GET", "/api/v1/clients/")]
    doc = document.build([*routes, ("POST", "/api/v1/not_served_yet/")], "gateway")
    assert doc["paths"]["/api/v1/not_served_yet/"]["post"]["x-undocumented"] is True
    assert "get" not in doc["paths"]["/api/v1/clients/"]


def test_operation_ids_are_unique():
    ids = [op.id for op in document.OPERATIONS]
    assert sorted(ids) == sorted(set(ids))


def test_each_document_holds_its_interface_and_the_token_endpoint():
    """gateway and bank both carry /oauth2/token (a token works on both); control carries
    only the control plane; the document of everything carries all."""
    paths = {name: set(document.build(served(), name)["paths"]) for name in NAMES}
    assert "/oauth2/token" in paths["gateway"] and "/oauth2/token" in paths["bank"]
    assert "/api/v1/clients/" in paths["gateway"]
    assert "/payouts/{id}/execute/{token}/" in paths["gateway"]
    assert all(p.startswith(("/v2/", "/oauth2/")) for p in paths["bank"])
    assert all(p.startswith("/_emulator/") for p in paths["control"])
    assert paths[None] == paths["gateway"] | paths["bank"] | paths["control"]


def test_security_schemes_bearer_on_both_interfaces_basic_on_the_token_endpoint():
    doc = document.build(served())
    schemes = doc["components"]["securitySchemes"]
    assert {k: (v["type"], v["scheme"]) for k, v in schemes.items()} == {
        "gatewayBearer": ("http", "bearer"),
        "bankBearer": ("http", "bearer"),
        "clientBasic": ("http", "basic"),
        "adminToken": ("http", "bearer"),
    }
    paths = doc["paths"]
    assert paths["/api/v1/clients/"]["post"]["security"] == [{"gatewayBearer": []}]
    assert paths["/v2/mandate/eft"]["post"]["security"] == [{"bankBearer": []}]
    assert paths["/oauth2/token"]["post"]["security"] == [{"clientBasic": []}]
    assert paths["/_emulator/health"]["get"]["security"] == [{}, {"adminToken": []}]


@pytest.mark.parametrize(
    ("path", "method", "status", "component"),
    [
        pytest.param("/api/v1/clients/{id}/", "get", "404", "GatewayError", id="gateway"),
        pytest.param("/v2/mandate/eft", "post", "400", "BankBadRequest", id="bank-400"),
        pytest.param("/v2/mandate/eft", "post", "401", "BankStatusError", id="bank-401"),
        pytest.param("/oauth2/token", "post", "400", "OAuthError", id="oauth"),
        pytest.param("/_emulator/reset", "post", "401", "ControlError", id="control"),
    ],
)
def test_errors_are_in_each_interfaces_dialect(path, method, status, component):
    response = document.build(served())["paths"][path][method]["responses"][status]
    schema = response["content"]["application/json"]["schema"]
    assert schema == {"$ref": f"#/components/schemas/{component}"}


def test_enums_come_from_the_code():
    """Statuses the structs type as strings get the values of the code's state tables."""
    schemas = document.build(served())["components"]["schemas"]
    assert "pending_capture" in schemas["Purchase"]["properties"]["status"]["enum"]
    assert schemas["Mandate"]["properties"]["status"]["enum"][0] == "ACTIVE"
    assert "payout.success" in schemas["Webhook"]["properties"]["events"]["items"]["enum"]
    assert schemas["Payout"]["properties"]["status"]["enum"] == [
        "error",
        "initialized",
        "pending",
        "success",
    ]


async def test_documents_are_served(http: httpx.AsyncClient):
    """GET /_emulator/openapi.json and /_emulator/openapi/{name}.json; the server is the
    address asked."""
    everything = (await http.get("/_emulator/openapi.json")).json()
    assert everything["servers"] == [{"url": "http://emulator"}]
    assert everything["paths"] == document.build(served())["paths"]
    for name in ("gateway", "bank", "control"):
        response = await http.get(f"/_emulator/openapi/{name}.json")
        assert response.status_code == 200
        assert response.json()["paths"] == document.build(served(), name)["paths"]


async def test_an_unknown_document_is_a_control_plane_404(http: httpx.AsyncClient):
    response = await http.get("/_emulator/openapi/nope.json")
    assert response.status_code == 404
    assert response.json() == {
        "error": {"code": "not_found", "message": "no document 'nope': gateway, bank or control"}
    }


async def test_the_reference_page_shows_every_operation_and_schema(http: httpx.AsyncClient):
    """Server-rendered HTML: operations grouped by interface and tag, with parameters,
    bodies and responses; every schema; style and script inline (nothing fetched)."""
    response = await http.get("/_emulator/docs")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    page = response.text
    doc: dict[str, Any] = document.build(served())
    for path, item in doc["paths"].items():
        for op in item.values():
            assert f'id="op-{op["operationId"]}"' in page
            assert f"<code>{path}</code>" in page
    for name in doc["components"]["schemas"]:
        assert f"<h3>{name}</h3>" in page
    for heading in ("The gateway", "OAuth 2.0", "The bank interface", "The control plane"):
        assert f"<h2>{heading}</h2>" in page
    assert "<style>" in page and "<script>" in page
    assert not re.search(r"<(script|link)[^>]+(src|href)=", page)  # no CDN, no asset to fetch
    assert 'href="#schema-Purchase"' in page  # types link to their schema
