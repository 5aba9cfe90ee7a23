"""Billing."""
