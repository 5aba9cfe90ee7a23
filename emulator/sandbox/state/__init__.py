"""State."""
