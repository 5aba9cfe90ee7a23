"""How the harness's servers run: one uvicorn configuration for the emulator and the baseline."""

from __future__ import annotations

import argparse
import os
import signal
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp

HOST = "127.0.0.1"
SERVER = "uvicorn, loop=uvloop, http=httptools"  # as the report names it


def parse_args(prog: str, argv: Sequence[str] | None = None) -> argparse.Namespace:
    """``--port N --db PATH``, the two things a server of the harness is told."""
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--db", type=Path, required=True)
    return parser.parse_args(argv)


def watch_parent(interval: float = 0.5) -> None:
    """Stop this server if the harness disappears without stopping it (e.g. SIGKILL).

    Servers run in their own session so that a Ctrl-C reaches only the harness, which then
    stops them in order; this thread covers the case where the harness cannot.
    """
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def serve(app: ASGIApp, port: int, **options: Any) -> None:
    """Serve ``app`` on 127.0.0.1 with uvloop and httptools until SIGTERM or SIGINT;
    ``options``: uvicorn's, e.g. its logging (the baseline logs warnings only) or the
    emulator's protocol class (httptools' with joined writes)."""
    import uvicorn

    watch_parent()
    uvicorn.run(
        app,
        host=HOST,
        port=port,
        lifespan="on",
        **({"loop": "uvloop", "http": "httptools", "log_level": "warning"} | options),
    )
