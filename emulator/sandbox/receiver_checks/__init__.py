"""Receiver checks."""
