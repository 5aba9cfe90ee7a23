"""``python -m bench.serve_emulator --port N --db PATH``: the emulator as users run it.

The same app, runtime, HTTP protocol (httptools', each answer written to the socket at once)
and logging ``payments-emulator serve`` (and ``make run``) builds, at its default log level
(info: the emulator's access log, deliveries and advances), on a fresh SQLite file, with the
event loop named explicitly (uvloop) instead of uvicorn's "auto".
"""

from __future__ import annotations

from collections.abc import Sequence

from bench.serving import HOST, parse_args, serve


def main(argv: Sequence[str] | None = None) -> None:
    from emulator.cli.commands import tune_gc
    from emulator.http.protocol import JoinedWritesProtocol
    from emulator.runtime.runtime import Runtime
    from emulator.runtime.settings import Settings
    from emulator.serving.app import create_app
    from emulator.serving.logs import server_options

    args = parse_args("bench.serve_emulator", argv)
    settings = Settings(host=HOST, port=args.port, db_path=args.db)
    app = create_app(Runtime(settings))
    tune_gc()  # as `payments-emulator serve` does
    # serve's protocol and default --log-level
    serve(app, args.port, http=JoinedWritesProtocol, **server_options("info"))


if __name__ == "__main__":
    main()
