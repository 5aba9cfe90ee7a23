"""The bank collections interface: /v2/."""
