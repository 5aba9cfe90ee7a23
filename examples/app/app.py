"""A small application beside the emulator (examples/docker-compose.yml): it receives the
emulator's webhooks and calls its API, with Python's standard library only.

It listens on APP_PORT, registers a webhook to APP_URL/webhooks, creates a purchase with the
default merchant's key, and exits 0 once the purchase.created webhook of that purchase has
arrived (1 after 30 s without it). EMULATOR_URL: where the emulator is."""

import json
import os
import sys
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EMULATOR = os.environ.get("EMULATOR_URL", "http://127.0.0.1:8400")
APP_URL = os.environ.get("APP_URL", "http://127.0.0.1:8000")
PORT = int(os.environ.get("APP_PORT", "8000"))
KEY = "sk_test_emulator_default_key"  # the default merchant's
BRAND = "4b0d6e2a-1c3f-4a5b-8d7e-9f0a1b2c3d4e"

received = []
arrived = threading.Condition()


class Webhooks(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with arrived:
            received.append(body)
            arrived.notify_all()
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def call(method, path, body):
    request = urllib.request.Request(
        EMULATOR + path,
        data=json.dumps(body).encode(),
        method=method,
        headers={"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def main():
    server = ThreadingHTTPServer(("0.0.0.0", PORT), Webhooks)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    hook = {"title": "app", "events": ["purchase.created"], "callback": f"{APP_URL}/webhooks"}
    call("POST", "/api/v1/webhooks/", hook)
    purchase = call(
        "POST",
        "/api/v1/purchases/",
        {
            "brand_id": BRAND,
            "client": {"email": "payer@example.com"},
            "purchase": {"products": [{"name": "Widget", "price": 1000}]},
        },
    )
    print(f"app: created purchase {purchase['id']}", flush=True)
    with arrived:
        ok = arrived.wait_for(lambda: any(b.get("id") == purchase["id"] for b in received), 30)
    if not ok:
        print("app: no webhook within 30 s", file=sys.stderr)
        return 1
    print(f"app: received purchase.created for {purchase['id']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
