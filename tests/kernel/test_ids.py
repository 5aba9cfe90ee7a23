"""Ids: one seedable random source."""

from __future__ import annotations

import random
import string
import uuid

from emulator.kernel.ids import Ids


def test_a_seed_makes_ids_repeatable():
    """Two sources with one seed give the same UUIDs and tokens."""
    a, b = Ids(7), Ids(7)
    assert [a.uuid(), a.token(), a.code("P")] == [b.uuid(), b.token(), b.code("P")]


def test_ids_are_version_4_uuids():
    value = uuid.UUID(Ids(1).uuid())
    assert value.version == 4


def test_unseeded_sources_differ():
    assert Ids().uuid() != Ids().uuid()


def test_tokens_codes_and_digits_are_what_random_choice_picks():
    """A seed gives the tokens, codes and digits it gave when each character was one
    ``random.choice``: stored ids and seeded runs stay as they were."""
    ids, ref = Ids(42), random.Random(42)
    letters, upper = string.ascii_letters + string.digits, string.ascii_uppercase + string.digits
    for _ in range(50):
        assert ids.token(32) == "".join(ref.choice(letters) for _ in range(32))
        assert ids.code("P", 9) == "P" + "".join(ref.choice(upper) for _ in range(9))
        assert ids.digits(8) == "".join(ref.choice(string.digits) for _ in range(8))
        assert ids.uuid() and ref.getrandbits(128) >= 0  # the stream stays in step
