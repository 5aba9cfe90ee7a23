"""Control plane: a merchant's DebiCheck authentication windows (read, set)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from emulator.bank.mandates import repo as mandates_repo
from emulator.bank.mandates.rules import DEFAULT_WINDOWS, AuthenticationWindows
from emulator.core.merchants import repo as merchants_repo
from emulator.domain.errors import ControlError
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context


def _known(tx: Tx, company_id: str) -> None:
    if merchants_repo.get(tx, company_id) is None:
        raise ControlError(404, "merchant_not_found", f"no merchant with company_id {company_id!r}")


def _view(company_id: str, value: AuthenticationWindows | None) -> dict[str, Any]:
    return {
        "company_id": company_id,
        **msgspec.to_builtins(value or DEFAULT_WINDOWS),
        "default": value is None,
    }


async def get(rt: Context, company_id: str) -> dict[str, Any]:
    def unit(tx: Tx) -> dict[str, Any]:
        _known(tx, company_id)
        return _view(company_id, mandates_repo.windows(tx, company_id))

    return await rt.db.read(unit)


async def put(rt: Context, company_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """Set the windows of the mandates created (or reset) from now on; a field left out takes
    its default. Windows already open keep their end."""
    try:
        value = msgspec.convert(body, AuthenticationWindows)
    except msgspec.ValidationError as exc:
        raise ControlError(400, "invalid", str(exc)) from exc

    def unit(tx: Tx) -> dict[str, Any]:
        _known(tx, company_id)
        mandates_repo.put_windows(tx, company_id, value)
        return _view(company_id, value)

    return await rt.db.write(unit)
