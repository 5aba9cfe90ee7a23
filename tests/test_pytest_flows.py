"""Flow files as pytest items (``--emulator-flows PATH``, the ``emulator_flows`` ini option)
and ``emulator.testing.run_flow``, through pytester against this module's live emulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.testing import EmulatorServer
from tests.test_pytest_plugin import INI, run

pytestmark = [pytest.mark.slow]  # each inner run is a process of its own

SHIPPED = (Path(__file__).parents[1] / "flows" / "payout-settles-after-three-days.yaml").read_text()
FAILING = """name: failing
steps:
  - call: {api: gateway, method: POST, path: /api/v1/clients/, body: {email: c@example.com}}
  - expect: [{request: {path: /api/v1/clients/}, count: 2}]
"""


@pytest.fixture
def library(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    folder = pytester.mkdir("flows")
    (folder / "payout.yaml").write_text(SHIPPED)
    (folder / "failing.yaml").write_text(FAILING)
    (folder / "broken.yaml").write_text("name: broken\nsteps:\n  - advance: 3x\n")
    (folder / "notes.txt").write_text("not a flow")
    return folder


def test_the_ini_option_collects_each_flow_as_a_test(
    pytester: pytest.Pytester, library: Path, server: EmulatorServer
):
    pytester.makeini(INI + "emulator_flows = flows\ntestpaths = tests\n")
    tests = pytester.mkdir("tests")
    (tests / "test_story.py").write_text(
        "import pytest\n"
        "from emulator.testing import run_flow\n\n"
        "def test_run_flow(emulator_client):\n"
        "    report = run_flow('flows/payout.yaml', client=emulator_client)\n"
        "    assert report.state == 'passed' and len(report.steps) == 5\n\n"
        "def test_run_flow_raises_with_the_report(emulator_client):\n"
        f"    with pytest.raises(AssertionError, match=r'steps\\[1\\] \\(expect\\) failed'):\n"
        f"        run_flow({FAILING!r}, client=emulator_client)\n"
    )
    result = run(pytester, "--emulator-url", server.url, "-rA", "--continue-on-collection-errors")
    result.assert_outcomes(passed=3, failed=1, errors=1)
    text = result.stdout.str()
    assert "PASSED flows/payout.yaml::payout-settles-after-three-days" in text
    assert "FAILED flows/failing.yaml::failing" in text
    assert "  - expected exactly 2 request to /api/v1/clients/, saw 1:" in text
    assert 'broken.yaml: line 3, column 14: steps[0].advance: "3x" is not a duration' in text


def test_the_option_takes_one_file(
    pytester: pytest.Pytester, library: Path, server: EmulatorServer
):
    pytester.makeini(INI)
    pytester.makepyfile("def test_plain():\n    pass\n")
    result = run(pytester, "--emulator-url", server.url, "--emulator-flows", "flows/payout.yaml")
    result.assert_outcomes(passed=2)
