"""Storage of each resource: synchronous functions over a unit of work's ``Tx``."""
