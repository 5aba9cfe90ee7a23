"""RSA key pairs and the ``X-Signature`` header: base64 of an RSA PKCS#1 v1.5 signature over
SHA-256 of the exact body bytes (FIDELITY.md: Webhooks).

A 2048-bit key pair takes tens of milliseconds to generate, far longer than a request
should, so keys are made ahead (``emulator/delivery/keypool.py``): a
webhook takes a ready pair, or one made in a worker thread before its unit of work.
"""

from __future__ import annotations

import base64
import concurrent.futures
import contextlib
import hashlib
from typing import TYPE_CHECKING

from emulator.kernel.bounded import Bounded

if TYPE_CHECKING:  # cryptography: imported by the first key, not by serve's start
    from cryptography.hazmat.primitives.asymmetric import rsa

KEY_BITS = 2048


def generate() -> tuple[str, str]:
    """A new key pair: (private key PEM, public key PEM)."""
    from cryptography.hazmat.primitives.asymmetric import rsa

    return pems(rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS))


def pems(key: rsa.RSAPrivateKey) -> tuple[str, str]:
    """A key pair as the emulator stores it: (private key PEM, PKCS #8; public key PEM)."""
    from cryptography.hazmat.primitives import serialization

    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


PRESIGNED_MAX = 4_096  # signatures made ahead and not yet used, at most (the oldest go)
KEYS_KEPT = 512  # private keys kept parsed (the first parsed go first: parsed again if used)
WAIT_SECONDS = 5.0  # how long ``sign`` waits for one being made ahead, at most


class Signer:
    """Signs with private keys given as PEM; parsed keys are kept (by PEM) for reuse.

    ``presign`` makes a signature ahead, off the database writer (the delivery engine does,
    for the events it is about to route, in a worker thread: cryptography signs without the
    GIL); ``sign`` then takes it instead of signing again, or, when it is still being made,
    waits for it (an advance routing the event while the worker signs it: the writer waits
    less than it would take to sign, and the signature is made once). PKCS#1 v1.5 signatures
    are deterministic: one made ahead is the very one ``sign`` would make.

    Both are bounded (``emulator/kernel/bounded.py``): a long-running server sees ever more
    webhooks' keys, and a signature made ahead for an event the writer routed first is
    never taken. Those are held by the SHA-256 of their body, not the body (3 KB for a
    purchase's event): 4,096 of them, about 2 MB at most."""

    def __init__(self, keys_kept: int = KEYS_KEPT, presigned_max: int = PRESIGNED_MAX) -> None:
        self._keys: Bounded[str, rsa.RSAPrivateKey] = Bounded(keys_kept)
        # (key, the body's digest) -> signature; used once; any thread
        self._made: Bounded[tuple[str, bytes], str] = Bounded(presigned_max)
        self._making: dict[tuple[str, bytes], concurrent.futures.Future[str]] = {}
        # What ``sign`` made itself: a presign asked later makes nothing again
        self._signed: Bounded[tuple[str, bytes], None] = Bounded(presigned_max)

    def _key(self, private_pem: str) -> rsa.RSAPrivateKey:
        key = self._keys.get(private_pem)
        if key is None:
            from cryptography.hazmat.primitives import serialization
            from cryptography.hazmat.primitives.asymmetric import rsa

            # We made these keys ourselves: skipping the (slow) consistency check is safe.
            loaded = serialization.load_pem_private_key(
                private_pem.encode(), password=None, unsafe_skip_rsa_key_validation=True
            )
            assert isinstance(loaded, rsa.RSAPrivateKey)
            key = self._keys[private_pem] = loaded
        return key

    def sign(self, private_pem: str, body: bytes) -> str:
        key = (private_pem, hashlib.sha256(body).digest())
        making = self._making.get(key)  # before _made: a presign ends there
        made = self._made.pop(key, None)
        if made is not None:
            return made
        if making is not None:
            with contextlib.suppress(Exception):  # its failure: signed here instead
                made = making.result(WAIT_SECONDS)
                self._made.pop(key, None)
                return made
        made = self._signature(private_pem, body)
        self._signed[key] = None
        return made

    def presign(self, private_pem: str, body: bytes) -> None:
        key = (private_pem, hashlib.sha256(body).digest())
        if key in self._made or key in self._making or key in self._signed:
            return  # a read of deliveries prepared it too, or it was signed already
        making: concurrent.futures.Future[str] = concurrent.futures.Future()
        self._making[key] = making
        try:
            made = self._signature(private_pem, body)
        except BaseException as exc:
            making.set_exception(exc)
            raise
        else:
            self._made[key] = made
            making.set_result(made)
        finally:
            self._making.pop(key, None)

    def kept(self) -> tuple[int, int]:
        """How many private keys are kept parsed, and signatures made ahead."""
        return len(self._keys), len(self._made)

    def _signature(self, private_pem: str, body: bytes) -> str:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding

        signature = self._key(private_pem).sign(body, padding.PKCS1v15(), hashes.SHA256())
        return base64.b64encode(signature).decode()
