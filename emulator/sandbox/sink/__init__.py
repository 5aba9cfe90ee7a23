"""Sink."""
