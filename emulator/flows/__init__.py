"""Flows: a whole payment story in one YAML file (calls, the other side's moves, time,
expectations), parsed, checked and run over HTTP (``docs/flows.md``)."""
