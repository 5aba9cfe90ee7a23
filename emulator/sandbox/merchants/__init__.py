"""Merchants."""
