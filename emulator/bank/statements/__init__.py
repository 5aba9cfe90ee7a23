"""Statements."""
