"""One ``trigger`` run: the merchant's clients (gateway, bank, control plane) and what it
made, in order; its clock advanced to the job that emits the event."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from emulator.cli.client import Context, Refused, segment
from emulator.cli.wire import api_answer as _answer
from emulator.kernel.ids import Ids  # light: random and string

if TYPE_CHECKING:
    import httpx

    from emulator.testing import Merchant


@dataclass
class Trigger:
    """One run: the merchant's clients and what was made, in order."""

    context: Context
    merchant: Merchant
    made: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ids: Ids = field(default_factory=Ids)
    reason_code: str | None = None
    _gateway: httpx.Client | None = None
    _bank: httpx.Client | None = None

    def close(self) -> None:
        for client in (self._gateway, self._bank):
            if client is not None:
                client.close()

    def gateway(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        if self._gateway is None:
            self._gateway = self.merchant.gateway(self.context.url, timeout=self.context.timeout)
        return _answer(self._gateway.request(method, path, json=body))

    def bank(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        if self._bank is None:
            self._bank = self.merchant.bank(self.context.url, timeout=self.context.timeout)
        return _answer(self._bank.request(method, path, json=body))

    def control(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        return self.context.call(method, path, json=body)

    def keep(self, kind: str, obj: dict[str, Any]) -> dict[str, Any]:
        self.made.append((kind, obj))
        return obj

    @property
    def company(self) -> str:
        """The merchant's company id as a path segment."""
        return segment(self.merchant.company_id, "company_id")

    def reference(self, prefix: str) -> str:
        return f"{prefix}-{self.ids.token(10)}"

    def profile(self) -> str:
        if not self.merchant.profiles:
            raise Refused(f"merchant {self.merchant.company_id} has no bank profile")
        return self.merchant.profiles[0].profile_code

    def today(self) -> str:
        """The merchant's date, on its clock."""
        clock = self.control("GET", f"merchants/{self.company}/clock")
        return str(clock["now"])[:10]

    def wait_for_job(self, object_id: str | int, kind: str) -> None:
        """Advance the merchant's clock (its own, or the server clock it follows) to the next
        job of ``kind`` acting on ``object_id``, running everything due on the way."""
        company = self.company
        query = {"object_id": str(object_id)}
        jobs = self.context.call("GET", f"merchants/{company}/schedule", params=query)
        due = next((job["due"] for job in jobs["jobs"] if job["kind"] == kind), None)
        if due is None:
            raise NotEmitted(f"no {kind} job is scheduled for {object_id}")
        own = self.control("GET", f"merchants/{company}/clock").get("own")
        path = f"merchants/{company}/clock/advance" if own else "clock/advance"
        answer = self.control("POST", path, {"to": due})
        whose = "the merchant's own clock" if own else "the server clock"
        self.notes.append(f"advanced {whose} to {answer['now']} ({answer['jobs_run']} job(s) run)")


class NotEmitted(Refused):
    """The event could not be driven: exit 1 with this message."""


def seg(obj: dict[str, Any]) -> str:
    """An object's id as one path segment."""
    return segment(str(obj["id"]), "id")
