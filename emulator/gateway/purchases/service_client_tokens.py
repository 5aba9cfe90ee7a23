"""A client's recurring tokens: the purchases saved as its payment credentials
(``GET/DELETE /clients/{id}/recurring_tokens/``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from emulator.domain.errors import ClientNotFound, PurchaseNotFound, RecurringTokenNotFound
from emulator.gateway.clients import repo as clients_repo
from emulator.gateway.purchases import repo
from emulator.gateway.purchases import service as purchases
from emulator.gateway.purchases.model import Purchase, SavedCard
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context


def _known_client(tx: Tx, merchant_id: str, client_id: str) -> None:
    if clients_repo.get_raw(tx, merchant_id, client_id) is None:
        raise ClientNotFound()


async def recurring_tokens(
    rt: Context, merchant_id: str, client_id: str, number: int, size: int
) -> tuple[list[dict[str, Any]], bool]:
    """The client's saved payment credentials (purchases that are recurring tokens), newest
    first."""

    def unit(tx: Tx) -> list[dict[str, Any]] | None:
        if clients_repo.get_raw(tx, merchant_id, client_id) is None:
            return None
        found = repo.tokens_of_client(tx, merchant_id, client_id, size + 1, (number - 1) * size)
        return [token_view(p, internal.card) for p, internal in found]

    tokens = await rt.db.read(unit)
    if tokens is None:
        raise ClientNotFound()
    return tokens[:size], len(tokens) > size


async def recurring_token(
    rt: Context, merchant_id: str, client_id: str, token_id: str
) -> dict[str, Any]:
    """One of the client's recurring tokens (OpenAPI ``ClientRecurringToken``); 404
    ``client_not_found``, or ``recurring_token_not_found`` for a token that is not the
    client's (unknown, deleted, another client's)."""

    def unit(tx: Tx) -> dict[str, Any] | None:
        if clients_repo.get_raw(tx, merchant_id, client_id) is None:
            raise ClientNotFound()
        found = repo.get(tx, merchant_id, token_id)
        if found is None:
            return None
        p, internal = found
        if not p.is_recurring_token or p.client_id != client_id:
            return None
        return token_view(p, internal.card)

    token = await rt.db.read(unit)
    if token is None:
        raise RecurringTokenNotFound()
    return token


async def delete_recurring_token(
    rt: Context, merchant_id: str, client_id: str, token_id: str
) -> None:
    """DELETE /clients/{id}/recurring_tokens/{token}/: the purchase stops being a token."""
    await rt.db.read(lambda tx: _known_client(tx, merchant_id, client_id))
    try:
        await purchases.delete_recurring_token(rt, merchant_id, token_id, client_id=client_id)
    except PurchaseNotFound:
        raise RecurringTokenNotFound() from None


def token_view(p: Purchase, card: SavedCard | None) -> dict[str, Any]:
    """A recurring token as GET /clients/{id}/recurring_tokens/ lists it."""
    return {
        "type": "client_recurring_token",
        "id": p.id,
        "created_on": p.created_on,
        "updated_on": p.updated_on,
        "payment_method": card.brand if card else p.transaction_data.payment_method,
        "description": card.masked if card else "",
    }
