"""OpenAPI 3.1 documents of what the emulator serves, generated from the code.

- ``model.py``: what one operation says (its body, parameters and responses as Python types,
  hand-written component names or raw JSON Schema) and the interface it belongs to.
- ``gateway.py``, ``bank.py``, ``oauth.py``, ``control.py``: one table per interface, one entry
  per served method and path; ``*_shapes.py``: structs that describe bodies the code builds as
  plain dicts (documentation only).
- ``errors.py``: each interface's error dialect as JSON Schema.
- ``document.py``: joins the tables with the app's routes and ``msgspec.json.schema_components``
  of every type into one document per interface and one for all.
- ``render.py``: the reference page (``/_emulator/docs``), HTML made from a document.

Nothing here imports the app: ``emulator.sandbox.docs.routes`` hands the served routes in.
"""
