"""Every error the emulator answers with, as classes with a code, a message and a status.

Each interface turns these into its own wire format in exactly one place
(``emulator/http/gateway/errors.py``, ``emulator/http/bank/errors.py``).
"""

from __future__ import annotations

from typing import ClassVar

ALL_FIELDS = "__all__"


class ApiError(Exception):
    """Base: a code, a human message, the HTTP status and the field it concerns."""

    code: ClassVar[str] = "error"
    message: ClassVar[str] = "Error."
    status: ClassVar[int] = 400

    def __init__(self, message: str | None = None, field: str = ALL_FIELDS) -> None:
        self.detail = message if message is not None else self.message
        self.field = field
        super().__init__(self.detail)


class FieldError(ApiError):
    """One field's problem; ``code`` is set per instance (required, invalid, max_length...)."""

    def __init__(self, field: str, code: str, message: str) -> None:
        super().__init__(message, field)
        self.code = code  # type: ignore[misc]


class ValidationFailed(ApiError):
    """Several field errors at once, as the gateway reports them."""

    code = "invalid"
    message = "Invalid input."

    def __init__(self, errors: list[FieldError]) -> None:
        super().__init__(
            errors[0].detail if errors else self.message, errors[0].field if errors else ALL_FIELDS
        )
        self.errors = errors


class MalformedBody(ApiError):
    code = "parse_error"
    message = "Malformed request body."


class BodyTooLarge(ApiError):
    code = "max_length"
    message = "Request body is too large."


# -- authentication --


class MissingAuthorization(ApiError):
    code = "missing_authorization"
    message = "Authorization header is missing or malformed; expected 'Bearer <key>'."
    status = 401


class InvalidToken(ApiError):
    code = "invalid_token"
    message = "Invalid token."
    status = 401


class Forbidden(ApiError):
    code = "forbidden"
    message = "You do not have permission to perform this action."
    status = 403


# -- generic HTTP --


class NotFound(ApiError):
    code = "not_found"
    message = "Not found."
    status = 404


class MethodNotAllowed(ApiError):
    code = "method_not_allowed"
    message = "Method not allowed."
    status = 405


class RateLimited(ApiError):
    code = "rate_limit_exceeded"
    message = "Rate limit exceeded."
    status = 429


# -- gateway objects --


class ObjectNotFound(NotFound):
    message = "No such object"


class ClientNotFound(ObjectNotFound):
    code = "client_not_found"


class DuplicateClient(ApiError):
    code = "duplicate_client"
    message = "A client with this email already exists."
    status = 409


# -- bank (v2) --


class BankBadRequest(ApiError):
    """A v2 400: the message names the field (the v2 dialect has no codes)."""

    code = "bad_request"
    message = "Bad request"


# -- payouts --


class PayoutNotFound(ObjectNotFound):
    code = "payout_not_found"


class PayoutExpired(ApiError):
    code = "payout_expired"
    message = "The payout can no longer be executed: 15 minutes have passed since its creation."


class PayoutAlreadyExecuted(ApiError):
    code = "payout_already_executed"
    message = "The payout has already been executed."


class PayoutFailed(ApiError):
    """The execution was refused in processing; code and message come from the outcome."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code  # type: ignore[misc]


# -- webhooks --


class WebhookNotFound(ObjectNotFound):
    code = "webhook_not_found"


class SourceNotFound(ObjectNotFound):
    """The object of a deliveries query; the code names its resource."""

    def __init__(self, code: str) -> None:
        super().__init__()
        self.code = code  # type: ignore[misc]
