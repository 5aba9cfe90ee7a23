"""The control plane wants the admin token when one is set (always, off loopback)."""

from __future__ import annotations

import hmac

from starlette.types import ASGIApp, Receive, Scope, Send

from emulator.http.control.errors import error

PREFIX = "/_emulator/"


class AdminGuard:
    """Requires ``Authorization: Bearer <admin token>`` on the control plane when a token is
    configured (an empty one lets nothing through). Deliveries to the built-in sink are
    exempt: webhooks carry no admin token."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.token is None or scope["type"] != "http" or not self._guarded(scope):
            await self.app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(b"authorization", b"")
        expected = f"Bearer {self.token}".encode()
        # An empty token never opens it: ``Authorization: Bearer `` is no credential.
        if not self.token or not hmac.compare_digest(given, expected):
            response = error(
                401, "admin_token_required", "this control plane needs the admin token"
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    @staticmethod
    def _guarded(scope: Scope) -> bool:
        path: str = scope["path"]
        if not path.startswith(PREFIX):
            return False
        return not (scope["method"] == "POST" and path.startswith(PREFIX + "sink/"))
