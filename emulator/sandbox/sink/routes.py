"""The sink's endpoints (``/_emulator/sink/...``): a receiver inside the emulator that keeps
what it is sent; decode, one service call, encode."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from emulator.http.common import JSON, read_body, runtime
from emulator.sandbox.sink import service as sink


async def sink_post(request: Request) -> Response:
    name = request.path_params["name"]
    raw = await read_body(request)
    headers = {k: v for k, v in request.headers.items()}
    message_id = await sink.receive(
        runtime(request),
        name,
        request.method,
        request.url.path,
        headers,
        raw.decode("utf-8", "replace"),
    )
    return JSON({"received": True, "id": message_id})


async def sink_get(request: Request) -> Response:
    name = request.path_params["name"]
    # what is due to arrive has arrived (sends to other receivers are not waited for)
    await runtime(request).deliveries.flush(sink_path=request.url.path)
    return JSON({"name": name, "messages": await sink.messages(runtime(request), name)})


async def sink_delete(request: Request) -> Response:
    name = request.path_params["name"]
    return JSON({"name": name, "deleted": await sink.clear(runtime(request), name)})
