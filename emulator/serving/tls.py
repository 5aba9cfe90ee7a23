"""HTTPS for ``serve --tls``: a CA of the emulator's own and a server certificate it signs, for
localhost, 127.0.0.1, ::1 and the bound host. Kept next to the database (``<db>.tls/``) so that
clients that trust the CA keep trusting it across restarts; made again when a file is missing
or the certificate does not cover the host or expires within a day."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from emulator.kernel.clock import Clock

VALID_DAYS = 825  # what clients accept of a server certificate (Apple's limit)


@dataclass(frozen=True)
class TlsFiles:
    cert: Path
    key: Path
    ca: Path | None  # None when the certificate was given (--tls-cert/--tls-key)


def directory_for(db_path: Path) -> Path:
    return db_path.parent / f"{db_path.name}.tls"


def _names(host: str) -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = [
        x509.DNSName("localhost"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        x509.IPAddress(ipaddress.ip_address("::1")),
    ]
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        if host and host != "localhost":
            names.append(x509.DNSName(host))
    else:
        if not address.is_unspecified and x509.IPAddress(address) not in names:
            names.append(x509.IPAddress(address))
    return names


def _usable(cert_path: Path, host: str, now: datetime) -> bool:
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (OSError, ValueError, x509.ExtensionNotFound):
        return False
    if cert.not_valid_after_utc < now + timedelta(days=1):
        return False
    return all(name in names for name in _names(host))


def _write(path: Path, data: bytes, private: bool = False) -> None:
    path.write_bytes(data)
    if private:
        os.chmod(path, 0o600)


def ensure(directory: Path, host: str, now: datetime | None = None) -> TlsFiles:
    """The CA and the server certificate in ``directory``, made when needed."""
    now = now or Clock().now()  # certificates are valid in real time, not the emulator's
    files = TlsFiles(directory / "server.pem", directory / "server-key.pem", directory / "ca.pem")
    assert files.ca is not None
    if files.key.exists() and files.ca.exists() and _usable(files.cert, host, now):
        return files
    directory.mkdir(parents=True, exist_ok=True)
    start = now - timedelta(hours=1)  # a client's clock a little behind still accepts it
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "payments-emulator local CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host or "localhost")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + timedelta(days=VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName(_names(host)), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    _write(files.ca, ca.public_bytes(pem))
    _write(files.cert, cert.public_bytes(pem))
    _write(
        files.key,
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
        private=True,
    )
    return files


def check_given(cert: Path, key: Path) -> None:
    """``--tls-cert``/``--tls-key``: both readable PEM; a ValueError naming the flag."""
    for flag, path, marker in (("--tls-cert", cert, b"CERTIFICATE"), ("--tls-key", key, b"KEY")):
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ValueError(f"{flag}: cannot read {path}: {exc.strerror}") from None
        if b"-----BEGIN" not in data or marker not in data:
            raise ValueError(f"{flag}: {path} is not a PEM {marker.decode().lower()}")
