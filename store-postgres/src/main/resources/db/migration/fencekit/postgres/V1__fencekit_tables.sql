-- fencekit: the PostgreSQL schema of PostgresOrderStore (PostgreSQL 12 or later).
--
-- Run it as it is from your own migrations, or build the store with createSchema(true) and it
-- runs this file itself. Every statement is idempotent. If you configure other names, the store
-- replaces fencekit_orders and fencekit_orphans with them (optionally schema-qualified): do the
-- same when you copy this file.
--
-- Times are milliseconds since the epoch (UTC), so a lease round-trips exactly.

-- One row per order. The snapshot columns are written once, by the first claim.
CREATE TABLE IF NOT EXISTS fencekit_orders (
  session_id        text    NOT NULL PRIMARY KEY,
  product_id        text    NOT NULL,
  quantity          integer NOT NULL CHECK (quantity >= 1),
  customer_email    text,
  amount_total      bigint  NOT NULL CHECK (amount_total >= 0),
  currency          text    NOT NULL,
  status            text    NOT NULL CHECK (status IN ('PENDING', 'PROVISIONED', 'FAILED')),
  provider_order_id text,
  item_payload      text,
  last_error        text,
  -- claims granted so far, and the fence of the current claim when claim_nonce is set
  fence             bigint  NOT NULL CHECK (fence >= 1),
  claim_nonce       text,
  claimed_at        bigint,
  lease_expires_at  bigint,
  settled_fence     bigint,
  settled_nonce     text,
  updated_at        bigint  NOT NULL,
  CHECK ((provider_order_id IS NOT NULL) = (status = 'PROVISIONED')),
  CHECK ((claimed_at IS NULL) = (claim_nonce IS NULL)
     AND (lease_expires_at IS NULL) = (claim_nonce IS NULL)),
  CHECK ((settled_fence IS NULL) = (settled_nonce IS NULL))
);

-- Items bought by superseded attempts: real money, kept until someone reconciles it.
-- One row per (order, claim, provider order id), however often the complete is retried.
CREATE TABLE IF NOT EXISTS fencekit_orphans (
  seq               bigint  GENERATED ALWAYS AS IDENTITY,
  session_id        text    NOT NULL,
  claim_fence       bigint  NOT NULL,
  claim_nonce       text    NOT NULL,
  provider_order_id text    NOT NULL,
  item_payload      text,
  recorded_at       bigint  NOT NULL,
  PRIMARY KEY (session_id, claim_fence, claim_nonce, provider_order_id)
);
