"""The control plane wants the admin token when one is set (always, off loopback)."""

from __future__ import annotations

import hmac
from http.cookies import CookieError, SimpleCookie
from urllib.parse import unquote

from starlette.types import ASGIApp, Receive, Scope, Send

from emulator.sandbox.errors import error

PREFIX = "/_emulator/"
COOKIE = "emulator_admin_token"  # the QA console keeps the token here (asked once)
# Open to GET without the token: the console's page (no data, it asks for the token) and the
# health check (status and version only), for orchestrators' and CI services' health checks.
OPEN = frozenset({PREFIX, PREFIX + "health"})


class AdminGuard:
    """Requires ``Authorization: Bearer <admin token>`` on the control plane when a token is
    configured (an empty one lets nothing through), or the QA console's cookie holding it.
    Deliveries to the built-in sink are exempt: webhooks carry no admin token; so are the
    console's page itself, which holds no data (it asks for the token), and the health check."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.token is None or scope["type"] != "http" or not self._guarded(scope):
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        given = headers.get(b"authorization", b"")
        expected = f"Bearer {self.token}".encode()
        # An empty token never opens it: ``Authorization: Bearer `` is no credential.
        if not self.token or not (
            hmac.compare_digest(given, expected) or self._cookie_holds(headers.get(b"cookie"))
        ):
            response = error(
                401, "admin_token_required", "this control plane needs the admin token"
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _cookie_holds(self, raw: bytes | None) -> bool:
        if not raw or self.token is None:
            return False
        try:
            morsel = SimpleCookie(raw.decode("latin-1")).get(COOKIE)
        except CookieError:
            return False
        if morsel is None:
            return False
        given = unquote(morsel.value).encode("utf-8", "surrogateescape")
        return hmac.compare_digest(given, self.token.encode("utf-8", "surrogateescape"))

    @staticmethod
    def _guarded(scope: Scope) -> bool:
        path: str = scope["path"]
        if not path.startswith(PREFIX):
            return False
        if path in OPEN and scope["method"] in ("GET", "HEAD"):
            return False
        return not (scope["method"] == "POST" and path.startswith(PREFIX + "sink/"))
