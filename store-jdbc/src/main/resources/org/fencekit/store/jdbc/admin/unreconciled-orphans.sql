-- The unreconciled orphans after a position, oldest first: a range scan of the partial index
-- fencekit_orphans_unreconciled, which holds exactly these rows in exactly this order, so a page
-- reads its own rows and one more. Parameters: 1 to 5 the sort key of the previous page's last
-- orphan (recorded_at, session_id, claim_fence, claim_nonce, provider_order_id; on the first page
-- values below every row's), 6 how many.
SELECT fencekit_orphan_record_columns
  FROM fencekit_orphans
 WHERE reconciled_at IS NULL
   AND (recorded_at, session_id, claim_fence, claim_nonce, provider_order_id) > (?, ?, ?, ?, ?)
 ORDER BY recorded_at, session_id, claim_fence, claim_nonce, provider_order_id
 LIMIT ?
