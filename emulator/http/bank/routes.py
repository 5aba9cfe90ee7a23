"""The bank interface's routes: one table."""

from __future__ import annotations

from starlette.routing import Route

from emulator.http.bank import profiles

# Both spellings are real paths of the provider; neither redirects to the other.
ROUTES = [
    Route("/merchantprofile", profiles.list_, methods=["GET"]),
    Route("/merchantprofile/", profiles.list_, methods=["GET"]),
]
