"""The client's state files: ``export_state``, ``import_state`` and ``load_state`` (a named
state of the emulator's ``--states`` folder), as ``docs/state.md`` describes them."""

from __future__ import annotations

from typing import Any

import httpx

from emulator.testing.records import EmulatorError, Merchant, json_object, path_segment


class StateMixin:
    """State files of ``EmulatorClient``."""

    http: httpx.Client
    changed_clock: bool

    def export_state(self, merchant: Merchant | str | None = None, *, format: str = "yaml") -> str:
        """The whole state (or ``merchant``'s) as a readable file: YAML, or JSON."""
        params = {"format": format}
        if merchant is not None:
            params["merchant"] = merchant.company_id if isinstance(merchant, Merchant) else merchant
        response = self.http.get("export", params=params)
        if response.is_error:
            raise EmulatorError(response)
        return response.text

    def import_state(self, state: str | bytes | dict[str, Any]) -> dict[str, Any]:
        """Load a state file (its YAML or JSON text, or the document), all or nothing: each
        merchant in it replaces the one with its id."""
        self.changed_clock = True  # a file may set the server clock
        if isinstance(state, dict):
            return json_object(self.http.post("import", json=state))
        raw = state.encode("utf-8") if isinstance(state, str) else state
        headers = {"Content-Type": "application/yaml"}
        return json_object(self.http.post("import", content=raw, headers=headers))

    def load_state(self, name: str) -> dict[str, Any]:
        """Load the named state from the emulator's ``--states`` folder (a provider state)."""
        self.changed_clock = True
        return json_object(self.http.post(f"states/{path_segment(name, 'state name')}"))
