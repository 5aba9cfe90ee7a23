"""Sandbox."""
