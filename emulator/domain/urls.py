"""Where the emulator may send webhooks and callbacks: one rule for every URL a caller gives
(gateway webhooks and ``success_callback``, bank callback registrations, a test callback's
``overrideUrl``). Pure: the hosts allowed plain HTTP come from the settings."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from ipaddress import ip_address
from typing import Literal
from urllib.parse import unquote, urlsplit

LOOPBACK_NAMES = frozenset({"localhost"})
CONTROL_PREFIX = "/_emulator"
# The built-in sink is a legitimate receiver (tests and docs send webhooks to it).
_SINK = re.compile(r"/_emulator/sink/[A-Za-z0-9][A-Za-z0-9_.-]{0,63}/?\Z")

Problem = Literal["invalid", "not_https", "control_plane"]

MESSAGES: dict[Problem, str] = {
    "invalid": "Enter a valid URL.",
    "not_https": "The callback URL must use HTTPS (or be on loopback or a host of"
    " --callback-hosts).",
    "control_plane": "The URL may not point at the emulator's control plane (/_emulator/);"
    " only its sink /_emulator/sink/NAME is allowed.",
}


def host_and_port(entry: str) -> tuple[str, int | None]:
    """A ``--callback-hosts`` entry as (host, port): ``app`` (any port), ``app:8000``,
    ``10.0.0.5:8000``, ``[::1]:8000``; an IPv6 address without brackets has no port. A port
    that is no number from 1 to 65535 is a ValueError."""
    entry = entry.strip().lower()
    if entry.startswith("["):
        host, _, rest = entry[1:].partition("]")
        if not rest:
            return host, None
        if not rest.startswith(":"):
            raise ValueError(f"{entry!r} is not a host or host:port")
        port = rest[1:]
    elif entry.count(":") == 1:
        host, port = entry.split(":")
    else:
        return entry, None
    if not port.isascii() or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{entry!r}: the port must be a number from 1 to 65535")
    return host, int(port)


@dataclass(frozen=True)
class UrlRule:
    """``plain_hosts``: hosts reached over plain HTTP on any port besides loopback (``*``:
    any host); ``plain_ports``: (host, port) pairs reached on that port only."""

    plain_hosts: frozenset[str] = frozenset()
    plain_ports: frozenset[tuple[str, int]] = frozenset()

    @classmethod
    def of(cls, hosts: tuple[str, ...] | list[str]) -> UrlRule:
        entries = [host_and_port(h) for h in hosts if h.strip()]
        return cls(
            frozenset(host for host, port in entries if port is None),
            frozenset((host, port) for host, port in entries if port is not None),
        )

    def plain_allowed(self, host: str, port: int = 80) -> bool:
        """Whether plain HTTP may reach ``host`` on ``port`` (80 when the URL names none)."""
        host = host.lower()
        return (
            "*" in self.plain_hosts
            or is_loopback(host)
            or host in self.plain_hosts
            or (host, port) in self.plain_ports
        )


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


def control_path(path: str) -> bool:
    """Whether ``path``, however spelled (case, percent-encoding, ``//``, dot segments,
    backslashes), names the control plane, other than a sink."""
    for _ in range(5):  # %252e... decodes a layer at a time
        decoded = unquote(path)
        if decoded == path:
            break
        path = decoded
    path = path.replace("\\", "/")
    normal = posixpath.normpath("/" + path.lstrip("/")).lower()
    if normal != CONTROL_PREFIX and not normal.startswith(CONTROL_PREFIX + "/"):
        return False
    return not _SINK.match(normal)


def problem(url: str, rule: UrlRule) -> Problem | None:
    """Why ``url`` cannot be a receiver's, or None: an absolute http(s) URL with a host, no
    whitespace or control characters; HTTPS, or plain HTTP to a host the rule allows; not
    the emulator's control plane."""
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        return "invalid"  # it could never be sent
    try:
        parts = urlsplit(url)
        host, scheme = parts.hostname, parts.scheme.lower()
        if parts.port == 0:
            raise ValueError("port 0")
    except ValueError:
        return "invalid"
    if not host or scheme not in ("http", "https"):
        return "invalid"
    if control_path(parts.path):
        return "control_plane"
    if scheme == "http" and not rule.plain_allowed(host, parts.port or 80):
        return "not_https"
    return None
