"""docs/expectations.md's pytest example is a passing test, as written (issue 26)."""

from __future__ import annotations

import pytest

from tests.test_docs import python_blocks


@pytest.mark.slow  # runs pytest in a process of its own
def test_the_pytest_example_of_expectations_passes(pytester, monkeypatch):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_expectations=python_blocks("expectations.md")[0])
    result = pytester.runpytest_subprocess(
        "-p", "emulator.testing.pytest_plugin", "-p", "no:cacheprovider", timeout=60
    )
    result.assert_outcomes(passed=1)
