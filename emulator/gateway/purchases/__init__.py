"""Purchases."""
