"""Callbacks."""
