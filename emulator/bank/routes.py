"""The bank interface's routes: one table."""

from __future__ import annotations

from starlette.routing import Route

from emulator.bank.callbacks import routes as callbacks
from emulator.bank.collections import routes as collections
from emulator.bank.events import routes as events
from emulator.bank.mandates import routes as mandates
from emulator.bank.payments import routes as payments
from emulator.bank.payments import routes_bulk as bulk
from emulator.bank.profiles import routes as profiles
from emulator.bank.statements import routes as statements

# Both spellings of merchantprofile are real paths of the provider; neither redirects.
ROUTES = [
    Route("/merchantprofile", profiles.list_, methods=["GET"]),
    Route("/merchantprofile/", profiles.list_, methods=["GET"]),
    Route("/collection/eft", collections.create_eft, methods=["POST"]),
    Route("/collection/eft/from_mandate", collections.eft_from_mandate, methods=["POST"]),
    Route(
        "/collection/debicheck/from_mandate", collections.debicheck_from_mandate, methods=["POST"]
    ),
    Route(
        "/collection/debicheck/{collectionId}/recreate_as_eft",
        collections.recreate_as_eft,
        methods=["POST"],
    ),
    Route("/collection/debicheck", collections.list_debicheck, methods=["GET"]),
    Route("/collection/{type}/{id}/status", collections.status, methods=["GET"]),
    Route("/mandate/eft", mandates.create_eft, methods=["POST"]),
    Route("/mandate/eft", mandates.list_eft, methods=["GET"]),
    Route("/mandate/debicheck", mandates.create_debicheck, methods=["POST"]),
    Route("/mandate/debicheck/{mandateId}/reset", mandates.reset, methods=["POST"]),
    Route("/mandate/{type}/{id}/status", mandates.status, methods=["GET"]),
    Route("/payment/eft", payments.create, methods=["POST"]),
    Route("/payment/eft/{id}/status", payments.status, methods=["GET"]),
    Route("/accountverification/validate", payments.validate_account, methods=["POST"]),
    Route("/event/mandate", events.mandates, methods=["GET"]),
    Route("/event/collection", events.collections, methods=["GET"]),
    Route("/event/payment", events.payments, methods=["GET"]),
    Route("/clientcallbackurl/", callbacks.register, methods=["POST"]),
    Route("/callback/collection/eft/{collectionId}/", callbacks.trigger, methods=["POST"]),
    Route("/callback/test/collection/eft/{collectionId}/", callbacks.test, methods=["POST"]),
    Route("/bankaccountstatement/{bankAccountNumber}/{id}", statements.get, methods=["GET"]),
    Route("/payment/eft/upload/csv", bulk.upload, methods=["POST"]),
    Route("/collection/eft/download/csv/{bulkUploadId}", bulk.download, methods=["GET"]),
]
