"""``python -m tools.image_wheels BASE``: put in ``build/wheels/`` what the image installs, with
no network inside its build: the emulator's wheel and, for the base's own Python, glibc and
machine, every package of ``uv.lock`` that applies there, at the lock's versions and hashes
(``build/wheels/requirements.txt``, installed with ``pip --require-hashes``).

The base is asked for its Python and glibc (one ``docker run`` of ``python3``), so that
``make image BASE=...`` needs no other variable; ``--python 3.x`` (``IMAGE_PYTHON``) answers for
a base that cannot be run here. Whatever stops it is said in one line, exit status 2."""

from __future__ import annotations

import argparse
import platform
import re
import subprocess
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.markers import Marker
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from tools import requirements

ROOT = Path(__file__).resolve().parent.parent
WHEELS = ROOT / "build" / "wheels"
REQUIREMENTS = "requirements.txt"
# The oldest glibc the platforms are given for when the base's is not known (--python).
DEFAULT_GLIBC = (2, 28)
PROBE = "import platform; print(platform.python_version(), *platform.libc_ver())"


class Refused(Exception):
    """What stops the wheels from being made: said in one line."""


@dataclass(frozen=True)
class Target:
    """The interpreter the image runs the emulator on."""

    python: str  # "3.11.2"
    machine: str  # uname -m: x86_64, aarch64
    glibc: tuple[int, int]

    @property
    def short(self) -> str:
        """The Python as pip's --python-version takes it: "3.11"."""
        return ".".join(self.python.split(".")[:2])

    def environment(self) -> dict[str, str]:
        """PEP 508's marker variables on that interpreter (CPython on Linux)."""
        return {
            "implementation_name": "cpython",
            "implementation_version": self.python,
            "os_name": "posix",
            "platform_machine": self.machine,
            "platform_python_implementation": "CPython",
            "platform_release": "",
            "platform_system": "Linux",
            "platform_version": "",
            "python_full_version": self.python,
            "python_version": self.short,
            "sys_platform": "linux",
        }

    def platforms(self) -> list[str]:
        """pip's --platform tags: every manylinux the base's glibc runs (pip takes each alone)."""
        major, minor = self.glibc
        tags = [f"manylinux_{major}_{m}_{self.machine}" for m in range(minor, 16, -1)]
        return [*tags, f"manylinux2014_{self.machine}"]


def parse_python(text: str, where: str) -> str:
    """A Python version as X.Y or X.Y.Z, else refused naming where it came from."""
    try:
        version = Version(text.strip())
    except InvalidVersion:
        raise Refused(f"{where}: {text.strip()!r} is not a Python version such as 3.12") from None
    parts = [*version.release, 0, 0][:3]
    return ".".join(str(p) for p in parts)


def ask_base(base: str, machine: str) -> Target:
    """The base's Python and glibc, from one run of its python3 (no network)."""
    argv = ["docker", "run", "--rm", "--pull", "never", "--network", "none",
            "--entrypoint", "python3", base]  # fmt: skip
    try:
        done = subprocess.run(
            [*argv, "-c", PROBE], capture_output=True, text=True, timeout=120, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        why = "docker is not installed" if isinstance(exc, OSError) else "no answer in 120 s"
        raise Refused(f"cannot run python3 in BASE={base} ({why}): pass IMAGE_PYTHON=3.x") from None
    words = done.stdout.split()
    if done.returncode != 0 or not words:
        said = [x.strip() for x in done.stderr.splitlines() if x.strip()] or ["no output"]
        why = said[0].removeprefix("docker: ").rstrip(".")
        raise Refused(
            f"cannot run python3 in BASE={base} ({why}): give the base's Python as IMAGE_PYTHON=3.x"
        )
    python = parse_python(words[0], f"BASE={base}'s python3")
    if len(words) < 3 or words[1] != "glibc":
        raise Refused(f"BASE={base} has no glibc (the image needs a glibc base, such as Debian's)")
    found = re.match(r"(\d+)\.(\d+)", words[2])
    glibc = (int(found.group(1)), int(found.group(2))) if found else DEFAULT_GLIBC
    return Target(python, machine, glibc)


def requires_python() -> SpecifierSet:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return SpecifierSet(project["requires-python"])


def locked_requirements(exported: str, target: Target) -> list[str]:
    """``uv export``'s requirements (with markers and hashes) that apply on the target, each one
    line without its marker: ``name==version --hash=sha256:... ...``."""
    environment = target.environment()
    out: list[str] = []
    for found in requirements.read(exported):
        if found.marker and not Marker(found.marker).evaluate(environment):
            continue
        if not found.hashes:
            raise Refused(f"the lock gives no hash for {found.spec}: run `make lock`")
        out.append(" ".join([found.spec, *(f"--hash={h}" for h in found.hashes)]))
    return out


def run(argv: Sequence[str], what: str) -> None:
    done = subprocess.run(list(argv), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = [x for x in done.stderr.strip().splitlines() if not x.startswith("WARNING")]
        raise Refused(f"{what}: {(lines or ['failed'])[-1].strip()}")


def make_wheels(target: Target, uv: str, pip: str) -> Path:
    """build/wheels/: the emulator's wheel, its dependencies' wheels and requirements.txt."""
    needed = requires_python()
    if Version(target.python) not in needed:
        raise Refused(f"the base's Python is {target.python}; the emulator needs {needed}")
    exported = subprocess.run(
        [uv, "export", "--frozen", "--no-emit-project", "--format", "requirements-txt",
         "--quiet", "--no-header"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if exported.returncode != 0:
        said = exported.stderr.strip().splitlines() or ["failed"]
        raise Refused(f"uv export: {said[-1].strip()}")
    lines = locked_requirements(exported.stdout, target)
    if WHEELS.exists():
        for old in WHEELS.iterdir():
            old.unlink()
    WHEELS.mkdir(parents=True, exist_ok=True)
    listed = WHEELS / REQUIREMENTS
    listed.write_text("".join(f"{line}\n" for line in lines))
    run(
        [uv, "build", "--wheel", "--quiet", "--out-dir", str(WHEELS), "--require-build-hashes",
         str(ROOT)],
        "uv build",
    )  # fmt: skip
    platforms = [arg for tag in target.platforms() for arg in ("--platform", tag)]
    glibc = ".".join(map(str, target.glibc))
    run(
        [pip, "download", "--quiet", "--no-deps", "--only-binary=:all:", "--require-hashes",
         "--python-version", target.short, *platforms, "--dest", str(WHEELS), "-r", str(listed)],
        f"the wheels for Python {target.short} on {target.machine} (glibc {glibc})",
    )  # fmt: skip
    return listed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.image_wheels", description=__doc__)
    parser.add_argument("base", help="the image's base (BASE)")
    parser.add_argument("--python", default="", help="the base's Python (IMAGE_PYTHON)")
    parser.add_argument("--machine", default=platform.machine(), help="uname -m of the image")
    parser.add_argument("--uv", required=True, help="the uv to export the lock and build with")
    parser.add_argument("--pip", required=True, help="the pip to download the wheels with")
    args = parser.parse_args(argv)
    try:
        if args.python:
            python = parse_python(args.python, "IMAGE_PYTHON")
            target = Target(python, args.machine, DEFAULT_GLIBC)
        else:
            target = ask_base(args.base, args.machine)
        listed = make_wheels(target, args.uv, args.pip)
    except Refused as exc:
        print(f"make image: {exc}", file=sys.stderr)
        return 2
    count = len(listed.read_text().splitlines())
    print(f"build/wheels: the emulator and {count} locked packages for Python {target.python}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
