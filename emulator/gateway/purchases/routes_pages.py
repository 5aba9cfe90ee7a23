"""The payer's pages under /p/{id}/: checkout form, direct post (form or ``?s2s=true`` JSON),
3-D Secure challenge, result. No credentials: the purchase's URL is the capability."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from emulator.domain.errors import ApiError, MalformedBody, PurchaseNotFound
from emulator.domain.validation import is_uuid
from emulator.gateway.purchases import routes_html as html
from emulator.gateway.purchases import service_payer as payer
from emulator.gateway.purchases.model import Purchase
from emulator.gateway.purchases.service_payer import CardForm, PayResult
from emulator.http.common import JSON, decode_json, on_clock_of, read_body, runtime

_TRUE = {"on", "true", "1", "yes"}


async def _due_first(request: Request) -> None:
    """Served on the purchase's merchant's clock, having run what is already due on it (as
    API requests do), so observed state is never stale."""
    await on_clock_of(request, "purchases")


def _purchase_id(request: Request) -> str:
    value: str = request.path_params["id"]
    if not is_uuid(value):
        raise PurchaseNotFound()
    return value.lower()


def _form(raw: bytes) -> dict[str, str]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedBody("The form is not valid UTF-8.") from exc
    return {k: v[0] for k, v in parse_qs(text, keep_blank_values=True).items()}


def _card_form(fields: dict[str, str]) -> CardForm:
    return CardForm(
        card_number=fields.get("card_number", ""),
        expires=fields.get("expires", ""),
        cvc=fields.get("cvc", ""),
        cardholder_name=fields.get("cardholder_name", ""),
        remember_card=fields.get("remember_card", "").lower() in _TRUE,
    )


def _cards(request: Request) -> list[tuple[str, str]]:
    """The test cards and their purchase outcomes, for the sandbox banner."""
    cards = runtime(request).test_values.get("cards")
    return [
        (str(card.get("number", "")), str(card.get("purchase", "")))
        for card in (cards if isinstance(cards, list) else [])
        if isinstance(card, dict) and card.get("purchase")
    ]


def _html_error(error: ApiError) -> Response:
    return HTMLResponse(html.error_page(error.status, error.detail), status_code=error.status)


def _redirect(request: Request, p: Purchase, ok: bool) -> Response:
    target = p.success_redirect if ok else p.failure_redirect
    return RedirectResponse(target or f"/p/{p.id}/result/", status_code=303)


def _after(request: Request, result: PayResult) -> Response:
    if result.status == "3ds_required":
        return RedirectResponse(f"/p/{result.purchase.id}/3ds/{result.challenge_id}/", 303)
    if result.status == "held":  # a hold took the card's result: the payer waits, unpaid
        return RedirectResponse(f"/p/{result.purchase.id}/result/", 303)
    return _redirect(request, result.purchase, result.status != "error")


async def checkout(request: Request) -> Response:
    await _due_first(request)
    try:
        looked_only = request.method == "HEAD"
        p = await payer.view(runtime(request), _purchase_id(request), looked_only=looked_only)
    except ApiError as exc:
        return _html_error(exc)
    return HTMLResponse(html.checkout(p, cards=_cards(request)))


async def checkout_post(request: Request) -> Response:
    await _due_first(request)
    fields: dict[str, str] = {}
    try:
        purchase_id = _purchase_id(request)
        fields = _form(await read_body(request))
        result = await payer.pay(runtime(request), purchase_id, _card_form(fields), "payform")
    except ApiError as exc:
        if exc.code != "invalid_card_data" and exc.code != "payment_method_not_available":
            return _html_error(exc)
        p = await payer.read(runtime(request), purchase_id)
        page = html.checkout(p, f"{exc.detail}", fields, _cards(request))
        return HTMLResponse(page, status_code=exc.status)
    return _after(request, result)


def _s2s_error(error: ApiError) -> Response:
    return JSON(
        {"status": "error", "error": {"code": error.code, "message": error.detail}},
        status_code=error.status,
    )


async def direct_post(request: Request) -> Response:
    """The direct post URL: a form post from the merchant's own page (redirects like the
    checkout page), or with ``?s2s=true`` a JSON answer for server-to-server integrations."""
    await _due_first(request)
    s2s = request.query_params.get("s2s", "").lower() in _TRUE
    try:
        purchase_id = _purchase_id(request)
        raw = await read_body(request)
        if request.headers.get("content-type", "").startswith("application/json"):
            form = decode_json(raw, CardForm)
        else:
            form = _card_form(_form(raw))
        result = await payer.pay(runtime(request), purchase_id, form, "direct_post")
    except ApiError as exc:
        return _s2s_error(exc) if s2s else _html_error(exc)
    if not s2s:
        return _after(request, result)
    return _s2s_answer(request, result)


def _s2s_answer(request: Request, result: PayResult) -> Response:
    body: dict[str, Any]
    if result.status == "3ds_required":
        url = (
            f"{str(request.base_url).rstrip('/')}/p/{result.purchase.id}/3ds/{result.challenge_id}/"
        )
        body = {"status": "3DS_required", "url": url, "method": "GET"}
        return JSON(body)
    if result.status == "error":
        error = result.error
        body = {"status": "error"}
        if error is not None:
            body["error"] = {"code": error.code, "message": error.message}
        return JSON(body, status_code=400)
    if result.status == "held":  # an emulator hold: no outcome yet (docs/holds.md)
        return JSON({"status": "held"}, status_code=202)
    return JSON({"status": "executed" if result.status == "paid" else "authorized"})


async def challenge(request: Request) -> Response:
    await _due_first(request)
    try:
        p, masked = await payer.read_challenge(
            runtime(request), _purchase_id(request), request.path_params["challenge"]
        )
    except ApiError as exc:
        return _html_error(exc)
    return HTMLResponse(html.challenge(p, request.url.path, masked))


async def challenge_post(request: Request) -> Response:
    await _due_first(request)
    try:
        purchase_id = _purchase_id(request)
        fields = _form(await read_body(request))
        result = await payer.complete_challenge(
            runtime(request),
            purchase_id,
            request.path_params["challenge"],
            cancelled=fields.get("action") == "cancel",
        )
    except ApiError as exc:
        return _html_error(exc)
    return _after(request, result)


async def result_page(request: Request) -> Response:
    await _due_first(request)
    try:
        p = await payer.read(runtime(request), _purchase_id(request))
    except ApiError as exc:
        return _html_error(exc)
    return HTMLResponse(html.result(p, _cards(request)))


ROUTES = [
    Route("/{id}/", checkout, methods=["GET"]),
    Route("/{id}/", checkout_post, methods=["POST"]),
    Route("/{id}/direct_post/", direct_post, methods=["POST"]),
    Route("/{id}/3ds/{challenge}/", challenge, methods=["GET"]),
    Route("/{id}/3ds/{challenge}/", challenge_post, methods=["POST"]),
    Route("/{id}/result/", result_page, methods=["GET"]),
]
