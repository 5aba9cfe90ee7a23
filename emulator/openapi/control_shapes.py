"""Bodies of the control plane, which its handlers read and write as plain dicts, described as
structs (for the document only: nothing encodes or decodes them)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

Mode = Literal["real", "frozen"]
Instant = str  # ISO-8601


class Health(msgspec.Struct):
    status: Literal["ok"]
    version: str


class ClockView(msgspec.Struct):
    """The server clock."""

    now: Instant
    mode: Mode


class MerchantClock(msgspec.Struct):
    """A merchant's clock: ``own`` is false while it follows the server clock."""

    now: Instant
    mode: Mode
    own: bool


class ResetDone(msgspec.Struct):
    reset: bool
    now: Instant
    mode: Mode


class ClockSetting(msgspec.Struct):
    """A merchant's own clock: frozen by default, at the server clock's instant by default."""

    mode: Mode | UnsetType | None = UNSET
    now: Instant | UnsetType | None = UNSET


STRICT = (
    "Refuse (400) its request bodies with keys the platform ignores, instead of naming them in"
    " `X-Emulator-Warnings` (default false; `serve --strict-requests` does it for every merchant)"
)


class MerchantRequest(msgspec.Struct):
    name: str | UnsetType | None = UNSET
    clock: ClockSetting | UnsetType | None = UNSET
    strict_requests: Annotated[bool, Meta(description=STRICT)] | UnsetType | None = UNSET


class MerchantSettings(msgspec.Struct):
    """A merchant's settings (``PATCH /merchants/{company_id}``)."""

    strict_requests: Annotated[bool, Meta(description=STRICT)]


class MerchantSettingsChanged(msgspec.Struct):
    company_id: str
    strict_requests: bool


class ProfileSummary(msgspec.Struct):
    profileCode: str
    id: int
    createdByClient: int


class Merchant(msgspec.Struct):
    company_id: str
    name: str
    brand_id: str | None
    brand_ids: list[str]
    api_key: str | None
    production_api_key: str | None
    client_id: str | None
    client_secret: str | None
    profiles: list[ProfileSummary]
    strict_requests: bool
    clock: MerchantClock


class Merchants(msgspec.Struct):
    merchants: list[Merchant]


class MerchantDeleted(msgspec.Struct):
    deleted: bool
    company_id: str
    removed: Annotated[
        dict[str, int],
        Meta(description="Rows deleted, by table (`merchants`, `purchases`, `jobs`...)"),
    ]


class AdvanceRequest(msgspec.Struct):
    """A duration (the units add up) or ``to``: an instant or ``"next"`` (the next job)."""

    seconds: Annotated[float, Meta(ge=0)] | UnsetType | None = UNSET
    minutes: Annotated[float, Meta(ge=0)] | UnsetType | None = UNSET
    hours: Annotated[float, Meta(ge=0)] | UnsetType | None = UNSET
    days: Annotated[float, Meta(ge=0)] | UnsetType | None = UNSET
    to: Instant | UnsetType | None = UNSET


class ScheduledJob(msgspec.Struct):
    due: Instant
    kind: str
    object_type: str | None
    object_id: str | None
    description: str


class AdvanceStopped(msgspec.Struct):
    """A hold took something at ``at``: the advance stopped there (``hold``: its id)."""

    hold: str
    at: Instant


class Advanced(msgspec.Struct):
    """The clock after the advance; ``next``: the job ``{"to": "next"}`` went to;
    ``stopped``: the hold that stopped it short of its target."""

    now: Instant
    mode: Mode
    jobs_run: int
    next: ScheduledJob | UnsetType = UNSET
    own: bool | UnsetType = UNSET
    stopped: AdvanceStopped | UnsetType = UNSET


class FreezeRequest(msgspec.Struct):
    at: Instant | UnsetType | None = UNSET


class ResumeRequest(msgspec.Struct):
    at: Instant | UnsetType | None = UNSET
    system: bool | UnsetType = UNSET


class ClockChanged(msgspec.Struct):
    now: Instant
    mode: Mode
    own: bool | UnsetType = UNSET


class Schedule(msgspec.Struct):
    now: Instant
    mode: Mode
    jobs: list[ScheduledJob]


class Snapshots(msgspec.Struct):
    snapshots: list[str]


class SnapshotSaved(msgspec.Struct):
    name: str
    saved_at: Instant


class SnapshotRestored(msgspec.Struct):
    name: str
    restored: bool
    now: Instant
    mode: Mode


class States(msgspec.Struct):
    states: list[str]
    folder: str | None


class StateLoaded(msgspec.Struct):
    loaded: bool
    merchants: list[str]  # their company_ids, in the file's order
    now: Instant
    mode: Mode
    name: str | UnsetType = UNSET  # a named state's


WARNINGS = (
    "Keys of the request's body the platform ignores, one warning each (as in the answer's"
    " `X-Emulator-Warnings`, which names at most 10); empty when there were none"
)


class JournalEntry(msgspec.Struct):
    id: int
    time: Instant
    merchant: str | None
    interface: str
    method: str
    path: str
    query: str
    status: int
    request_body: str
    response_body: str
    duration_ms: float
    note: str | None  # why it was refused (a 401: which credential was missing or wrong)
    warnings: Annotated[list[str], Meta(description=WARNINGS)]


class Requests(msgspec.Struct):
    requests: list[JournalEntry]


class SinkReceived(msgspec.Struct):
    received: bool
    id: int


class SinkMessage(msgspec.Struct):
    id: int
    received_at: Instant
    method: str
    path: str
    headers: dict[str, str]
    body: str
    json: Any


class SinkMessages(msgspec.Struct):
    name: str
    messages: list[SinkMessage]


class SinkDeleted(msgspec.Struct):
    name: str
    deleted: int


class CardRequest(msgspec.Struct):
    """The default test card, or the card given."""

    card_number: str | UnsetType | None = UNSET
    expires: str | UnsetType | None = UNSET
    cvc: str | UnsetType | None = UNSET
    cardholder_name: str | UnsetType | None = UNSET
    remember_card: bool | UnsetType = UNSET


class SettleRequest(msgspec.Struct):
    """``reasonCode``: a code of the schedule of unpaids, with UNPAID (default 02) or DISPUTED
    (one of authority: 30, 32, 34, 36; default 30)."""

    status: Literal["COMPLETED", "UNPAID", "REJECTED", "DISPUTED"] | UnsetType = UNSET
    reasonCode: str | UnsetType = UNSET


class PayoutSettleRequest(msgspec.Struct):
    status: Literal["success", "failed"] | UnsetType | None = UNSET


class DebiCheckWindows(msgspec.Struct):
    """A merchant's DebiCheck authentication windows; ``default``: none was set."""

    company_id: str
    realtime_seconds: int
    delayed_until: str
    batch_until: str
    default: bool
