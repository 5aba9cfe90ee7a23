"""What a long-running emulator keeps in memory stays bounded (issue 32): each cache keyed by
what the traffic brings forgets its oldest entries past its size, and answers the same after
forgetting (a forgotten entry is read or made again)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from emulator.core.auth.service import Credentials
from emulator.delivery import signing
from emulator.flows.record import Move
from emulator.kernel.bounded import Bounded
from emulator.kernel.per_merchant import PerMerchant
from emulator.runtime.runtime import Runtime
from emulator.sandbox.flows.routes_moves import moves_of
from tests.delivery.test_deliveries import verify
from tests.http.purchase_helpers import purchase_body
from tests.http.scenario_helpers import new_merchant


def test_a_bounded_cache_stays_at_its_size_and_forgets_the_oldest_first() -> None:
    cache: Bounded[int, str] = Bounded(3)
    for n in range(10):
        cache[n] = str(n)
    assert cache == {7: "7", 8: "8", 9: "9"}
    cache[8] = "again"  # a key it holds: nothing is forgotten
    assert cache == {7: "7", 8: "again", 9: "9"}
    with pytest.raises(ValueError):
        Bounded(0)


def _pair() -> tuple[str, str]:
    # 1,024 bits: a key made in milliseconds; the signer does not care about the size
    return signing.pems(rsa.generate_private_key(public_exponent=65537, key_size=1024))


def test_the_signer_keeps_at_most_its_keys_and_still_signs_with_a_forgotten_one() -> None:
    pairs = [_pair() for _ in range(3)]
    signer = signing.Signer(keys_kept=2)
    for private, public in pairs + pairs[:1]:  # the first again, after it was forgotten
        verify(public, signer.sign(private, b'{"a": 1}'), b'{"a": 1}')
        assert signer.kept()[0] <= 2
    assert signer.kept() == (2, 0)


def test_signatures_made_ahead_and_never_taken_are_forgotten_oldest_first() -> None:
    (private, public), fresh = _pair(), signing.Signer()
    signer = signing.Signer(presigned_max=3)
    bodies = [b'{"n": %d}' % n for n in range(5)]
    for body in bodies:  # routed before their signatures were ready: never taken
        signer.presign(private, body)
    assert signer.kept()[1] == 3
    for body in bodies:  # the newest three are taken, the oldest two made again: all right
        made = signer.sign(private, body)
        assert made == fresh.sign(private, body)
        verify(public, made, body)
    assert signer.kept()[1] == 0


async def test_cached_credentials_stay_at_their_size_and_still_answer(
    runtime: Runtime, http: httpx.AsyncClient
) -> None:
    credentials = Credentials(runtime, cached=2)
    merchants = [await new_merchant(http) for _ in range(3)]
    for merchant in merchants + merchants[:1]:  # the first again, after it was forgotten
        caller = await credentials.gateway_caller(merchant["api_key"])
        assert caller.merchant_id == merchant["company_id"]
        found = await credentials.merchant_of(f"Bearer {merchant['api_key']}")
        assert found == merchant["company_id"]
        assert credentials.cached() <= 2
    for merchant in merchants:
        _, token = await credentials.issue_token(merchant["client_id"], merchant["client_secret"])
        caller = await credentials.bank_caller(token["access_token"])
        assert caller.merchant_id == merchant["company_id"]
    assert credentials.cached() <= 4  # two API keys, two tokens


def _move(n: int) -> Move:
    return Move(after_id=n, at_us=n, verb="pay", object_id=f"p-{n}", args={})


def test_moves_stay_within_their_total_and_per_merchant_sizes() -> None:
    moves: PerMerchant[Move] = PerMerchant(kept=5, per_merchant=3, merchants=1_000)
    for n in range(4):
        moves.add("a", _move(n))
    assert [m.after_id for m in moves.of("a")] == [1, 2, 3]  # its oldest went
    assert moves.count() == 3
    moves.add("b", _move(10))
    moves.add("b", _move(11))
    assert moves.count() == 5
    moves.add("c", _move(20))  # past the total: the least recently moved merchant goes
    assert (moves.of("a"), moves.count()) == ([], 3)
    assert [m.after_id for m in moves.of("b") + moves.of("c")] == [10, 11, 20]
    moves.drop("b")
    assert moves.count() == 1


async def test_deleting_a_merchant_forgets_its_moves(
    runtime: Runtime, http: httpx.AsyncClient
) -> None:
    doomed: dict[str, Any] = await new_merchant(http)
    gw = {"Authorization": f"Bearer {doomed['api_key']}"}
    made = await http.post("/api/v1/purchases/", json=purchase_body(doomed), headers=gw)
    assert made.status_code == 201, made.text
    paid = await http.post(f"/_emulator/purchases/{made.json()['id']}/pay", json={})
    assert paid.status_code == 200, paid.text
    assert len(moves_of(runtime).of(doomed["company_id"])) == 1

    deleted = await http.delete(f"/_emulator/merchants/{doomed['company_id']}")

    assert deleted.status_code == 200, deleted.text
    assert moves_of(runtime).of(doomed["company_id"]) == []
    assert moves_of(runtime).count() == 0
