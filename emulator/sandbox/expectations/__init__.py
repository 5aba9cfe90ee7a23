"""Expectations."""
