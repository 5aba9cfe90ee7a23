"""The baseline: the least a Starlette + aiosqlite service can do for the same two calls.

``POST /items`` decodes a small JSON body, inserts one row and commits; ``GET /items/{id}``
selects one row. Deliberately naive: one aiosqlite connection, ``execute`` then ``commit``
per request, Starlette's stock ``request.json()`` and ``JSONResponse``. The file is in WAL
mode with ``synchronous=NORMAL``, as the emulator's database is (emulator/kernel/storage.py).

``python -m bench.bare --port N --db PATH`` serves it exactly as the emulator is served.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bench.serving import parse_args, serve

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS items "
    "(id INTEGER PRIMARY KEY, email TEXT NOT NULL, data TEXT NOT NULL)"
)


def _db(request: Request) -> aiosqlite.Connection:
    db: aiosqlite.Connection = request.app.state.db
    return db


async def insert(request: Request) -> Response:
    body = await request.json()
    if not isinstance(body, dict) or not isinstance(body.get("email"), str):
        return JSONResponse({"detail": "a JSON object with an email is expected"}, 400)
    db = _db(request)
    cursor = await db.execute(
        "INSERT INTO items (email, data) VALUES (?, ?)", (body["email"], json.dumps(body))
    )
    await db.commit()
    return JSONResponse({"id": cursor.lastrowid, "email": body["email"]}, status_code=201)


async def read(request: Request) -> Response:
    query = "SELECT id, email, data FROM items WHERE id = ?"
    async with _db(request).execute(query, (request.path_params["id"],)) as cursor:
        row = await cursor.fetchone()
    if row is None:
        return JSONResponse({"detail": "not found"}, 404)
    return JSONResponse({"id": row[0], "email": row[1], "data": json.loads(row[2])})


async def health(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


def create_app(path: Path) -> Starlette:
    """The baseline app on the SQLite file at ``path``."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        db = await aiosqlite.connect(path)
        try:
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute("PRAGMA synchronous=NORMAL")
            await db.execute(SCHEMA)
            await db.commit()
            app.state.db = db
            yield
        finally:
            await db.close()

    return Starlette(
        routes=[
            Route("/items", insert, methods=["POST"]),
            Route("/items/{id:int}", read, methods=["GET"]),
            Route("/health", health, methods=["GET"]),
        ],
        lifespan=lifespan,
    )


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args("bench.bare", argv)
    serve(create_app(args.db), args.port)


if __name__ == "__main__":
    main()
