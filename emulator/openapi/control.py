"""The control plane (``/_emulator/``): one entry per served method and path."""

from __future__ import annotations

from typing import Annotated, Any

from msgspec import Meta

from emulator.bank.collections.rules import Collection
from emulator.bank.mandates.rules import AuthenticationWindows, Mandate
from emulator.bank.payments.rules import Payment
from emulator.gateway.payouts.model import Payout
from emulator.gateway.purchases.model import Purchase
from emulator.openapi import errors
from emulator.openapi.control_shapes import (
    Advanced,
    AdvanceRequest,
    CardRequest,
    ClockChanged,
    ClockSetting,
    ClockView,
    DebiCheckWindows,
    FreezeRequest,
    Health,
    Merchant,
    MerchantClock,
    MerchantDeleted,
    MerchantRequest,
    Merchants,
    MerchantSettings,
    MerchantSettingsChanged,
    PayoutSettleRequest,
    Requests,
    ResetDone,
    ResumeRequest,
    Schedule,
    SettleRequest,
    SinkDeleted,
    SinkMessages,
    SinkReceived,
    SnapshotRestored,
    Snapshots,
    SnapshotSaved,
    StateLoaded,
    States,
)
from emulator.openapi.expectation_shapes import (
    DeliveriesWaited,
    SinkWaited,
    Verified,
    VerifyRequest,
    Waited,
    WaitRequest,
    WaitsOpen,
)
from emulator.openapi.hold_shapes import (
    DelayRequest,
    DuplicateRequest,
    Hold,
    HoldRequest,
    Holds,
    ReleaseRequest,
)
from emulator.openapi.model import Body, Interface, Operation, Param
from emulator.openapi.receiver_shapes import ReceiverCheckRequest, ReceiverReport
from emulator.openapi.scenario_shapes import (
    ScenarioActivation,
    ScenarioLoaded,
    Scenarios,
    ScopeRequest,
)

NAME = Annotated[str, Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")]

CONTROL = Interface(
    name="control",
    prefix="/_emulator",
    error=errors.control,
    security=({}, {"adminToken": []}),
    always={
        401: "Bound to an address other than loopback, without the admin token"
        " (`admin_token_required`).",
    },
    with_body={
        400: "The body is not a JSON object (`malformed_json`, `invalid`) or a field is"
        " invalid (`invalid`).",
    },
    path_params={
        "company_id": Param("company_id", str, "A merchant's company_id"),
        "name": Param("name", NAME, "1-64 letters, digits, '.', '_' or '-'"),
        "id": Param("id", str, "The object's id"),
    },
)
op = CONTROL.operation

LIMIT = Param("limit", Annotated[int, Meta(ge=1, le=1000)], "At most this many (default 100)")
BEFORE = Param("before", int, "Only entries older than this id")
AFTER = Param("after", int, "Only entries newer than this id, oldest first (a live tail)")

MERCHANT = Param("merchant", str, "Only this merchant's (company_id)")
BAD_QUERY = {400: "A bad `limit`, `before` or `after` (`invalid`)."}
NO_MERCHANT = {404: "No such merchant (`merchant_not_found`)."}
NOT_OWN = {409: "The merchant follows the server clock (`clock_not_own`)."}
NAMED = {400: "A bad name (`invalid`)."}
HOLD_ERRORS = {
    404: "No such merchant (`merchant_not_found`) or hold (`not_found`).",
    409: "The hold holds nothing now (`nothing_held`).",
}


def optional(schema: Any) -> Body:
    return Body(schema, required=False, description="Optional: no body means {}.")


OPERATIONS: list[Operation] = [
    op("health", "GET", "/health", "Health and version", "Emulator", Health),
    op("reset", "POST", "/reset", "Wipe all state and reseed the fixtures", "Emulator",
       ResetDone),
    op("merchant_delete", "DELETE", "/merchants/{company_id}",
       "Delete a merchant and everything of it", "Merchants", MerchantDeleted,
       errors={**NO_MERCHANT, 409: "The default merchant (`default_merchant`): a reset puts"
               " it back instead."}),
    op("merchants_create", "POST", "/merchants", "A new isolated merchant", "Merchants",
       Merchant, status=201, body=optional(MerchantRequest)),
    op("merchants_list", "GET", "/merchants", "Every merchant", "Merchants", Merchants),
    op("merchant_settings", "PATCH", "/merchants/{company_id}", "Change a merchant's settings",
       "Merchants", MerchantSettingsChanged, body=MerchantSettings, errors=NO_MERCHANT),
    op("clock_read", "GET", "/clock", "The server clock", "Clock", ClockView),
    op("clock_advance", "POST", "/clock/advance",
       "Advance the server clock, running due jobs in order", "Clock", Advanced,
       body=AdvanceRequest,
       errors={409: "`{\"to\": \"next\"}` with nothing scheduled (`nothing_scheduled`)."}),
    op("clock_freeze", "POST", "/clock/freeze", "Stop the server clock (optionally at `at`)",
       "Clock", ClockChanged, body=optional(FreezeRequest)),
    op("clock_resume", "POST", "/clock/resume", "Back to real time", "Clock", ClockChanged,
       body=optional(ResumeRequest)),
    op("schedule", "GET", "/schedule", "Pending jobs on the server clock, soonest first",
       "Clock", Schedule, errors={400: "A bad `limit`."},
       query=(Param("object_id", str, "Only jobs acting on this object"), LIMIT)),
    op("merchant_clock_read", "GET", "/merchants/{company_id}/clock", "A merchant's clock",
       "Clock", MerchantClock, errors=NO_MERCHANT),
    op("merchant_clock_set", "PUT", "/merchants/{company_id}/clock",
       "Give a merchant its own clock, or set it", "Clock", MerchantClock,
       body=optional(ClockSetting), errors=NO_MERCHANT),
    op("merchant_debicheck_windows_read", "GET", "/merchants/{company_id}/debicheck-windows",
       "A merchant's DebiCheck authentication windows", "Merchants", DebiCheckWindows,
       errors=NO_MERCHANT),
    op("merchant_debicheck_windows_set", "PUT", "/merchants/{company_id}/debicheck-windows",
       "Set a merchant's DebiCheck authentication windows (for mandates from now on)",
       "Merchants", DebiCheckWindows, body=optional(AuthenticationWindows),
       errors=NO_MERCHANT),
    op("merchant_clock_advance", "POST", "/merchants/{company_id}/clock/advance",
       "Advance a merchant's own clock", "Clock", Advanced, body=AdvanceRequest,
       errors={**NO_MERCHANT, 409: "It follows the server clock (`clock_not_own`), or"
               " nothing is scheduled (`nothing_scheduled`)."}),
    op("merchant_clock_freeze", "POST", "/merchants/{company_id}/clock/freeze",
       "Freeze a merchant's own clock", "Clock", ClockChanged,
       body=optional(FreezeRequest), errors={**NO_MERCHANT, **NOT_OWN}),
    op("merchant_clock_resume", "POST", "/merchants/{company_id}/clock/resume",
       "Resume a merchant's own clock", "Clock", ClockChanged,
       body=optional(ResumeRequest), errors={**NO_MERCHANT, **NOT_OWN}),
    op("merchant_schedule", "GET", "/merchants/{company_id}/schedule",
       "A merchant's pending jobs, soonest first", "Clock", Schedule,
       errors={400: "A bad `limit`.", **NO_MERCHANT},
       query=(Param("object_id", str, "Only jobs acting on this object"), LIMIT)),
    op("merchant_verify", "POST", "/merchants/{company_id}/verify",
       "Check a merchant's expectations against what happened", "Expectations", Verified,
       body=VerifyRequest,
       description="The body may be YAML too (`Content-Type: application/yaml`).",
       errors={400: "A bad expectation, named by its key path (`invalid`).", **NO_MERCHANT}),
    op("merchant_wait", "POST", "/merchants/{company_id}/wait",
       "Wait until a merchant's expectations hold (or time out)", "Expectations", Waited,
       body=WaitRequest,
       description="Answers as soon as every item holds, or after `timeout_seconds` with"
       " `ok` false. With `advance`, the merchant's own clock steps from one due job to the"
       " next, never past `up_to`.",
       errors={400: "A bad expectation, timeout or advance (`invalid`).", **NO_MERCHANT,
               409: "`advance` for a merchant that follows the server clock"
                    " (`clock_not_own`)."}),
    op("merchant_har", "GET", "/merchants/{company_id}/har",
       "A merchant's requests and deliveries as an HTTP Archive (HAR 1.2)", "Expectations",
       dict[str, Any], errors={400: "A bad `limit`.", **NO_MERCHANT},
       query=(Param("limit", Annotated[int, Meta(ge=1, le=10_000)],
                    "The latest this many requests, and as many delivery attempts"
                    " (default 1000)"),)),
    op("holds_create", "POST", "/merchants/{company_id}/holds",
       "Hold the next delivery or decision that matches", "Holds", Hold, status=201,
       body=HoldRequest,
       description="A delivery is held when it is dispatched; a decision where the other"
       " side's answer would be carried out. An advance that reaches the instant a hold took"
       " something stops there (`stopped` in its answer).",
       errors={400: "A bad kind, filter, count or timeout (`invalid`).", **NO_MERCHANT}),
    op("holds_list", "GET", "/merchants/{company_id}/holds", "A merchant's holds", "Holds",
       Holds, errors=NO_MERCHANT),
    op("holds_read", "GET", "/merchants/{company_id}/holds/{id}",
       "A hold, with what it holds (the message, or the decision and its default)", "Holds",
       Hold, errors={**NO_MERCHANT, 404: "No such merchant or hold (`not_found`)."}),
    op("holds_release", "POST", "/merchants/{company_id}/holds/{id}/release",
       "Let what the hold holds go: as is, edited, or with another outcome", "Holds", Hold,
       body=optional(ReleaseRequest), errors=HOLD_ERRORS),
    op("holds_drop", "POST", "/merchants/{company_id}/holds/{id}/drop",
       "Drop what the hold holds: it never happens", "Holds", Hold, errors=HOLD_ERRORS),
    op("holds_duplicate", "POST", "/merchants/{company_id}/holds/{id}/duplicate",
       "Send the held delivery several times (same event id)", "Holds", Hold,
       body=optional(DuplicateRequest), errors=HOLD_ERRORS),
    op("holds_delay", "POST", "/merchants/{company_id}/holds/{id}/delay",
       "Let what the hold holds go later, on the merchant's clock", "Holds", Hold,
       body=DelayRequest, errors=HOLD_ERRORS),
    op("merchant_flow", "GET", "/merchants/{company_id}/flow.yaml",
       "A merchant's session as a flow file that replays it on a fresh merchant",
       "Expectations", str, media="application/yaml", errors=NO_MERCHANT,
       query=(Param("name", str, "The flow's name (default recorded-<first 8 of the id>)"),),
       description="The merchant's journaled writes become `call` steps, the moves made for"
       " it (pay, execute or settle a payout, mandates, collections, payments) `act` steps,"
       " gaps between instants `advance` steps, and its objects' final statuses and"
       " deliveries an `expect`; ids become references to the answers that made them."
       " Answered as a download (`Content-Disposition`)."),
    op("waits_open", "GET", "/waits", "How many waits are open now", "Expectations",
       WaitsOpen),
    op("snapshots_list", "GET", "/snapshots", "Names of saved snapshots", "Snapshots",
       Snapshots),
    op("snapshots_save", "POST", "/snapshots/{name}", "Save the whole state", "Snapshots",
       SnapshotSaved, status=201, errors=NAMED),
    op("snapshots_restore", "POST", "/snapshots/{name}/restore", "Put the whole state back",
       "Snapshots", SnapshotRestored,
       errors={400: "A bad name, or not a snapshot (`invalid_snapshot`).",
               404: "No snapshot of this name (`snapshot_not_found`).",
               500: "The file could not be copied in (`restore_failed`)."}),
    op("state_export", "GET", "/export", "The whole state as a readable file", "State",
       dict[str, Any], media="application/yaml,application/json",
       query=(Param("format", str, "yaml (the default) or json"),
              Param("merchant", str, "Only this merchant's (company_id)")),
       errors={400: "A bad `format` (`invalid`).", **NO_MERCHANT}),
    op("state_import", "POST", "/import", "Load a state file", "State", StateLoaded,
       body=Body(dict[str, Any], media="application/yaml,application/json",
                 description="A state file, as the export writes it or partial."),
       errors={400: "A bad file: the key path of its first error (`invalid_state`); nothing"
               " is loaded.",
               409: "An id held by another merchant, or an event id taken"
               " (`state_conflict`); nothing is loaded."}),
    op("states_list", "GET", "/states", "Names of the states in the `--states` folder",
       "State", States),
    op("states_load", "POST", "/states/{name}", "Load a named state (`--states DIR`)",
       "State", StateLoaded,
       errors={400: "A bad name, or a bad file (`invalid`, `invalid_state`).",
               404: "No state of this name (`state_not_found`).",
               409: "No states folder (`no_states_folder`), or a clash"
               " (`state_conflict`)."}),
    op("requests", "GET", "/requests", "The request journal, newest first", "Journal",
       Requests, query=(MERCHANT, LIMIT, BEFORE, AFTER), errors=BAD_QUERY),
    op("sink_receive", "POST", "/sink/{name}", "Built-in receiver: record a message", "Sink",
       SinkReceived, errors=NAMED,
       body=Body(dict[str, Any], required=False, description="Anything: it is recorded."),
       description="Never needs the admin token (webhooks carry none)."),
    op("sink_read", "GET", "/sink/{name}", "What arrived, oldest first", "Sink",
       SinkMessages, errors=NAMED),
    op("sink_clear", "DELETE", "/sink/{name}", "Forget what arrived", "Sink", SinkDeleted,
       errors=NAMED),
    op("sink_wait", "GET", "/sink/{name}/wait", "Wait until enough messages arrived", "Sink",
       SinkWaited, errors={400: "A bad name, `count` or `timeout_seconds` (`invalid`)."},
       query=(Param("count", Annotated[int, Meta(ge=1, le=10_000)],
                    "Answer once at least this many arrived (default 1)"),
              Param("timeout_seconds", Annotated[float, Meta(ge=0, le=600)],
                    "Real seconds to wait at most (default 10)")),
       description="Answers as soon as the sink holds `count` messages (each message it"
       " receives wakes the wait: nothing polls), or after `timeout_seconds` with what it"
       " holds and `timed_out` true."),
    op("test_values", "GET", "/test-values", "The magic cards and accounts", "Emulator",
       dict[str, Any]),
    op("scenarios_list", "GET", "/scenarios", "Every scenario and its activations",
       "Scenarios", Scenarios),
    op("scenarios_load", "POST", "/scenarios", "Load (or replace) a scenario", "Scenarios",
       ScenarioLoaded, status=201,
       body=Body(str, media="application/yaml", description="The scenario file (YAML)."),
       errors={400: "Refused, with a located message (`invalid_scenario`)."}),
    op("scenarios_activate", "POST", "/scenarios/{name}/activate",
       "Activate a scenario, for every merchant or one", "Scenarios", ScenarioActivation,
       body=optional(ScopeRequest),
       errors={404: "No such scenario, or merchant (`scenario_not_found`,"
               " `merchant_not_found`)."}),
    op("scenarios_deactivate", "POST", "/scenarios/{name}/deactivate",
       "Deactivate a scenario, for every merchant or one", "Scenarios", ScenarioActivation,
       body=optional(ScopeRequest), errors={404: "It was not active (`not_active`)."}),
    op("purchases_pay", "POST", "/purchases/{id}/pay", "Act as the payer", "Actors",
       Purchase, body=optional(CardRequest),
       errors={400: "Invalid card data, or a declined card (gateway codes).",
               404: "No such purchase (`purchase_not_found`).",
               409: "The purchase is not payable."}),
    op("mandates_authorise", "POST", "/mandates/{id}/authorise",
       "Act as the debtor: authorise a DebiCheck mandate", "Actors", Mandate,
       errors={404: "No such DebiCheck mandate (`not_found`).",
               409: "The mandate's state does not allow it (`invalid_state`)."}),
    op("mandates_reject", "POST", "/mandates/{id}/reject",
       "Act as the debtor: reject a DebiCheck mandate", "Actors", Mandate,
       errors={404: "No such DebiCheck mandate (`not_found`).",
               409: "The mandate's state does not allow it (`invalid_state`)."}),
    op("collections_settle", "POST", "/collections/{id}/settle", "Act as the bank now",
       "Actors", Collection, body=optional(SettleRequest),
       errors={400: "A status or reasonCode that is not allowed (`invalid`).",
               404: "No such collection.",
               409: "The state does not allow it (`invalid_state`), or a dispute after the"
                    " 40-day window (`dispute_window_closed`)."}),
    op("payments_settle", "POST", "/payments/{id}/settle", "Act as the bank now", "Actors",
       Payment, body=optional(SettleRequest),
       errors={400: "A status or reasonCode that is not allowed (`invalid`).",
               404: "No such payment.", 409: "The state does not allow it (`invalid_state`)."}),
    op("deliveries_wait", "GET", "/deliveries/wait", "Wait for the next delivery attempts",
       "Deliveries", DeliveriesWaited,
       errors={400: "A bad `limit`, `after`, `kind` or `timeout_seconds`; no `after`."},
       query=(MERCHANT, Param("object_id", str), LIMIT,
              Param("after", int, "The last attempt id seen (required)", required=True),
              Param("kind", str, "webhook, success_callback or callback"),
              Param("timeout_seconds", Annotated[float, Meta(ge=0, le=600)],
                    "Real seconds to wait at most (default 10)")),
       description="Answers as soon as an attempt after `after` is recorded (each one wakes"
       " the wait: nothing polls), oldest first as `GET /deliveries?after=`; after"
       " `timeout_seconds`, none and `timed_out` true."),
    op("receiver_check", "POST", "/receiver-checks", "Score the app's webhook receiver",
       "Deliveries", ReceiverReport, body=ReceiverCheckRequest,
       description="Sends a battery of signed webhooks (bank callbacks with `bank`) to `url`"
       " and judges each answer; see the guide *Testing your webhook handler*.",
       errors={400: "A bad `url`, `bank` or `timeout_seconds` (`invalid`).", **NO_MERCHANT,
               409: "No purchase could be made for the check (`no_brand`, `cannot_create`)."}),
    op("payouts_settle", "POST", "/payouts/{id}/settle", "Act as the provider now", "Actors",
       Payout, body=optional(PayoutSettleRequest),
       errors={404: "No such payout (`payout_not_found`).",
               409: "Not pending (`payout_not_pending`)."}),
    op("openapi", "GET", "/openapi.json", "The OpenAPI 3.1 document of everything served",
       "Documents", dict[str, Any]),
    op("openapi_interface", "GET", "/openapi/{name}.json",
       "The OpenAPI 3.1 document of one interface: gateway, bank or control", "Documents",
       dict[str, Any], errors={404: "No such document (`not_found`)."}),
    op("docs", "GET", "/docs", "This reference, as a web page", "Documents", str,
       media="text/html"),
    op("tls_ca", "GET", "/tls/ca.pem", "The CA of the certificate `serve --tls` made (PEM)",
       "Documents", str, media="application/x-pem-file",
       errors={404: "Not serving with a certificate of its own (`no_tls_ca`)."}),
]  # fmt: skip

ENUMS: dict[tuple[type, str], tuple[str, ...]] = {}
