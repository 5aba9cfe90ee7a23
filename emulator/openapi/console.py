"""The control plane's QA console page and the reads it adds (objects, re-send)."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from emulator.openapi.console_shapes import Found, ObjectDetail, ObjectList, Resent
from emulator.openapi.control import LIMIT, op
from emulator.openapi.model import Operation, Param

FILTER = Annotated[str, Meta(max_length=128)]
SORT = Literal["newest", "oldest", "status", "id"]
OFFSET = Annotated[int, Meta(ge=0, le=10**9)]

OPERATIONS: list[Operation] = [
    op("console", "GET", "/", "The QA console (a web page)", "Console", str,
       media="text/html", secured=False,
       description="The page itself holds no data and needs no token; when the server wants"
       " the admin token, the page asks for it once and keeps it in a cookie"
       " (`emulator_admin_token`), which the control plane accepts like the Bearer header."),
    op("objects_list", "GET", "/merchants/{company_id}/objects/{kind}",
       "A merchant's objects of one kind, newest first", "Console", ObjectList,
       description="Kinds: purchases, clients, payouts, billing_templates,"
       " billing_subscribers, mandates, collections, payments.",
       query=(Param("status", FILTER, "Only objects with this status"),
              Param("id", FILTER, "Only objects whose id contains this (any case)"),
              Param("q", FILTER, "Search: this in the id, an e-mail, `reference`,"
                    " `externalReference` or title (any case), or an amount equal to it"
                    " (`19.99`, or `1999` as cents or rands)"),
              Param("sort", SORT, "newest (the default), oldest, status or id"),
              Param("offset", OFFSET, "Skip this many (paging; default 0)"), LIMIT),
       errors={400: "A bad `limit`, `offset`, `sort`, `status`, `id` or `q` (`invalid`).",
               404: "No such merchant (`merchant_not_found`), or kind (`not_found`)."}),
    op("objects_find", "GET", "/objects/{id}",
       "One object of whatever kind has this id (Find by id: one request)", "Console",
       ObjectDetail, errors={404: "Nothing has this id (`not_found`)."}),
    op("objects_find_search", "GET", "/find",
       "Find by id as a search: the object of whatever kind has this id, or null", "Console",
       Found, description="What the console's Find by id asks: a miss answers 200 with"
       " `object` null, so a page that searches logs no error.",
       query=(Param("id", FILTER, "The id (any case)", required=True),)),
    op("objects_read", "GET", "/objects/{kind}/{id}",
       "One object with its status history, events, deliveries and jobs", "Console",
       ObjectDetail, errors={404: "No such kind or object (`not_found`)."}),
    op("deliveries_resend", "POST", "/deliveries/{id}/resend",
       "Send again what a delivery attempt sent, now, as a new message", "Deliveries",
       Resent, status=201, errors={404: "No such delivery attempt (`not_found`)."}),
]  # fmt: skip
