"""Serving: the settings and options of ``serve``, its start-up checks, TLS, logs, the
composition root (``runtime``) and the ASGI app built on it (``app``)."""
