"""How ``payments-emulator serve`` logs: uvicorn's configuration, minus its per-request access
log, plus the emulator's own loggers at the same level.

The access log is the emulator's (``emulator.http.accesslog``: one compact line per request,
written in batches); deliveries and clock advances are logged at info by ``emulator.delivery``
and ``emulator.kernel``.
"""

from __future__ import annotations

import copy
from typing import Any

from uvicorn.config import LOG_LEVELS, LOGGING_CONFIG


def log_config(level: str) -> dict[str, Any]:
    """uvicorn's logging configuration with the ``emulator`` loggers at ``level``."""
    config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    numeric = LOG_LEVELS[level.lower()]
    config["formatters"]["lines"] = {"format": "%(message)s"}  # lines carry their prefix
    config["handlers"]["lines"] = {
        "formatter": "lines",
        "class": "logging.StreamHandler",
        "stream": "ext://sys.stdout",
    }
    config["loggers"]["emulator"] = {"handlers": ["default"], "level": numeric, "propagate": False}
    config["loggers"]["emulator.access"] = {
        "handlers": ["lines"],
        "level": numeric,
        "propagate": False,
    }
    return config


def server_options(level: str) -> dict[str, Any]:
    """The uvicorn options every server of the emulator's own is run with (``serve`` and the
    benchmark harness): its logging, uvicorn's access log off (the emulator keeps its own), and
    no WebSocket protocol: no route is a WebSocket one, and uvicorn's "auto" imports the
    websockets library (and importlib.metadata with it) at start, a tenth of serve's start. An
    upgrade request is answered as the plain HTTP request it also is."""
    return {
        "log_level": level.lower(),
        "log_config": log_config(level),
        "access_log": False,
        "ws": "none",
    }
