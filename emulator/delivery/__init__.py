"""Outgoing webhooks and callbacks: routers turn outbox events into messages, the engine sends
them over HTTP on the emulator clock and records every attempt (see ``engine``)."""
