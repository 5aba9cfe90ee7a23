"""HTTP edges: one Starlette sub-app per interface, each with its auth and error dialect."""
