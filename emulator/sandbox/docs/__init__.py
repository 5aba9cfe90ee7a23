"""Docs."""
