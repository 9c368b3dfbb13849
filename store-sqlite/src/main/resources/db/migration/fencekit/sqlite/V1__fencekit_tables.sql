-- The fencekit tables of SqliteOrderStore, created if missing. Run as it stands it creates the
-- default tables; the store puts the configured table names in place of fencekit_orders and
-- fencekit_orphans. Times are epoch milliseconds (UTC). A token (ClaimId) is two columns, its
-- fence and its nonce; the current claim's fence is the order's fence, which claim_fence repeats
-- for files and processes of earlier versions (the statements keep it equal, nothing reads it).
-- Statements end with a semicolon at the end of a line, and no comment contains one.

CREATE TABLE IF NOT EXISTS fencekit_orders (
  session_id        TEXT    NOT NULL PRIMARY KEY,
  product_id        TEXT    NOT NULL,
  quantity          INTEGER NOT NULL CHECK (quantity >= 1),
  customer_email    TEXT,
  amount_total      INTEGER NOT NULL CHECK (amount_total >= 0),
  currency          TEXT    NOT NULL,
  status            TEXT    NOT NULL CHECK (status IN ('PENDING', 'PROVISIONED', 'FAILED')),
  provider_order_id TEXT,
  item_payload      TEXT,
  last_error        TEXT,
  fence             INTEGER NOT NULL CHECK (fence >= 1),
  claim_fence       INTEGER CHECK (claim_fence IS NULL OR claim_fence = fence),
  claim_nonce       TEXT,
  claimed_at        INTEGER,
  lease_expires_at  INTEGER,
  settled_fence     INTEGER,
  settled_nonce     TEXT,
  updated_at        INTEGER NOT NULL
) STRICT;

-- seq keeps the orphans in the order they were recorded (AUTOINCREMENT never reuses a number);
-- the unique key records each purchase once however often its complete is retried.
CREATE TABLE IF NOT EXISTS fencekit_orphans (
  seq               INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id        TEXT    NOT NULL,
  claim_fence       INTEGER NOT NULL,
  claim_nonce       TEXT    NOT NULL,
  provider_order_id TEXT    NOT NULL,
  item_payload      TEXT,
  recorded_at       INTEGER NOT NULL,
  UNIQUE (session_id, claim_fence, claim_nonce, provider_order_id)
) STRICT;
