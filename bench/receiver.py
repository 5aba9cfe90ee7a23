"""``python -m bench.receiver --port N --db PATH``: a webhook receiver that reads each POST's
body and answers 200 (``--db`` is accepted for the harness's uniform command line, unused)."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bench.serving import parse_args, serve


async def receive(request: Request) -> Response:
    await request.body()
    return Response(b"{}", media_type="application/json")


async def health(request: Request) -> Response:
    return Response(b"{}", media_type="application/json")


def create_app() -> Starlette:
    return Starlette(
        routes=[
            Route("/hook", receive, methods=["POST"]),
            Route("/health", health, methods=["GET"]),
        ]
    )


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args("bench.receiver", argv)
    serve(create_app(), args.port)


if __name__ == "__main__":
    main()
