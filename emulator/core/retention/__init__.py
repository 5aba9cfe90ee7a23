"""Retention."""
