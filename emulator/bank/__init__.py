"""Bank."""
