"""Each interface's error dialect as JSON Schema (hand-written components), after the one place
per interface that writes it: ``emulator/gateway/errors.py``, ``emulator/bank/errors.py``,
``emulator/core/auth/routes.py`` and ``emulator/sandbox/errors.py``."""

from __future__ import annotations

from typing import Any

from emulator.kernel.clock import TIME_HEADER
from emulator.openapi.model import Ref

_TEXT = {"type": "string"}

OAUTH_CODES = (
    "invalid_request",
    "invalid_client",
    "unsupported_grant_type",
    "rate_limit_exceeded",
    "temporarily_unavailable",
    "server_error",
)

COMPONENTS: dict[str, dict[str, Any]] = {
    "GatewayError": {
        "title": "GatewayError",
        "description": (
            "The gateway's error body: one entry per field in error (dotted names for nested"
            " fields, `__all__` for the request as a whole)."
        ),
        "type": "object",
        "minProperties": 1,
        "additionalProperties": {"$ref": "#/components/schemas/GatewayFieldError"},
    },
    "GatewayFieldError": {
        "title": "GatewayFieldError",
        "type": "object",
        "properties": {
            "message": _TEXT,
            "code": {
                "description": "e.g. required, invalid, invalid_uuid, max_length,"
                " client_not_found, purchase_already_paid, rate_limit_exceeded",
                "type": "string",
            },
        },
        "required": ["message", "code"],
    },
    "BankBadRequest": {
        "title": "BankBadRequest",
        "description": (
            "The bank interface's 400: the provider's serialised result object; `Message`"
            " names the field, or is the AVS-R details object of a failed verification."
        ),
        "type": "object",
        "properties": {
            "value": {
                "type": "object",
                "properties": {
                    "Message": {
                        "anyOf": [
                            _TEXT,
                            {"type": "object", "additionalProperties": _TEXT},
                        ]
                    }
                },
                "required": ["Message"],
            },
            "formatters": {"type": "array"},
            "contentTypes": {"type": "array"},
            "declaredType": {"type": "null"},
            "statusCode": {"const": 400},
        },
        "required": ["value", "formatters", "contentTypes", "declaredType", "statusCode"],
    },
    "BankStatusError": {
        "title": "BankStatusError",
        "description": "The bank interface's other errors: the status and the provider's words.",
        "type": "object",
        "properties": {"statusCode": {"type": "integer"}, "message": _TEXT},
        "required": ["statusCode", "message"],
    },
    "OAuthError": {
        "title": "OAuthError",
        "description": "RFC 6749's error body (section 5.2).",
        "type": "object",
        "properties": {"error": {"enum": list(OAUTH_CODES)}, "error_description": _TEXT},
        "required": ["error", "error_description"],
    },
    "ControlError": {
        "title": "ControlError",
        "description": "The control plane's error body.",
        "type": "object",
        "properties": {
            "error": {
                "type": "object",
                "properties": {"code": _TEXT, "message": _TEXT},
                "required": ["code", "message"],
            }
        },
        "required": ["error"],
    },
}

# Named in emulator/http/lint.py (HEADER), which this layer may not import.
WARNINGS_HEADER = "X-Emulator-Warnings"

HEADERS: dict[str, dict[str, Any]] = {
    TIME_HEADER: {
        "description": (
            "The emulator's instant (ISO-8601 UTC) on the clock of the merchant the credentials"
            " name (the server clock's without credentials)."
        ),
        "required": True,
        "schema": {"type": "string"},
    },
    WARNINGS_HEADER: {
        "description": (
            "Keys of the request's body the platform ignores (unknown, or misplaced: known"
            " elsewhere in the body), `; `-separated, e.g. `unknown key purchase.prodcts (did you"
            " mean products?); misplaced key email (belongs at client.email)`. Only when there"
            " are some; `serve --strict-requests` refuses them instead (400)."
        ),
        "required": False,
        "schema": {"type": "string"},
    },
}

SECURITY_SCHEMES: dict[str, dict[str, Any]] = {
    "gatewayBearer": {
        "type": "http",
        "scheme": "bearer",
        "description": (
            "The merchant's sandbox API key (`sk_test_...`) or an OAuth access token of the"
            " merchant (`POST /oauth2/token`)."
        ),
    },
    "bankBearer": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "OAuth 2.0 access token",
        "description": "An access token from `POST /oauth2/token` (it lasts 24 hours on the"
        " emulator clock).",
    },
    "clientBasic": {
        "type": "http",
        "scheme": "basic",
        "description": "The OAuth client's `client_id:client_secret`.",
    },
    "adminToken": {
        "type": "http",
        "scheme": "bearer",
        "description": (
            "The admin token (`--admin-token`): required only when the emulator is bound to an"
            " address other than loopback; deliveries to the sink never need it."
        ),
    },
}


def gateway(status: int) -> Ref:
    return Ref("GatewayError")


def bank(status: int) -> Ref:
    return Ref("BankBadRequest") if status == 400 else Ref("BankStatusError")


def oauth(status: int) -> Ref:
    return Ref("OAuthError")


def control(status: int) -> Ref:
    return Ref("ControlError")


# Faults of the http.request decision point and the rate limiter (never on the control plane).
FAULTS = {
    429: "Rate limited (`--rate-limit`, or a scenario's `rate_limit` or `status: 429`).",
    "5XX": "Only from an active scenario (`http.request`): 500, 502, 503 or 504.",
}
