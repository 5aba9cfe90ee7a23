"""Identifiers and secrets: the one seedable random source of the emulator."""

from __future__ import annotations

import random
import string
import uuid

_ALPHANUMERIC = string.ascii_letters + string.digits


class Ids:
    """UUIDs, tokens and codes from one random source; a seed makes a run repeatable."""

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed) if seed is not None else random.SystemRandom()

    def uuid(self) -> str:
        return str(uuid.UUID(int=self._random.getrandbits(128), version=4))

    def token(self, length: int = 40) -> str:
        return "".join(self._random.choice(_ALPHANUMERIC) for _ in range(length))

    def code(self, prefix: str, length: int = 8) -> str:
        alphabet = string.ascii_uppercase + string.digits
        return prefix + "".join(self._random.choice(alphabet) for _ in range(length))

    def digits(self, length: int) -> str:
        return "".join(self._random.choice(string.digits) for _ in range(length))
