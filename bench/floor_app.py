"""The HTTP and JSON floor of a create-purchase: what the stack costs without the emulator.

``POST /purchases`` reads the body, decodes it with msgspec into the emulator's own input
struct (``PurchaseInput``, the gateway's body of a create) and answers 201 with a purchase's
JSON as the emulator answers it (bytes read once at start from ``purchase.json`` beside the
``--db`` path, written there by ``bench.floor``). No database, no auth, no journal, no access
log: Starlette's routing and uvicorn's HTTP under the same load as the bare insert.

``python -m bench.floor_app --port N --db PATH`` serves it as ``bench.bare`` is served.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import msgspec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bench.serving import parse_args, serve

BODY_FILE = "purchase.json"


def create_app(answer: bytes) -> Starlette:
    from emulator.gateway.purchases.input import PurchaseInput

    decoder = msgspec.json.Decoder(PurchaseInput)

    async def create(request: Request) -> Response:
        try:
            decoder.decode(await request.body())
        except msgspec.ValidationError as exc:
            return Response(str(exc).encode(), 400)
        return Response(answer, 201, media_type="application/json")

    async def health(request: Request) -> Response:
        return Response(b'{"status": "ok"}', media_type="application/json")

    return Starlette(
        routes=[
            Route("/purchases", create, methods=["POST"]),
            Route("/health", health, methods=["GET"]),
        ]
    )


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args("bench.floor_app", argv)
    serve(create_app(Path(args.db).with_name(BODY_FILE).read_bytes()), args.port)


if __name__ == "__main__":
    main()
