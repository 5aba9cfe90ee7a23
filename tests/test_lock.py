"""The locked installs (issue 41): uv.lock, the build backend's pins in pyproject.toml, uv's own
pin, the image's requirements for its base's Python, and what `make test-latest` reports."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from tools import build_lock, latest
from tools.image_wheels import Refused, Target, locked_requirements, parse_python

ROOT = Path(__file__).resolve().parent.parent


def lock_versions() -> dict[str, str]:
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    return {p["name"]: p["version"] for p in lock["package"] if "version" in p}


def test_the_build_backend_is_locked_at_the_locks_versions_with_hashes() -> None:
    """`make lock` writes them; the build with --require-build-hashes accepts nothing else."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    pins = pyproject["tool"]["uv"]["build-constraint-dependencies"]
    names = {re.split(r"==", p["requirement"])[0]: p for p in pins}
    assert {"hatchling", "editables"} <= set(names)
    locked = lock_versions()
    for name, pin in names.items():
        version = pin["requirement"].split("==")[1].split(";")[0].strip()
        assert pin["hashes"] and all(h.startswith("sha256:") for h in pin["hashes"]), name
        if name in locked:  # hatchling and its dependencies are in the dev extra too
            assert locked[name] == version, f"{name}: run `make lock`"


def test_uv_itself_is_one_version_with_its_hashes() -> None:
    text = (ROOT / "requirements" / "uv.txt").read_text()
    assert len(re.findall(r"^uv==\S+", text, re.M)) == 1
    assert len(re.findall(r"--hash=sha256:[0-9a-f]{64}", text)) >= 2


def test_every_locked_package_is_pinned_by_hash() -> None:
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    for package in lock["package"]:
        if package.get("source", {}).get("registry"):
            files = [
                *package.get("wheels", []),
                *([package["sdist"]] if "sdist" in package else []),
            ]
            assert files and all(f["hash"].startswith("sha256:") for f in files), package["name"]


EXPORT = """\
anyio==4.16.0 \\
    --hash=sha256:aaaa \\
    --hash=sha256:bbbb
    # via httpx
exceptiongroup==1.3.0 ; python_full_version < '3.11' \\
    --hash=sha256:cccc
tomli==2.2.1 ; python_full_version < '3.12' \\
    --hash=sha256:dddd
colorama==0.4.6 ; sys_platform == 'win32' \\
    --hash=sha256:eeee
uvloop==0.23.0 ; platform_python_implementation != 'PyPy' and sys_platform != 'win32' \\
    --hash=sha256:ffff
"""


def test_the_images_requirements_are_those_of_its_python() -> None:
    """Markers are read for the base's interpreter, not for the one that runs make."""
    on_311 = locked_requirements(EXPORT, Target("3.11.2", "x86_64", (2, 36)))
    assert on_311 == [
        "anyio==4.16.0 --hash=sha256:aaaa --hash=sha256:bbbb",
        "tomli==2.2.1 --hash=sha256:dddd",
        "uvloop==0.23.0 --hash=sha256:ffff",
    ]
    on_312 = locked_requirements(EXPORT, Target("3.12.8", "aarch64", (2, 36)))
    assert [r.split()[0] for r in on_312] == ["anyio==4.16.0", "uvloop==0.23.0"]


def test_a_requirement_without_a_hash_is_refused() -> None:
    with pytest.raises(Refused, match=r"no hash for six==1\.17\.0"):
        locked_requirements("six==1.17.0\n", Target("3.11.2", "x86_64", (2, 36)))


def test_the_wheels_are_those_the_bases_glibc_runs() -> None:
    tags = Target("3.11.2", "x86_64", (2, 36)).platforms()
    assert tags[0] == "manylinux_2_36_x86_64" and "manylinux_2_17_x86_64" in tags
    assert "manylinux_2_16_x86_64" not in tags and tags[-1] == "manylinux2014_x86_64"


@pytest.mark.parametrize(
    ("text", "version"), [("3.11", "3.11.0"), ("3.12.8", "3.12.8"), (" 3.13.1\n", "3.13.1")]
)
def test_a_python_version(text: str, version: str) -> None:
    assert parse_python(text, "IMAGE_PYTHON") == version


def test_a_python_version_that_is_not_one_is_refused_naming_where() -> None:
    with pytest.raises(Refused, match=r"^IMAGE_PYTHON: 'three' is not a Python version"):
        parse_python("three", "IMAGE_PYTHON")


COMPILED = """\
hatchling==1.33.0 \\
    --hash=sha256:1111 \\
    --hash=sha256:2222
packaging==26.4 \\
    --hash=sha256:3333
    # via hatchling
"""


def test_the_build_lock_is_written_between_its_markers() -> None:
    before = f"[tool.uv]\n{build_lock.BEGIN}\n    {{ requirement = 'old==1' }},\n{build_lock.END}\n"
    after = build_lock.rewrite(f"[project]\nname = 'x'\n\n{before}\n[tool.x]\ny = 1\n", COMPILED)
    parsed = tomllib.loads(after)
    assert parsed["tool"]["uv"]["build-constraint-dependencies"] == [
        {"requirement": "hatchling==1.33.0", "hashes": ["sha256:1111", "sha256:2222"]},
        {"requirement": "packaging==26.4", "hashes": ["sha256:3333"]},
    ]
    assert parsed["tool"]["x"] == {"y": 1} and parsed["project"] == {"name": "x"}
    assert build_lock.pins(parsed) == ["hatchling==1.33.0", "packaging==26.4"]
    assert build_lock.inputs(tomllib.loads((ROOT / "pyproject.toml").read_text()))[-1] == (
        "editables"
    )


def test_test_latest_reports_what_moved_from_the_lock() -> None:
    locked = latest.locked_versions("msgspec==0.22.0 ; python_version >= '3.9' \\\n# via x\n")
    lines = latest.report(locked, {"msgspec": "0.23.0", "new-one": "1.0", "payments-emulator": "0"})
    assert lines[0] == "2 packages installed, 1 at another version than uv.lock's, 1 not in it:"
    assert re.fullmatch(r"  msgspec +0\.22\.0 -> 0\.23\.0", lines[1])
    assert "new-one" in lines[2] and "(not locked)" in lines[2]
