"""Identifiers and secrets: the one seedable random source of the emulator."""

from __future__ import annotations

import random
import string

_ALPHANUMERIC = string.ascii_letters + string.digits
_CODE = string.ascii_uppercase + string.digits


class Ids:
    """UUIDs, tokens and codes from one random source; a seed makes a run repeatable."""

    def __init__(self, seed: int | str | None = None) -> None:
        # Seeded once from the OS when no seed is given: a sandbox needs unpredictable-enough
        # ids, not cryptographic ones, and os.urandom per id costs a system call.
        self._random = random.Random(seed if seed is not None else random.SystemRandom().random())

    def reseed(self, seed: int | str | None) -> None:
        """Start the stream over from ``seed``, or from the OS's randomness when None."""
        self._random.seed(seed if seed is not None else random.SystemRandom().random())

    def draw(self) -> int:
        """What ``uuid`` would draw (the stream moves on as it would), for a caller that may
        not need the UUID: ``uuid_of`` makes the one ``uuid`` would have."""
        return self._random.getrandbits(128)

    def uuid(self) -> str:
        """A random (version 4, RFC 4122 variant) UUID."""
        return uuid_of(self._random.getrandbits(128))

    def token(self, length: int = 40) -> str:
        return self._pick(_ALPHANUMERIC, length)

    def code(self, prefix: str, length: int = 8) -> str:
        return prefix + self._pick(_CODE, length)

    def digits(self, length: int) -> str:
        return self._pick(string.digits, length)

    def _pick(self, alphabet: str, length: int) -> str:
        """``length`` characters of ``alphabet``: the very ones ``random.choice`` picks from
        this source (its ``_randbelow``: ``getrandbits`` of the alphabet's length in bits,
        again until one falls below it), without two calls a character (a new merchant's
        secrets are 137 characters)."""
        size = len(alphabet)
        width, bits = size.bit_length(), self._random.getrandbits
        picked: list[str] = []
        while len(picked) < length:
            index = bits(width)
            if index < size:
                picked.append(alphabet[index])
        return "".join(picked)


def uuid_of(bits: int) -> str:
    """The version 4 (RFC 4122 variant) UUID of 128 random ``bits``, formatted without the
    uuid module's object (which cost a tenth of a create's time)."""
    bits = (bits & ~(0xF000 << 64)) | (0x4000 << 64)  # version 4
    bits = (bits & ~(0xC000 << 48)) | (0x8000 << 48)  # variant RFC 4122
    h = f"{bits:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
