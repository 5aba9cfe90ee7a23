"""The card and billing gateway: /api/v1/."""
