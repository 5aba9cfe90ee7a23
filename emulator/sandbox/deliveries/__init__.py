"""Deliveries."""
