"""Actors."""
