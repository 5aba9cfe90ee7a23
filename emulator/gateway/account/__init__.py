"""Account."""
