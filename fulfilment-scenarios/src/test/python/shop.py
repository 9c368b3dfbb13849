"""A deliberately small Stripe Checkout webhook endpoint, in Python, for testing the black-box
runner (fencekit-scenarios.jar) against an endpoint that is not Java. Not for production.

--mode fenced    correct: claims an order with a lease and a fencing token, settles with the token,
                 sends one Idempotency-Key per order; 409 while another attempt holds the lease,
                 500 after a provider failure (so Stripe retries), 200 fulfilled or duplicate;
                 keeps the order's cart (product, quantity, amount, currency) with its claim and
                 answers 422, buying nothing, a delivery whose cart differs under its session id.
--mode no-token  DELIBERATELY WRONG, as the seed's first handler: claims with a lease but settles
                 without the token, so a stale failure overwrites the provisioned order and makes
                 it claimable again (the incident: a second purchase).
--mode no-key    DELIBERATELY WRONG: fenced, but sends no Idempotency-Key, so a retry after a
                 purchase whose answer was lost buys again.
--mode retry-unknown  correct in another way: fenced, and its provider client retries a call
                 whose outcome is unknown (5xx, dropped) at once, twice at most, with the same
                 Idempotency-Key, as Stripe's own client libraries do; 200 once a retry lands.
--mode one-item  DELIBERATELY WRONG: fenced, but always asks the provider for one item, whatever
                 the session's metadata.quantity says.
--mode default-product  DELIBERATELY WRONG: fenced, but asks for the shop's first product,
                 hard-coded, whatever the session's metadata.product_id says.
--mode no-signature  DELIBERATELY WRONG: fenced, but checks no Stripe-Signature: anyone who can
                 reach it can have an order bought.
--mode cart-blind  DELIBERATELY WRONG: fenced, but keeps no cart with the claim: another cart
                 under an order's session id is a duplicate (200) once the order is bought, and is
                 bought under the order's key while the order is failed.
--mode process-lock  DELIBERATELY WRONG: no lease and no token; attempts on an order are
                 serialised by a lock inside the process (409 while it is held). One process
                 buys once; two on one database buy twice when their attempts cross.

Standard library only (Python 3.11). The signing secret comes from STRIPE_WEBHOOK_SECRET.
  python3 shop.py --mode fenced --port 8080 --lease-seconds 5 \\
      --provider-url http://127.0.0.1:9099 --db /tmp/shop.db
"""
import argparse
import hashlib
import hmac
import json
import os
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAYING = {"paid", "no_payment_required"}
FIRST_PRODUCT = "esim-eu-5gb"


def signature_ok(secret, header, body, tolerance=300):
    parts = [p.split("=", 1) for p in header.split(",") if "=" in p]
    stamps = [v for k, v in parts if k == "t"]
    if len(stamps) != 1 or not stamps[0].isdigit():
        return False
    expected = hmac.new(secret.encode(), stamps[0].encode() + b"." + body, hashlib.sha256)
    good = any(hmac.compare_digest(expected.hexdigest(), v) for k, v in parts if k == "v1")
    return good and abs(time.time() - int(stamps[0])) <= tolerance


CART_FIELDS = ["product_id", "quantity", "amount_total", "currency"]


def cart_of(session):
    """What defines the order: [product_id, quantity, amount_total, currency (lower case)]."""
    metadata = session.get("metadata") or {}
    return [metadata.get("product_id"), int(metadata.get("quantity") or 1),
            session.get("amount_total"), (session.get("currency") or "").lower()]


def differing(stored, offered):
    return [name for name, a, b in zip(CART_FIELDS, stored, offered) if a != b]


class ProviderUnknown(Exception):
    """The provider may have bought: 5xx, dropped connection, timeout."""


class Orders:
    def __init__(self, path, lease):
        self.path, self.lease = path, lease
        with self.db() as db:
            db.execute("CREATE TABLE IF NOT EXISTS orders (session TEXT PRIMARY KEY, status TEXT,"
                       " token INTEGER, lease_until REAL, item TEXT, error TEXT, cart TEXT)")

    def db(self):
        return sqlite3.connect(self.path, timeout=10, isolation_level=None)

    def claim(self, session, cart=None):
        """('claimed', token), ('duplicate', None), ('in_flight', None) or ('mismatch', fields):
        with a cart, one that differs from the stored one changes nothing."""
        db = self.db()
        try:
            db.execute("BEGIN IMMEDIATE")
            row = db.execute("SELECT status, token, lease_until, cart FROM orders"
                             " WHERE session = ?", (session,)).fetchone()
            now = time.time()
            if cart is not None and row and row[3] is not None:
                fields = differing(json.loads(row[3]), cart)
                if fields:
                    db.execute("COMMIT")
                    return "mismatch", fields
            if row and row[0] == "provisioned":
                db.execute("COMMIT")
                return "duplicate", None
            if row and row[0] == "claimed" and row[2] > now:
                db.execute("COMMIT")
                return "in_flight", None
            token = (row[1] if row else 0) + 1
            stored = row[3] if row else (json.dumps(cart) if cart is not None else None)
            db.execute("INSERT OR REPLACE INTO orders VALUES (?, 'claimed', ?, ?, NULL, NULL, ?)",
                       (session, token, now + self.lease, stored))
            db.execute("COMMIT")
            return "claimed", token
        finally:
            db.close()

    def settle(self, session, token, status, item=None, error=None):
        """Writes the outcome; with a token, only while that claim still holds. True if written."""
        sql = "UPDATE orders SET status = ?, item = ?, error = ? WHERE session = ?"
        args = [status, item, error, session]
        if token is not None:
            sql += " AND token = ? AND status = 'claimed'"
            args.append(token)
        with self.db() as db:
            return db.execute(sql, args).rowcount == 1

    def provisioned(self, session):
        with self.db() as db:
            row = db.execute("SELECT status FROM orders WHERE session = ?", (session,)).fetchone()
            return row is not None and row[0] == "provisioned"

    def record(self, session, status, item=None, error=None):
        """process-lock mode: writes the outcome, no claim, no token."""
        with self.db() as db:
            db.execute("INSERT OR REPLACE INTO orders VALUES (?, ?, 0, 0, ?, ?, NULL)",
                       (session, status, item, error))


class Shop(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(min(int(self.headers.get("Content-Length") or 0), 1 << 20))
        checks = self.server.mode != "no-signature"
        if checks and not signature_ok(self.server.secret, self.headers.get("Stripe-Signature", ""),
                                       body):
            return self.answer(400, "bad_signature", "not signed with this endpoint's secret")
        try:
            event = json.loads(body)
            session = event["data"]["object"]
            kind, status = event["type"], session.get("payment_status")
        except (ValueError, KeyError, TypeError):
            return self.answer(400, "bad_event", "not a Stripe event")
        if kind == "checkout.session.async_payment_failed":
            return self.answer(200, "payment_failed", "nothing bought")
        if kind == "checkout.session.completed" and status not in PAYING:
            return self.answer(200, "awaiting_payment", "not paid yet")
        if kind not in ("checkout.session.completed", "checkout.session.async_payment_succeeded"):
            return self.answer(200, "ignored", kind)
        self.fulfil(session)

    def fulfil(self, session):
        if self.server.mode == "process-lock":
            return self.fulfil_locked(session)
        orders, mode, sid = self.server.orders, self.server.mode, session["id"]
        state, token = orders.claim(sid, None if mode == "cart-blind" else cart_of(session))
        if state == "mismatch":
            return self.answer(422, "mismatch", "order %s differs from the stored order in %s:"
                               " nothing bought" % (sid[:64], ", ".join(token)))
        if state != "claimed":
            return self.answer(409 if state == "in_flight" else 200, state, sid)
        fence = None if mode == "no-token" else token
        try:
            item = self.buy(session)
        except (ProviderUnknown, urllib.error.URLError, OSError, ValueError) as error:
            if orders.settle(sid, fence, "failed", error=str(error)[:200]):
                return self.answer(500, "provider_failed", "retry later")
            return self.answer(200, "stale_failure", "another attempt owns the order")
        if orders.settle(sid, fence, "provisioned", item=item):
            return self.answer(200, "fulfilled", item)
        return self.answer(200, "orphaned", item)

    def fulfil_locked(self, session):
        orders, sid = self.server.orders, session["id"]
        with self.server.guard:
            lock = self.server.locks.setdefault(sid, threading.Lock())
        if not lock.acquire(blocking=False):
            return self.answer(409, "in_flight", sid)
        try:
            if orders.provisioned(sid):
                return self.answer(200, "duplicate", sid)
            try:
                item = self.buy(session)
            except (ProviderUnknown, urllib.error.URLError, OSError, ValueError) as error:
                orders.record(sid, "failed", error=str(error)[:200])
                return self.answer(500, "provider_failed", "retry later")
            orders.record(sid, "provisioned", item=item)
            return self.answer(200, "fulfilled", item)
        finally:
            lock.release()

    def buy(self, session):
        """The item bought for the session; raises if the provider refused or may have bought."""
        mode, sid = self.server.mode, session["id"]
        headers = {"Content-Type": "application/json"}
        if mode != "no-key":
            headers["Idempotency-Key"] = "shop-order-" + sid
        metadata = session.get("metadata") or {}
        product = FIRST_PRODUCT if mode == "default-product" else metadata.get("product_id")
        quantity = 1 if mode == "one-item" else int(metadata.get("quantity") or 1)
        data = json.dumps({"order": sid, "product": product, "quantity": quantity}).encode()
        retries = 2 if mode == "retry-unknown" else 0
        for attempt in range(retries + 1):
            request = urllib.request.Request(self.server.provider_url + "/purchases",
                                             method="POST", headers=headers, data=data)
            try:
                with urllib.request.urlopen(request, timeout=self.server.provider_timeout) as got:
                    return json.loads(got.read())["item_id"]
            except urllib.error.HTTPError as error:
                if error.code < 500 or attempt == retries:
                    raise
            except (urllib.error.URLError, OSError) as error:
                if attempt == retries:
                    raise ProviderUnknown(str(error)) from error

    def answer(self, status, outcome, reason):
        data = json.dumps({"outcome": outcome, "reason": reason}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, fmt, *args):
        pass  # quiet: the runner prints what it needs


class ShopServer(ThreadingHTTPServer):
    # The runner plays its scenarios side by side: dozens of connections open at once. With the
    # default listen backlog (5) the kernel dropped some of them, and a delivery got "Connection
    # reset" a second after it was sent (seen in CI); a web server in production listens deeper.
    request_queue_size = 256


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", default="fenced",
                        choices=["fenced", "no-token", "no-key", "retry-unknown", "one-item",
                                 "default-product", "no-signature", "cart-blind", "process-lock"])
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--lease-seconds", type=float, default=5)
    parser.add_argument("--provider-url", default="http://127.0.0.1:9099")
    parser.add_argument("--provider-timeout-seconds", type=float, default=30)
    parser.add_argument("--db", default="shop.db")
    args = parser.parse_args()
    server = ShopServer(("127.0.0.1", args.port), Shop)
    server.secret = os.environ["STRIPE_WEBHOOK_SECRET"]
    server.mode, server.provider_url = args.mode, args.provider_url.rstrip("/")
    server.provider_timeout = args.provider_timeout_seconds
    server.orders = Orders(args.db, args.lease_seconds)
    server.guard, server.locks = threading.Lock(), {}
    print(f"shop ({args.mode}) on 127.0.0.1:{args.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
