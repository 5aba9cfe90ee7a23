"""Requirement files as uv writes them (``uv export``, ``uv pip compile``): one requirement a
line, continued with ``\\`` onto its ``--hash=`` lines, ``# via`` comments between them."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Requirement:
    spec: str  # "name==version"
    marker: str  # PEP 508, "" where it applies everywhere
    hashes: tuple[str, ...]  # "sha256:..."

    @property
    def name(self) -> str:
        return self.spec.split("==", 1)[0].strip()

    @property
    def version(self) -> str:
        return self.spec.split("==", 1)[1].strip() if "==" in self.spec else ""


def read(text: str) -> list[Requirement]:
    """Each requirement of the file, with its marker and hashes (options and comments left)."""
    found: list[Requirement] = []
    for line in re.sub(r"\\\n", " ", text).splitlines():
        words = line.split("#", 1)[0].split()  # no hash holds a "#"
        if not words or words[0].startswith("-"):
            continue
        hashes = tuple(w.removeprefix("--hash=") for w in words if w.startswith("--hash="))
        spec, _, marker = " ".join(w for w in words if not w.startswith("--hash=")).partition(";")
        found.append(Requirement(spec.strip(), marker.strip(), hashes))
    return found
