"""Payouts."""
