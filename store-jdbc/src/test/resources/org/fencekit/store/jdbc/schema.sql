CREATE TABLE fencekit_orders (
  session_id TEXT PRIMARY KEY, product_id TEXT, quantity INTEGER, customer_email TEXT,
  amount_total INTEGER, currency TEXT, status TEXT, provider_order_id TEXT, item_payload TEXT,
  last_error TEXT, fence INTEGER, claim_nonce TEXT, claimed_at INTEGER, lease_expires_at INTEGER,
  settled_fence INTEGER, settled_nonce TEXT, updated_at INTEGER, failures INTEGER,
  failed_since INTEGER)
