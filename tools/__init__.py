"""Tools of the repository, not of the package: ``python -m tools.reference`` writes the
generated reference pages of ``docs/reference/``."""
