"""The token endpoint (``/oauth2/token``): part of both the gateway's and the bank's document
(an access token works on both), and of the document of everything."""

from __future__ import annotations

from typing import Literal

import msgspec

from emulator.kernel.clock import TIME_HEADER
from emulator.openapi import errors
from emulator.openapi.model import FORM, Body, Interface, Operation


class TokenRequest(msgspec.Struct):
    grant_type: Literal["client_credentials"]


class Token(msgspec.Struct):
    access_token: str
    expires_in: int
    token_type: Literal["Bearer"]


OAUTH = Interface(
    name="oauth",
    prefix="/oauth2",
    error=errors.oauth,
    security=({"clientBasic": []},),
    always=errors.FAULTS,
    headers=(TIME_HEADER,),
)

OPERATIONS: list[Operation] = [
    OAUTH.operation(
        "oauth2_token",
        "POST",
        "/token",
        "An access token (client credentials)",
        "OAuth 2.0",
        Token,
        body=Body(TokenRequest, media=FORM),
        errors={
            400: "Not a form body or no `grant_type` (`invalid_request`); no or wrong HTTP"
            " Basic credentials (`invalid_client`); another grant (`unsupported_grant_type`).",
        },
        description="The token lasts 24 hours on the emulator clock of the client's merchant.",
    ),
]

ENUMS: dict[tuple[type, str], tuple[str, ...]] = {}
