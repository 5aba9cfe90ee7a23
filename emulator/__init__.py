"""High-fidelity sandbox emulator of a card gateway (/api/v1) and a bank collections API (/v2)."""

__version__ = "0.1.0"

# The file roles of a slice (``emulator/gateway/purchases/``): a slice's module is ``ROLE.py``,
# or ``ROLE_PART.py`` where one file of the role would pass 400 lines (docs/architecture.md).
ROLES = ("routes", "service", "jobs", "router", "repo", "rules", "model", "input")
