"""``GET /_emulator/tls/ca.pem``: the CA of the certificate ``serve --tls`` made, for clients to
trust (404 when the emulator serves plain HTTP or a certificate it was given)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.domain.errors import ControlError
from emulator.http.common import runtime

PEM = "application/x-pem-file"


async def ca_pem(request: Request) -> Response:
    path = runtime(request).settings.tls_ca
    if path is None:
        raise ControlError(
            404, "no_tls_ca", "this emulator made no CA: it is not serving with --tls"
        )
    try:
        data = path.read_bytes()
    except OSError:
        raise ControlError(404, "no_tls_ca", f"the CA file {path} is gone") from None
    return Response(data, media_type=PEM)


ROUTES = [Route("/tls/ca.pem", ca_pem, methods=["GET"])]
