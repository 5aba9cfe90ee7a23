"""One walk over every error path of both interfaces, checking status and the whole body.

Gateway: ``{"field": {"message", "code"}}``. v2: the provider's 400 result object, or
``{"statusCode", "message"}``. Control plane: ``{"error": {"code", "message"}}``. The last test keeps the walk complete: every error class
must be walked here or be named as belonging to a later domain.
"""

from __future__ import annotations

from typing import Any

import pytest

from emulator.domain import errors
from tests.conftest import DEFAULT_CLIENT, DEFAULT_KEY, token_for
from tests.http.test_purchase_errors import WALKED as PURCHASE_WALKED

GW = {"Authorization": f"Bearer {DEFAULT_KEY}"}
V2 = "v2-token"  # replaced by a real token of the default merchant
UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"
EXISTING = "{existing}"  # replaced by the id of a client created first


def gw_error(field: str, code: str, message: str) -> dict[str, Any]:
    return {field: {"message": message, "code": code}}


def v2_400(message: Any) -> dict[str, Any]:
    return {
        "value": {"Message": message},
        "formatters": [],
        "contentTypes": [],
        "declaredType": None,
        "statusCode": 400,
    }


MISSING_AUTH = "Authorization header is missing or malformed; expected 'Bearer <key>'."

# (id, method, path, headers, body (json or raw bytes), status, expected body, error class)
WALK: list[tuple[str, str, str, dict[str, str] | str | None, Any, int, Any, type]] = [
    ("gw-no-auth", "GET", "/api/v1/clients/", None, None, 401,
     gw_error("__all__", "missing_authorization", MISSING_AUTH), errors.MissingAuthorization),
    ("gw-malformed-auth", "GET", "/api/v1/clients/", {"Authorization": DEFAULT_KEY}, None, 401,
     gw_error("__all__", "missing_authorization", MISSING_AUTH), errors.MissingAuthorization),
    ("gw-wrong-key", "GET", "/api/v1/clients/", {"Authorization": "Bearer nope"}, None, 401,
     gw_error("__all__", "invalid_token", "Invalid token."), errors.InvalidToken),
    ("gw-production-key", "GET", "/api/v1/clients/",
     {"Authorization": "Bearer sk_live_emulator_default_key"}, None, 401,
     gw_error("__all__", "invalid_token", "Invalid token."), errors.InvalidToken),
    ("gw-unknown-path", "GET", "/api/v1/nothing-here/", GW, None, 404,
     gw_error("__all__", "not_found", "Not found."), errors.NotFound),
    ("gw-wrong-method", "POST", f"/api/v1/clients/{UNKNOWN_ID}/", GW, {}, 405,
     gw_error("__all__", "method_not_allowed", 'Method "POST" not allowed.'), errors.MethodNotAllowed),
    ("gw-malformed-json", "POST", "/api/v1/clients/", GW, b'{"email": ', 400,
     gw_error("__all__", "parse_error",
              "JSON parse error - the body ends before its JSON does"), errors.MalformedBody),
    ("gw-invalid-utf8", "POST", "/api/v1/clients/", GW, b'{"email": "\xff\xfe@example.com"}', 400,
     gw_error("__all__", "parse_error", "JSON parse error - the body is not valid UTF-8"),
     errors.MalformedBody),
    ("gw-nested-too-deeply", "POST", "/api/v1/clients/", GW,
     b'{"email": "d@example.com", "unknown": ' + b"[" * 5000 + b"]" * 5000 + b"}", 400,
     gw_error("__all__", "parse_error", "JSON parse error - nested too deeply"),
     errors.MalformedBody),
    ("gw-empty-body", "POST", "/api/v1/clients/", GW, b"", 400,
     gw_error("__all__", "parse_error", "Request body is empty; a JSON object is expected."),
     errors.MalformedBody),
    ("gw-not-an-object", "POST", "/api/v1/clients/", GW, [1, 2], 400,
     gw_error("__all__", "invalid", "Expected `object`, got `array`"), errors.ValidationFailed),
    ("gw-wrong-type", "POST", "/api/v1/clients/", GW, {"email": 5}, 400,
     gw_error("email", "invalid", "Expected `str`, got `int`."), errors.ValidationFailed),
    ("gw-wrong-nested-type", "POST", "/api/v1/clients/", GW, {"email": "a@b.co", "cc": ["x", 1]}, 400,
     gw_error("cc.1", "invalid", "Expected `str`, got `int`."), errors.ValidationFailed),
    ("gw-required", "POST", "/api/v1/clients/", GW, {"full_name": "No Email"}, 400,
     gw_error("email", "required", "This field is required."), errors.FieldError),
    ("gw-nested-required", "POST", "/api/v1/clients/", GW,
     {"email": "a@b.co", "delivery_methods": [{"options": {}}]}, 400,
     gw_error("delivery_methods.0.method", "required", "This field is required."), errors.FieldError),
    ("gw-invalid-email", "POST", "/api/v1/clients/", GW, {"email": "not-an-email"}, 400,
     gw_error("email", "invalid", "Enter a valid email address."), errors.FieldError),
    ("gw-invalid-phone", "POST", "/api/v1/clients/", GW, {"email": "a@b.co", "phone": "0821234567"}, 400,
     gw_error("phone", "invalid", "Enter a valid phone number in E.164 format, e.g. +27821234567."),
     errors.FieldError),
    ("gw-invalid-country", "POST", "/api/v1/clients/", GW, {"email": "a@b.co", "country": "UK"}, 400,
     gw_error("country", "invalid", "'UK' is not a valid ISO 3166-1 alpha-2 country code."),
     errors.FieldError),
    ("gw-unknown-enum", "POST", "/api/v1/clients/", GW,
     {"email": "a@b.co", "delivery_methods": [{"method": "fax"}]}, 400,
     gw_error("delivery_methods.0.method", "invalid", "Must be one of: email, text, whatsapp."),
     errors.FieldError),
    ("gw-max-length", "POST", "/api/v1/clients/", GW, {"email": "a@b.co", "tax_number": "9" * 33}, 400,
     gw_error("tax_number", "max_length", "Ensure this field has no more than 32 characters."),
     errors.FieldError),
    ("gw-oversized-body", "POST", "/api/v1/clients/", GW, b"{" + b" " * (1024 * 1024) + b"}", 400,
     gw_error("__all__", "max_length", "Request body is too large (limit 1048576 bytes)."),
     errors.BodyTooLarge),
    ("gw-invalid-uuid", "GET", "/api/v1/clients/123/", GW, None, 400,
     gw_error("id", "invalid_uuid", "'123' is not a valid UUID."), errors.FieldError),
    ("gw-unknown-client", "GET", f"/api/v1/clients/{UNKNOWN_ID}/", GW, None, 404,
     gw_error("__all__", "client_not_found", "No such object"), errors.ClientNotFound),
    ("gw-unknown-client-feed", "GET", f"/api/v1/clients/{UNKNOWN_ID}/feed/", GW, None, 404,
     gw_error("__all__", "client_not_found", "No such object"), errors.ClientNotFound),
    ("gw-duplicate-client", "POST", "/api/v1/clients/", GW, {"email": "existing@example.com"}, 409,
     gw_error("email", "duplicate_client", "A client with this email already exists."),
     errors.DuplicateClient),
    ("gw-invalid-page", "GET", "/api/v1/clients/?page=0", GW, None, 404,
     gw_error("__all__", "not_found", "Invalid page."), errors.NotFound),
    ("gw-page-past-end", "GET", "/api/v1/clients/?page=9", GW, None, 404,
     gw_error("__all__", "not_found", "Invalid page."), errors.NotFound),
    ("gw-unknown-payout", "GET", f"/api/v1/payouts/{UNKNOWN_ID}/", GW, None, 404,
     gw_error("__all__", "payout_not_found", "No such object"), errors.PayoutNotFound),
    ("gw-unknown-webhook", "GET", f"/api/v1/webhooks/{UNKNOWN_ID}/", GW, None, 404,
     gw_error("__all__", "webhook_not_found", "No such object"), errors.WebhookNotFound),
    ("gw-deliveries-unknown-object", "GET",
     f"/api/v1/webhooks/deliveries/?id={UNKNOWN_ID}&source_type=Purchase", GW, None, 404,
     gw_error("__all__", "purchase_not_found", "No such object"), errors.SourceNotFound),
    ("gw-unknown-execution-url", "POST", f"/payouts/{UNKNOWN_ID}/execute/nope/", None, {}, 404,
     gw_error("__all__", "payout_not_found", "No such object"), errors.PayoutNotFound),
    ("v2-no-auth", "GET", "/v2/merchantprofile", None, None, 401,
     {"statusCode": 401, "message": "Unauthorized"}, errors.InvalidToken),
    ("v2-wrong-token", "GET", "/v2/merchantprofile", {"Authorization": "Bearer nope"}, None, 401,
     {"statusCode": 401, "message": "Unauthorized"}, errors.InvalidToken),
    ("v2-api-key", "GET", "/v2/merchantprofile", GW, None, 403,
     {"statusCode": 403, "message": "Forbidden"}, errors.Forbidden),
    ("v2-unknown-path", "GET", "/v2/nothing-here", V2, None, 404,
     {"statusCode": 404, "message": "Resource not found"}, errors.NotFound),
    ("v2-wrong-method", "DELETE", "/v2/merchantprofile", V2, None, 405,
     {"statusCode": 405, "message": "Method Not Allowed"}, errors.MethodNotAllowed),
    ("v2-bad-query", "GET", "/v2/merchantprofile?take=-1", V2, None, 400,
     v2_400("take must be between 1 and 1000."), errors.BankBadRequest),
    ("v2-avs-r-failed", "POST", "/v2/collection/eft", V2,
     {"debtor": {"accountNumber": "12345", "branchCode": "051001"}, "amountCents": 100,
      "profileCode": "DEFAULT01", "externalReference": "AVS-1", "verifyAccount": True}, 400,
     v2_400({key: "N" for key in ("AccountExists", "AccountIsOpen", "AccountTypeMatches",
             "IdNumberMatches", "InitialsMatches", "FullNameMatches", "AccountAcceptsDebits",
             "AccountAcceptsCredits")}),
     errors.AccountVerificationFailed),
    ("gw-unknown-billing-template", "GET", f"/api/v1/billing_templates/{UNKNOWN_ID}/", GW, None,
     404, gw_error("__all__", "billing_template_not_found", "No such object"),
     errors.BillingTemplateNotFound),
    ("gw-unknown-subscriber", "GET", f"/api/v1/billing_templates/clients/{UNKNOWN_ID}/", GW,
     None, 404, gw_error("__all__", "billing_template_client_not_found", "No such object"),
     errors.SubscriberNotFound),
    ("gw-unknown-company-statement", "GET", f"/api/v1/company_statements/{UNKNOWN_ID}/", GW,
     None, 404, gw_error("__all__", "company_statement_not_found", "No such object"),
     errors.CompanyStatementNotFound),
    ("gw-unknown-download-url", "GET", f"/company_statements/{UNKNOWN_ID}/download/nope/", None,
     None, 404, gw_error("__all__", "company_statement_not_found", "No such object"),
     errors.CompanyStatementNotFound),
    ("control-unknown-snapshot", "POST", "/_emulator/snapshots/nothing/restore", None, None,
     404, {"error": {"code": "snapshot_not_found", "message": "no snapshot named 'nothing'"}},
     errors.ControlError),
]  # fmt: skip

# Faults answer only under a scenario or a rate limit: tests/http/test_faults.py walks each
# of them, in both dialects.
LATER = set(errors.FAULTS.values())
# Paths that need an object in a given state first: walked, whole body and all, there.
ELSEWHERE = {
    errors.PayoutExpired: "tests/http/test_payouts.py",
    errors.PayoutAlreadyExecuted: "tests/http/test_payouts.py",
    errors.PayoutFailed: "tests/http/test_payouts.py",
    errors.SubscriberAlreadyExists: "tests/http/test_billing_subscribers.py",
    errors.SubscriptionInactive: "tests/http/test_billing_subscribers.py",
    errors.CompanyStatementInvalidStatus: "tests/http/test_company_statements.py",
    errors.CardDeclined: "tests/http/test_purchase_scenarios.py",
}


@pytest.mark.parametrize(
    ("method", "path", "headers", "body", "status", "expected"),
    [pytest.param(*case[1:7], id=case[0]) for case in WALK],
)
async def test_error_path(http, method, path, headers, body, status, expected):
    """Each error path answers its status and exactly its dialect's body."""
    await http.post("/api/v1/clients/", json={"email": "existing@example.com"}, headers=GW)
    if headers == V2:
        token = await token_for(http, *DEFAULT_CLIENT)
        headers = {"Authorization": f"Bearer {token}"}
    kwargs: dict[str, Any] = {"headers": headers or {}}
    if isinstance(body, bytes):
        kwargs["content"] = body
    elif body is not None:
        kwargs["json"] = body
    response = await http.request(method, path, **kwargs)
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json"
    assert response.json() == expected


def test_the_walk_covers_every_error_class():
    """Every concrete error class is walked above, or belongs to a domain still to come."""
    defined = {
        cls
        for cls in vars(errors).values()
        if isinstance(cls, type) and issubclass(cls, errors.ApiError) and cls is not errors.ApiError
    }
    walked = {case[7] for case in WALK} | PURCHASE_WALKED
    abstract = {errors.ObjectNotFound, errors._Unauthenticated}
    assert defined - walked - LATER - set(ELSEWHERE) - abstract == set()


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("DELETE", "/api/v1/clients/", "GET, HEAD, POST"),
        ("POST", f"/api/v1/clients/{UNKNOWN_ID}/", "DELETE, GET, HEAD, PATCH, PUT"),
        ("DELETE", "/v2/merchantprofile", "GET, HEAD"),
        ("GET", "/oauth2/token", "POST"),
        ("PUT", "/_emulator/clock", "GET, HEAD"),
    ],
)
async def test_405_lists_every_method_of_the_path(http, method, path, allow):
    """A 405's Allow header names every method the path takes, in every interface."""
    response = await http.request(method, path, headers=GW)
    assert (response.status_code, response.headers["allow"]) == (405, allow)
