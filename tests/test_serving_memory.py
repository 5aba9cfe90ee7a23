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
