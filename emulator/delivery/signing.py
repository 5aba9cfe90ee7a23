"""RSA key pairs and the ``X-Signature`` header: base64 of an RSA PKCS#1 v1.5 signature over
SHA-256 of the exact body bytes (FIDELITY.md: Webhooks).

A 2048-bit key pair takes about 50 ms to generate (measured on the 2-core development VM,
20 to 150 ms per key), so keys are made ahead (``emulator/delivery/keypool.py``): a
webhook takes a ready pair, or one made in a worker thread before its unit of work.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

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


PRESIGNED_MAX = 4_096  # signatures made ahead and not yet used, at most


class Signer:
    """Signs with private keys given as PEM; parsed keys are kept (by PEM) for reuse.

    ``presign`` makes a signature ahead, off the database writer (the delivery engine does,
    for the events it is about to route, in a worker thread: cryptography signs without the
    GIL); ``sign`` then takes it instead of signing again. PKCS#1 v1.5 signatures
    are deterministic: one made ahead is the very one ``sign`` would make."""

    def __init__(self) -> None:
        self._keys: dict[str, rsa.RSAPrivateKey] = {}
        self._made: dict[tuple[str, bytes], str] = {}  # used once; any thread

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
        made = self._made.pop((private_pem, body), None)
        return made if made is not None else self._signature(private_pem, body)

    def presign(self, private_pem: str, body: bytes) -> None:
        if (private_pem, body) in self._made:  # a read of deliveries prepared it too
            return
        if len(self._made) >= PRESIGNED_MAX:  # made ahead for what was routed meanwhile
            self._made.clear()
        self._made[private_pem, body] = self._signature(private_pem, body)

    def _signature(self, private_pem: str, body: bytes) -> str:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding

        signature = self._key(private_pem).sign(body, padding.PKCS1v15(), hashes.SHA256())
        return base64.b64encode(signature).decode()
