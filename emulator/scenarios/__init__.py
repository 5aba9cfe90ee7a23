"""Scenarios: scripted misbehaviour. ``points`` (the registry), ``rules`` (the file format),
``engine`` (activation and ``decide``)."""
