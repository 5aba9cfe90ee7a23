"""High-fidelity sandbox emulator of a card gateway (/api/v1) and a bank collections API (/v2)."""

__version__ = "0.1.0"
