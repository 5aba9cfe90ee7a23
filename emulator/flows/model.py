"""A flow file as typed data: what ``emulator.flows.parse`` decodes and the runner runs.

Pure: no I/O. The YAML shape (every key) is in ``docs/flows.md``. Each step is a mapping with
exactly one kind key (``call``, ``act``, ``advance``, ``expect``, ``repeat`` or ``for_each``)
and optionally ``continue_on_failure``; ``repeat`` and ``for_each`` take ``steps`` beside them.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

Api = Literal["gateway", "bank", "control"]
Method = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
MAX_REPEAT = 10_000
KINDS = ("call", "act", "advance", "expect", "repeat", "for_each")
# The act verbs, each named after the control-plane move it makes (docs/flows.md).
ACT_VERBS = (
    "pay",
    "execute_payout",
    "settle_payout",
    "authorise_mandate",
    "reject_mandate",
    "settle_collection",
    "settle_payment",
    "dispute_collection",
)


class Struct(msgspec.Struct, forbid_unknown_fields=True, frozen=True, omit_defaults=True):
    """Unknown keys are errors everywhere."""


class ClockSpec(Struct, frozen=True):
    mode: Literal["frozen", "real"] = "frozen"
    now: str | None = None


class MerchantSpec(Struct, frozen=True):
    """A fresh merchant per run (its own clock, frozen at ``clock.now`` or ``start``, else at
    the server's instant), or ``use``: an existing one by company_id (kept after the run)."""

    use: str | None = None
    clock: ClockSpec | None = None
    start: str | None = None
    name: str | None = None


class Call(Struct, frozen=True):
    api: Api
    method: Method
    path: str
    body: Any = None
    query: dict[str, Any] | None = None
    save: str | None = None
    expect_status: int | list[int] | None = None


class Act(Struct, frozen=True, rename={"reason_code": "reasonCode"}):
    """One verb (its value: the object's id) and the options of that move."""

    pay: Any = None
    execute_payout: Any = None
    settle_payout: Any = None
    authorise_mandate: Any = None
    reject_mandate: Any = None
    settle_collection: Any = None
    settle_payment: Any = None
    dispute_collection: Any = None
    card: Any = None
    expires: Any = None
    cvc: Any = None
    cardholder_name: Any = None
    remember_card: Any = None
    status: Any = None
    reason_code: Any = None
    save: str | None = None


class Step(Struct, frozen=True):
    call: Call | None = None
    act: Act | None = None
    advance: str | int | float | dict[str, Any] | None = None
    expect: list[Any] | dict[str, Any] | None = None
    repeat: int | str | None = None
    for_each: list[Any] | str | None = None
    steps: list[Step] | None = None
    continue_on_failure: bool = False

    @property
    def kind(self) -> str:
        return next(k for k in KINDS if getattr(self, k) is not None)


class FlowSpec(Struct, frozen=True):
    name: str
    steps: list[Step]
    description: str = ""
    merchant: MerchantSpec | None = None
    scenarios: list[str] = []


class Flow(msgspec.Struct, frozen=True):
    """A checked flow and the text it was read from (``source``, a file name or ``<text>``)."""

    spec: FlowSpec
    text: str
    source: str = "<text>"

    @property
    def name(self) -> str:
        return self.spec.name
