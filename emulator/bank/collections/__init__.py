"""Collections."""
