"""Verification."""
