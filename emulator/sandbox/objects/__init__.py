"""Objects."""
