"""Mandates."""
