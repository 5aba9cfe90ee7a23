"""``python -m bench.serve_emulator --port N --db PATH``: the emulator as users run it.

The same app, runtime and logging ``payments-emulator serve`` (and ``make run``) builds, at its
default log level (info: the emulator's access log, deliveries and advances), on a fresh SQLite
file, with the event loop and HTTP parser named explicitly (uvloop, httptools) instead of
uvicorn's "auto".
"""

from __future__ import annotations

from collections.abc import Sequence

from bench.serving import HOST, parse_args, serve


def main(argv: Sequence[str] | None = None) -> None:
    from emulator.app import create_app
    from emulator.cli import tune_gc
    from emulator.logs import server_options
    from emulator.runtime import Runtime
    from emulator.settings import Settings

    args = parse_args("bench.serve_emulator", argv)
    settings = Settings(host=HOST, port=args.port, db_path=args.db)
    app = create_app(Runtime(settings))
    tune_gc()  # as `payments-emulator serve` does
    serve(app, args.port, **server_options("info"))  # serve's default --log-level


if __name__ == "__main__":
    main()
