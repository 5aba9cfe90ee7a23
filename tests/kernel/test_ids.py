"""Ids: one seedable random source."""

from __future__ import annotations

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
