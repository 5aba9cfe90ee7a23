"""Credentials: API keys (gateway), OAuth client credentials and access tokens (both).

Lookups are cached in memory (the rows stay in SQLite), ``CACHED`` of each kind at most (the
oldest go: a long-running server sees ever more merchants and tokens); the cache is dropped
whenever the whole state changes at once (reset, snapshot restore) or a merchant is deleted.
Expiry is always checked against the emulator clock, so an advanced clock expires a cached
token too.
"""

from __future__ import annotations

import base64
import hmac
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from emulator.core.merchants import repo
from emulator.core.merchants.model import ACCESS_TOKEN_SECONDS
from emulator.domain.errors import Forbidden, InvalidToken
from emulator.kernel.bounded import Bounded
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context, JobHandler

TOKEN_EXPIRY_JOB = "oauth.token_expiry"
CACHED = 10_000  # API keys, tokens and OAuth clients cached, of each (a few MB at most)
PRODUCTION_KEY = "a production API key: this emulator is a sandbox, use the sandbox api_key"


class InvalidClient(Exception):
    """Wrong client credentials at the token endpoint."""


@dataclass(frozen=True)
class Caller:
    """Who made a request: the merchant, and the OAuth client when a token was used."""

    merchant_id: str
    oauth_client_id: str | None


@dataclass(frozen=True)
class _Token:
    merchant_id: str
    client_id: str
    expires_us: int


class Credentials:
    def __init__(self, rt: Context, cached: int = CACHED) -> None:
        self._rt = rt
        self._keys: Bounded[str, tuple[str, str]] = Bounded(cached)
        self._tokens: Bounded[str, _Token] = Bounded(cached)
        # client id → (merchant, secret)
        self._clients: Bounded[str, tuple[str, str]] = Bounded(cached)
        # Bumped by forget(): a lookup that read the database before a reset or restore must
        # not cache what it read after it (the credential may be gone).
        self._generation = 0

    def cached(self) -> int:
        """How many credentials are cached (API keys, tokens and OAuth clients)."""
        return len(self._keys) + len(self._tokens) + len(self._clients)

    def forget(self) -> None:
        self._keys.clear()
        self._tokens.clear()
        self._clients.clear()
        self._generation += 1

    async def _api_key(self, key: str) -> tuple[str, str] | None:
        found = self._keys.get(key)
        if found is None:
            generation = self._generation
            found = await self._rt.db.read_point(lambda tx: repo.api_key(tx, key))
            if found is not None and generation == self._generation:
                self._keys[key] = found
        return found

    async def _token(self, value: str) -> _Token | None:
        found = self._tokens.get(value)
        if found is None:
            generation = self._generation
            row = await self._rt.db.read_point(lambda tx: repo.token(tx, value))
            if row is None:
                return None
            found = _Token(merchant_id=row[0], client_id=row[1], expires_us=row[2])
            if generation == self._generation:
                self._tokens[value] = found
        if found.expires_us <= self._rt.clock.of(found.merchant_id).now_us():
            self._tokens.pop(value, None)
            return None
        return found

    async def gateway_caller(self, bearer: str) -> Caller:
        """The gateway takes a sandbox API key, or an access token of the merchant."""
        key = await self._api_key(bearer)
        if key is not None:
            merchant_id, environment = key
            # The emulator is a sandbox: a production key is "from the other environment".
            if environment != "sandbox":
                raise InvalidToken(PRODUCTION_KEY)
            return Caller(merchant_id, None)
        token = await self._token(bearer)
        if token is None:
            raise InvalidToken(
                "the Bearer credential is neither an API key nor a live access token"
                " (unknown, revoked by a reset or restore, or expired after 24 h)"
            )
        return Caller(token.merchant_id, token.client_id)

    async def bank_caller(self, bearer: str) -> Caller:
        """The bank interface takes access tokens; a sandbox API key is known but not allowed
        here (403); a production key is invalid anywhere in a sandbox (401, as on the gateway)."""
        token = await self._token(bearer)
        if token is not None:
            return Caller(token.merchant_id, token.client_id)
        key = await self._api_key(bearer)
        if key is not None and key[1] == "sandbox":
            raise Forbidden()
        if key is not None:
            raise InvalidToken(PRODUCTION_KEY)
        raise InvalidToken(
            "the Bearer credential is not a live access token from /oauth2/token"
            " (unknown, revoked by a reset or restore, or expired after 24 h)"
        )

    async def merchant_of(self, authorization: str) -> str | None:
        """The merchant an Authorization header speaks for, without judging whether the
        request may proceed (its handler does that): for scenarios scoped to a merchant and
        the rate limiter, which act before the handler. ``None`` when it names nobody."""
        scheme, _, value = authorization.partition(" ")
        value = value.strip()
        scheme = scheme.lower()
        if not value:
            return None
        if scheme == "bearer":
            if value not in self._tokens:  # a known token costs no look-up of an API key
                key = await self._api_key(value)
                if key is not None:
                    return key[0]
            token = await self._token(value)
            return None if token is None else token.merchant_id
        if scheme == "basic":
            try:
                client_id, _, secret = (
                    base64.b64decode(value, validate=True).decode().partition(":")
                )
            except ValueError:
                return None
            return await self._client_merchant(client_id, secret)
        return None

    async def _client_merchant(self, client_id: str, secret: str) -> str | None:
        """The client's merchant, only with the client's own secret: knowing a client id
        must not let anyone spend a merchant's rate limit or scenario uses."""
        found = self._clients.get(client_id)
        if found is None:
            generation = self._generation
            row = await self._rt.db.read_point(lambda tx: repo.oauth_client(tx, client_id))
            if row is None:
                return None
            found = (str(row[0]), str(row[1]))
            if generation == self._generation:
                self._clients[client_id] = found
        merchant_id, known_secret = found
        return merchant_id if hmac.compare_digest(secret, known_secret) else None

    async def issue_token(self, client_id: str, secret: str) -> tuple[Caller, dict[str, Any]]:
        """A new access token: who asked for it (for the journal), and the token response."""
        rt = self._rt
        value = rt.ids.token(48)

        def unit(tx: Tx) -> tuple[str, int]:
            found = repo.oauth_client(tx, client_id)
            if found is None or found[1] != secret:
                raise InvalidClient()
            merchant_id = found[0]
            # 24 hours on the merchant's clock (its own, if it has one)
            expires_us = rt.clock.of(merchant_id).now_us() + ACCESS_TOKEN_SECONDS * 1_000_000
            repo.insert_token(tx, value, client_id, merchant_id, expires_us)
            rt.scheduler.schedule(tx, TOKEN_EXPIRY_JOB, expires_us, {"token": value}, merchant_id)
            return merchant_id, expires_us

        generation = self._generation
        merchant_id, expires_us = await rt.db.write(unit)
        if generation == self._generation:
            self._tokens[value] = _Token(merchant_id, client_id, expires_us)
        body = {"access_token": value, "expires_in": ACCESS_TOKEN_SECONDS, "token_type": "Bearer"}
        return Caller(merchant_id, client_id), body


def expire_token(rt: Context, tx: Tx, job: Job) -> None:
    """Job: an access token reached the end of its 24 hours; remove it."""
    repo.delete_token(tx, str(job.payload["token"]))


JOBS: dict[str, JobHandler] = {TOKEN_EXPIRY_JOB: expire_token}
