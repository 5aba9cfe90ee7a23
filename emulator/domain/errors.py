"""Every error the emulator answers with, as classes with a code, a message and a status.

Each interface turns these into its own wire format in exactly one place
(``emulator/gateway/errors.py``, ``emulator/bank/errors.py``,
``emulator/sandbox/errors.py``...).
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


class _Unauthenticated(ApiError):
    """A 401; ``reason`` (which credential was missing or wrong, and how) goes to the request
    journal, not to the caller: the answer stays the provider's."""

    status = 401

    def __init__(self, reason: str | None = None) -> None:
        super().__init__()
        self.reason = reason


class MissingAuthorization(_Unauthenticated):
    code = "missing_authorization"
    message = "Authorization header is missing or malformed; expected 'Bearer <key>'."


class InvalidToken(_Unauthenticated):
    code = "invalid_token"
    message = "Invalid token."


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


# -- control plane (/_emulator/) --


class ControlError(ApiError):
    """A control-plane request that cannot be done. The control plane has many codes of its
    own (``not_found``, ``invalid_state``, ``clock_replaced``...), so each refusal gives its
    status and code, as ``FieldError`` gives its code."""

    code = "invalid"
    message = "The control plane cannot do this."

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status  # type: ignore[misc]
        self.code = code  # type: ignore[misc]


# -- faults (the rate limiter and the http.request decision point) --


class ServerFault(ApiError):
    code = "server_error"
    message = "Internal server error."
    status = 500


class UpstreamUnavailable(ApiError):
    code = "upstream_unavailable"
    message = "Upstream unavailable."
    status = 502


class TemporaryMaintenance(ApiError):
    code = "temporary_maintenance"
    message = "Temporarily unavailable for maintenance."
    status = 503


class UpstreamTimeout(ApiError):
    code = "upstream_timeout"
    message = "Upstream did not answer in time."
    status = 504


FAULTS: dict[int, type[ApiError]] = {
    429: RateLimited,
    500: ServerFault,
    502: UpstreamUnavailable,
    503: TemporaryMaintenance,
    504: UpstreamTimeout,
}
# -- purchases (spec: Errors, Codes) --


class PurchaseNotFound(ObjectNotFound):
    code = "purchase_not_found"


class PurchaseAlreadyPaid(ApiError):
    code = "purchase_already_paid"
    message = "Purchase has already been paid."
    status = 409


class PurchaseCancelled(ApiError):
    code = "purchase_cancelled"
    message = "Purchase has been cancelled."
    status = 409


class PurchaseExpired(ApiError):
    code = "purchase_expired"
    message = "Purchase has expired."
    status = 409


class PurchaseInvalidStatus(ApiError):
    """Emulator's own code for an action the purchase's status does not allow and that no
    code of the spec names (e.g. a refund of an unpaid purchase)."""

    code = "purchase_invalid_status"
    message = "This action is not available for the purchase in its current status."
    status = 409


class InvalidAmount(ApiError):
    code = "invalid_amount"
    message = "Invalid amount."


class CaptureNotAllowed(ApiError):
    code = "capture_not_allowed"
    message = "Capture is not allowed for this purchase."
    status = 409


class PurchaseCaptureError(ApiError):
    code = "purchase_capture_error"
    message = "Capture failed."


class CardDeclined(ApiError):
    """A charge the card's issuer declined: the spec's 422, the reason in the message (the
    attempt on the purchase carries the reason as its code)."""

    code = "card_declined"
    message = "Card declined."
    status = 422


class RefundExceedsAmount(ApiError):
    code = "refund_exceeds_amount"
    message = "Refund amount exceeds the refundable amount."


class PaymentMethodNotAvailable(ApiError):
    code = "payment_method_not_available"
    message = "Payment method is not available for this purchase."


class InvalidRecurringToken(ApiError):
    code = "invalid_recurring_token"
    message = "Invalid recurring token."


class RecurringTokenNotFound(ObjectNotFound):
    code = "recurring_token_not_found"


class RecurringTokenExpired(ApiError):
    code = "recurring_token_expired"
    message = "Recurring token has expired."
    status = 409


class DirectPostExpired(ApiError):
    code = "direct_post_expired"
    message = "Direct post URL has expired or has already been used."


class InvalidCardData(ApiError):
    code = "invalid_card_data"
    message = "Invalid card data."


class AccountVerificationFailed(BankBadRequest):
    """AVS-R said no (FIDELITY.md): the 400's ``Message`` is the details object."""

    code = "account_verification_failed"
    message = "account verification failed"

    def __init__(self, details: dict[str, str]) -> None:
        super().__init__()
        self.details = details


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


# -- billing --


class BillingTemplateNotFound(ObjectNotFound):
    code = "billing_template_not_found"


class SubscriberNotFound(ObjectNotFound):
    code = "billing_template_client_not_found"


class SubscriberAlreadyExists(ApiError):
    code = "subscriber_already_exists"
    message = "This client is already subscribed to the billing template."
    status = 409


class SubscriptionInactive(ApiError):
    code = "subscription_inactive"
    message = "The subscription is not active."
    status = 409


# -- company statements --


class CompanyStatementNotFound(ObjectNotFound):
    code = "company_statement_not_found"


class CompanyStatementInvalidStatus(ApiError):
    """The emulator's own code: the statement's status does not allow the action (a cancel
    of a statement already generated or cancelled)."""

    code = "company_statement_invalid_status"
    message = "This action is not available for the statement in its current status."
    status = 409
