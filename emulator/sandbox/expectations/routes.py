"""``POST /_emulator/merchants/{company_id}/verify`` and ``.../wait``: expectations, as JSON
(or YAML, by ``Content-Type``). A client that goes away cancels its wait. ``GET .../har``: the
merchant's traffic as an HTTP Archive. ``GET /_emulator/sink/{name}/wait``: a sink's messages
once enough have arrived; ``GET /_emulator/deliveries/wait``: the delivery log's next attempts.
``GET /_emulator/waits``: how many waits are open."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.domain.errors import ControlError
from emulator.http.common import JSON, parse_int, read_body, runtime
from emulator.sandbox.body import json_body
from emulator.sandbox.expectations import service as expectations
from emulator.sandbox.expectations import service_har as har
from emulator.sandbox.expectations import service_wait as expectation_wait
from emulator.sandbox.expectations.model import DELIVERY_KINDS
from emulator.sandbox.paging import page_query
from emulator.sandbox.sink import service as sink
from emulator.scenarios.yamlfile import YamlRefused, load

YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml")


async def _body(request: Request) -> dict[str, Any]:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind not in YAML_TYPES:
        return await json_body(request)
    try:
        document, _ = load(await read_body(request))
    except YamlRefused as exc:
        raise ControlError(400, "invalid", f"the YAML body: {exc}") from None
    if not isinstance(document, dict):
        raise ControlError(400, "invalid", "the body must be a mapping with 'expect'")
    return document


async def verify(request: Request) -> Response:
    body = await _body(request)
    company_id = request.path_params["company_id"]
    return JSON(await expectations.verify(runtime(request), company_id, body))


async def _disconnected(request: Request) -> None:
    """Returns once the client has gone away (its body has been read already)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def wait(request: Request) -> Response:
    body = await _body(request)
    company_id = request.path_params["company_id"]
    return await _until_answered(request, expectation_wait.wait(runtime(request), company_id, body))


async def sink_wait(request: Request) -> Response:
    """``GET /_emulator/sink/{name}/wait?count=N&timeout_seconds=S``."""
    count = parse_int(request.query_params.get("count", "1"))
    timeout = _seconds(request.query_params.get("timeout_seconds", "10"))
    count, timeout = sink.wait_bounds(count, timeout)
    name = request.path_params["name"]
    return await _until_answered(request, sink.wait(runtime(request), name, count, timeout))


async def deliveries_wait(request: Request) -> Response:
    """``GET /_emulator/deliveries/wait?after=ID&timeout_seconds=S``: the delivery log's next
    attempts (``merchant``, ``object_id``, ``kind`` and ``limit`` as the log takes them)."""
    query = request.query_params
    limit, _, after = page_query(request)
    if after is None:
        raise ControlError(400, "invalid", "'after' is required: the last attempt id seen")
    kind = query.get("kind")
    if kind is not None and kind not in DELIVERY_KINDS:
        raise ControlError(400, "invalid", f"'kind' must be one of: {', '.join(DELIVERY_KINDS)}")
    _, seconds = sink.wait_bounds(1, _seconds(query.get("timeout_seconds", "10")))
    return await _until_answered(
        request,
        expectation_wait.deliveries_after(
            runtime(request), query.get("merchant"), query.get("object_id"), kind, limit, after,
            seconds,
        ),
    )  # fmt: skip


def _seconds(text: str) -> Any:
    try:
        return float(text)
    except ValueError:
        return None


async def _until_answered(request: Request, answer: Coroutine[Any, Any, Any]) -> Response:
    """The answer as JSON; a 499 when the client goes away first (its wait is cancelled)."""
    waiting = asyncio.ensure_future(answer)
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait((waiting, gone), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (gone, waiting):
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
    if not waiting.done() or waiting.cancelled():
        return Response(status_code=499)  # nobody is listening
    return JSON(waiting.result())


async def waits(request: Request) -> Response:
    """How many waits are open now (of every merchant and sink)."""
    return JSON({"open": runtime(request).notices.watching()})


async def merchant_har(request: Request) -> Response:
    limit = parse_int(request.query_params.get("limit", "1000"))
    if limit is None or not 1 <= limit <= 10_000:
        raise ControlError(400, "invalid", "'limit' must be an integer from 1 to 10000")
    base_url = str(request.base_url).rstrip("/")
    company_id = request.path_params["company_id"]
    return JSON(await har.har(runtime(request), company_id, base_url, limit))


ROUTES = [
    Route("/merchants/{company_id}/verify", verify, methods=["POST"]),
    Route("/merchants/{company_id}/wait", wait, methods=["POST"]),
    Route("/merchants/{company_id}/har", merchant_har, methods=["GET"]),
    Route("/waits", waits, methods=["GET"]),
    Route("/sink/{name}/wait", sink_wait, methods=["GET"]),
    Route("/deliveries/wait", deliveries_wait, methods=["GET"]),
]
