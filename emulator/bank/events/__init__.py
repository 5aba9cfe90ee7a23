"""Events."""
