-- The floor's tables (SqlFloor): fencekit's data, an order's snapshot, its claim and its settled
-- token, with the primary keys only: no checks, no index a listing needs, no migration record.
CREATE TABLE IF NOT EXISTS floor_orders (
  session_id        text    NOT NULL PRIMARY KEY,
  product_id        text    NOT NULL,
  quantity          integer NOT NULL,
  customer_email    text,
  amount_total      bigint  NOT NULL,
  currency          text    NOT NULL,
  status            text    NOT NULL,
  provider_order_id text,
  item_payload      text,
  fence             bigint  NOT NULL,
  claim_nonce       text,
  lease_expires_at  bigint,
  settled_fence     bigint,
  settled_nonce     text,
  updated_at        bigint  NOT NULL
);
CREATE TABLE IF NOT EXISTS floor_orphans (
  session_id        text    NOT NULL,
  claim_fence       bigint  NOT NULL,
  claim_nonce       text    NOT NULL,
  provider_order_id text    NOT NULL,
  item_payload      text,
  recorded_at       bigint  NOT NULL,
  PRIMARY KEY (session_id, claim_fence, claim_nonce, provider_order_id)
);
