CREATE TABLE fencekit_orphans (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, claim_fence INTEGER, claim_nonce TEXT,
  provider_order_id TEXT, item_payload TEXT, recorded_at INTEGER,
  UNIQUE (session_id, claim_fence, claim_nonce, provider_order_id))
