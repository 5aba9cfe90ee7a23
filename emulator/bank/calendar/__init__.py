"""Calendar."""
