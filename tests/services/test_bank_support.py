"""What the v2 use cases share (services/bank_support.py): the control plane's settle check."""

from __future__ import annotations

import pytest

from emulator.bank.common.service_checks import check_outcome_code
from emulator.domain.errors import ControlError


@pytest.mark.parametrize(
    ("status", "code", "refused"),
    [
        pytest.param("COMPLETED", None, False, id="completed-needs-no-code"),
        pytest.param("UNPAID", "02", False, id="known-unpaid-code"),
        pytest.param("UNPAID", "zz", True, id="unknown-code"),
    ],
)
def test_a_settle_checks_its_code_against_the_unpaids_schedule(status, code, refused):
    """The control plane's settle of a collection and of a payment share one code check."""
    if not refused:
        check_outcome_code(status, code)
        return
    with pytest.raises(ControlError) as caught:
        check_outcome_code(status, code)
    assert (caught.value.status, caught.value.code) == (400, "invalid")
