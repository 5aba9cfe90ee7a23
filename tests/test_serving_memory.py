"""A served emulator hands freed memory back to the system (``emulator.serving.memory``):
what glibc's allocator keeps below the top of its heap leaves the process's RSS."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = [
    pytest.mark.slow,  # a process of its own: its memory, not the test runner's
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc and /proc"),
]

PROBE = """
import json
from emulator.serving import memory

def anon_mib():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024

# 60 MiB of 4 KiB buffers (malloc'd, not the interpreter's small-object arenas); every 64th
# kept, so the heap's top stays in use and nothing can be returned by shrinking it.
buffers = [bytes(4096) for _ in range(15_000)]
kept = buffers[::64]
del buffers
before = anon_mib()
trimmed = memory.trim()
print(json.dumps({"trimmed": trimmed, "before": before, "after": anon_mib(), "kept": len(kept)}))
"""


def test_trim_returns_what_was_freed_below_the_top_of_the_heap() -> None:
    ran = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=False
    )
    assert ran.returncode == 0, ran.stderr
    probe = json.loads(ran.stdout)
    if not probe["trimmed"]:
        pytest.skip("not glibc: nothing to trim with")
    assert probe["before"] - probe["after"] >= 30  # of the 60 MiB freed


LARGE = """
import json, sys
from emulator.serving import memory

def anon_mib():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024

tuned = sys.argv[1] == "tuned" and memory.tune_allocator()
del bytearray(2 << 20)[:]  # one large answer come and gone (glibc raises its bar to 2 MiB)
blocks = [bytearray(1 << 20) for _ in range(40)]  # the next large answers, 1 MiB each
for block in blocks:
    block[::4096] = b"x" * len(block[::4096])  # touched: resident
kept = blocks.pop()  # the last stays: the heap cannot shrink from its top
before = anon_mib()
del blocks
print(json.dumps({"tuned": tuned, "freed": before - anon_mib(), "kept": len(kept)}))
"""


def _large(mode: str) -> dict[str, float]:
    ran = subprocess.run(
        [sys.executable, "-c", LARGE, mode], capture_output=True, text=True, timeout=60, check=False
    )
    assert ran.returncode == 0, ran.stderr
    probe: dict[str, float] = json.loads(ran.stdout)
    return probe


def test_large_blocks_freed_leave_at_once_once_the_allocator_is_tuned() -> None:
    tuned = _large("tuned")
    if not tuned["tuned"]:
        pytest.skip("not glibc: no threshold to fix")
    assert tuned["freed"] >= 30  # of the 39 MiB freed, without a trim
    assert _large("default")["freed"] < 10  # glibc's own bar: they stay in the heap
