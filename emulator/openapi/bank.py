"""The bank collections interface (``/v2/``): one entry per served method and path, and the
bodies the code builds as plain dicts (described as structs, for the document only)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from emulator.bank.callbacks.rules import Registration, RegistrationInput, TriggerInput
from emulator.bank.collections.rules import (
    Collection,
    DebiCheckCollectionInput,
    EftCollectionInput,
    EftFromMandateInput,
    RecreateAsEftInput,
)
from emulator.bank.collections.rules_filters import DATE_FILTERS, FLAGS, TEXT
from emulator.bank.common.model import MANDATE_TRANSITIONS, MONEY_TRANSITIONS, AccountType
from emulator.bank.mandates.rules import DebiCheckMandateInput, EftMandateInput, Mandate
from emulator.bank.payments.rules import EftPaymentInput, Payment
from emulator.bank.verification.service import ValidateInput
from emulator.core.merchants.model import INSTRUMENTS, MerchantProfile
from emulator.kernel.clock import TIME_HEADER
from emulator.openapi import errors
from emulator.openapi.model import Body, Interface, Operation, Param, outcome_header


class BankEvent(msgspec.Struct):
    """A status change (creation included); ``data`` is the object as its status endpoint
    shows it. One of ``mandateId``, ``collectionId``, ``paymentId`` names it."""

    eventId: int
    eventType: str
    state: str
    timestamp: str
    data: dict[str, Any]
    mandateId: str | msgspec.UnsetType = msgspec.UNSET
    collectionId: str | msgspec.UnsetType = msgspec.UNSET
    paymentId: str | msgspec.UnsetType = msgspec.UNSET


class Verification(msgspec.Struct):
    isValid: bool
    accountNumber: str | None
    branchCode: str | None
    bank: str | None
    accountType: AccountType
    message: str | None


class CallbackSent(msgspec.Struct):
    collectionId: str
    collectionStatus: str
    callbackVersion: str
    callbacks: int


class StatementLine(msgspec.Struct):
    collectionId: str
    collectionType: str
    mandateId: str
    externalReference: str | None
    contractReference: str | None
    debtorAccountNumber: str | None
    amountCents: int
    actionDate: str
    status: str
    reasonCode: str | None


class Statement(msgspec.Struct):
    id: str
    accountNumber: str
    statementDate: str
    currency: str
    totalCents: int
    lines: list[StatementLine]


class BulkUpload(msgspec.Struct):
    bulkUploadId: str
    rows: int
    accepted: int
    errors: int


BANK = Interface(
    name="bank",
    prefix="/v2",
    error=errors.bank,
    security=({"bankBearer": []},),
    always={
        401: "A missing, wrong or expired token, or the production API key (`Unauthorized`).",
        403: "The sandbox gateway API key: known, but not allowed here (`Forbidden`).",
        **errors.FAULTS,
    },
    with_body={
        400: "Malformed JSON, a wrong type, or a rule of the spec (the message names the field).",
    },
    with_id={404: "No such object of the merchant (`Resource not found`)."},
    path_params={
        "type": Param("type", Literal["eft", "debicheck"], "eft or debicheck"),
        "collectionId": Param("collectionId", str, "A collection id (UUID)"),
        "mandateId": Param("mandateId", str, "A DebiCheck mandate id (UUID)"),
        "bulkUploadId": Param("bulkUploadId", str, "The id an upload answered (UUID)"),
        "bankAccountNumber": Param("bankAccountNumber", str, "The creditor account"),
        "id": Param("id", str, "Object id (UUID)"),
    },
    headers=(TIME_HEADER, errors.WARNINGS_HEADER),
)
op = BANK.operation

PAGING = (
    Param("skip", Annotated[int, Meta(ge=0, le=2**31 - 1)], "Results to skip (default 0)"),
    Param("take", Annotated[int, Meta(ge=1, le=1000)], "Results to return (default 100)"),
)
COLLECTION_OUTCOME = outcome_header("unpaid:<code>[@+<duration>], dispute:<code>[@+<days>d]")
BAD_QUERY = {400: "A bad query value (the message names the parameter)."}
BAD_ID = {400: "A path id that is not a UUID."}
PROFILE_FILTERS = (
    Param("creditorProfileId", int),
    Param("abbreviatedName", str),
    Param("accountNumber", str),
    Param("profileCode", str),
    Param("instrument", str, f"One of {', '.join(INSTRUMENTS)}"),
    Param("instruments", str, "Comma-separated; a profile must offer all"),
)


def events(what: str, id_param: str, states: tuple[str, ...]) -> tuple[Param, ...]:
    return (
        Param("eventId", int),
        Param("fromEventId", int),
        Param("toEventId", int),
        Param(id_param, str, f"The {what}"),
        Param("fromTimestamp", str, "ISO 8601"),
        Param("toTimestamp", str, "ISO 8601"),
        Param("state", str, f"One of {', '.join(states)}"),
        *PAGING,
    )


MANDATE_STATES = tuple(MANDATE_TRANSITIONS)
DEBICHECK_FILTERS = (
    *(Param(name, str) for name in TEXT),
    *(Param(name, str, "ISO 8601 date or date-time") for name in DATE_FILTERS),
    *(Param(name, bool) for name in FLAGS),
    *PAGING,
)
MONEY_STATES = tuple(MONEY_TRANSITIONS)
CSV = "text/csv"

OPERATIONS: list[Operation] = [
    op("merchantprofile_list", "GET", "/merchantprofile", "The token's merchant profiles",
       "Merchant profiles", list[MerchantProfile], query=(*PROFILE_FILTERS, *PAGING),
       errors=BAD_QUERY),
    op("merchantprofile_list_slash", "GET", "/merchantprofile/", "The same (both spellings"
       " are the provider's)", "Merchant profiles", list[MerchantProfile],
       query=(*PROFILE_FILTERS, *PAGING), errors=BAD_QUERY),
    op("collection_eft_create", "POST", "/collection/eft",
       "An EFT collection (and its EFT mandate)", "Collections", Collection, status=201,
       body=EftCollectionInput, query=(COLLECTION_OUTCOME,)),
    op("collection_eft_from_mandate", "POST", "/collection/eft/from_mandate",
       "A further EFT collection on an ACTIVE EFT mandate", "Collections", Collection,
       status=201, body=EftFromMandateInput, query=(COLLECTION_OUTCOME,)),
    op("collection_debicheck_from_mandate", "POST", "/collection/debicheck/from_mandate",
       "A DebiCheck collection on an AUTHENTICATED mandate", "Collections", Collection,
       status=201, body=DebiCheckCollectionInput, query=(COLLECTION_OUTCOME,)),
    op("collection_debicheck_recreate_as_eft", "POST",
       "/collection/debicheck/{collectionId}/recreate_as_eft",
       "A failed DebiCheck collection again as an EFT collection", "Collections", Collection,
       status=201, body=RecreateAsEftInput, query=(COLLECTION_OUTCOME,)),
    op("collection_debicheck_list", "GET", "/collection/debicheck", "DebiCheck collections",
       "Collections", list[Collection], errors=BAD_QUERY, query=DEBICHECK_FILTERS),
    op("collection_status", "GET", "/collection/{type}/{id}/status", "A collection",
       "Collections", Collection),
    op("mandate_eft_create", "POST", "/mandate/eft", "An EFT mandate", "Mandates", Mandate,
       status=201, body=EftMandateInput),
    op("mandate_eft_list", "GET", "/mandate/eft", "EFT mandates", "Mandates", list[Mandate],
       errors=BAD_QUERY,
       query=(Param("externalReference", str), Param("bank", str), Param("profileCode", str),
              Param("state", str, f"One of {', '.join(MANDATE_STATES)}"),
              Param("bulkId", str, "UUID"), *PAGING)),
    op("mandate_debicheck_create", "POST", "/mandate/debicheck",
       "A DebiCheck mandate, PENDING_AUTHENTICATION in its window", "Mandates", Mandate,
       status=201, body=DebiCheckMandateInput),
    op("mandate_debicheck_reset", "POST", "/mandate/debicheck/{mandateId}/reset",
       "A REJECTED or EXPIRED DebiCheck mandate back to PENDING_AUTHENTICATION", "Mandates",
       Mandate, status=201,
       errors={400: "No such mandate, or its state or releaseDate does not allow it."}),
    op("mandate_status", "GET", "/mandate/{type}/{id}/status", "A mandate", "Mandates",
       Mandate),
    op("payment_eft_create", "POST", "/payment/eft", "An EFT payment", "Payments", Payment,
       status=201, body=EftPaymentInput),
    op("payment_eft_status", "GET", "/payment/eft/{id}/status", "A payment", "Payments",
       Payment),
    op("accountverification_validate", "POST", "/accountverification/validate",
       "Check-digit verification of an account", "Account verification", Verification,
       body=ValidateInput),
    op("event_mandate", "GET", "/event/mandate", "Mandate events", "Events", list[BankEvent],
       query=events("mandate", "mandateId", MANDATE_STATES), errors=BAD_QUERY),
    op("event_collection", "GET", "/event/collection", "Collection events", "Events",
       list[BankEvent], query=events("collection", "collectionId", MONEY_STATES),
       errors=BAD_QUERY),
    op("event_payment", "GET", "/event/payment", "Payment events", "Events", list[BankEvent],
       query=events("payment", "paymentId", MONEY_STATES), errors=BAD_QUERY),
    op("clientcallbackurl_register", "POST", "/clientcallbackurl/", "Register a callback URL",
       "Callbacks", Registration, body=RegistrationInput),
    op("callback_collection_eft_trigger", "POST", "/callback/collection/eft/{collectionId}/",
       "Send an EFT collection's status to its callback URLs again", "Callbacks",
       CallbackSent, body=TriggerInput),
    op("callback_test_collection_eft", "POST", "/callback/test/collection/eft/{collectionId}/",
       "Simulate a callback with a given `collectionStatus`", "Callbacks", CallbackSent,
       body=TriggerInput),
    op("bankaccountstatement_read", "GET", "/bankaccountstatement/{bankAccountNumber}/{id}",
       "A statement of a creditor account", "Statements", Statement, errors=BAD_ID),
    op("payment_eft_upload_csv", "POST", "/payment/eft/upload/csv",
       "Bulk EFT payments from a CSV body", "Bulk", BulkUpload,
       body=Body(str, media=CSV, description="UTF-8 CSV with a header row (docs/bank.md)"),
       errors={400: "The body is too large, not UTF-8, or misses a required column."}),
    op("collection_eft_download_csv", "GET", "/collection/eft/download/csv/{bulkUploadId}",
       "An upload's rows with their outcome", "Bulk", str, media=CSV, errors=BAD_ID,
       query=(Param("isError", bool, "true: the rows in error only; false: the others"),)),
]  # fmt: skip

ENUMS: dict[tuple[type, str], tuple[str, ...]] = {
    (Mandate, "status"): MANDATE_STATES,
    (Collection, "status"): MONEY_STATES,
    (Payment, "status"): MONEY_STATES,
    (MerchantProfile, "instruments"): INSTRUMENTS,
}
