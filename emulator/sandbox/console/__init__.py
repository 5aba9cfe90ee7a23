"""Console."""
