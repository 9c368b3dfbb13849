-- The unreconciled orphans after a position, oldest first: a range scan of the index
-- fencekit_orphans_unreconciled (unreconciled_at, session_id, claim_fence, claim_nonce,
-- provider_order_id), where unreconciled_at is recorded_at while the orphan is unreconciled and
-- NULL after, from the cursor on, so a page reads its own rows and one more. The cursor's key is
-- spelt out as in stuck-orders.sql, and bounded below by its first column too (so the range starts
-- at the cursor). Parameters: 1 to 5 the sort key of the previous page's last orphan (recorded_at,
-- session_id, claim_fence, claim_nonce, provider_order_id; on the first page values below every
-- row's), 6 how many.
SELECT fencekit_orphan_record_columns
  FROM (SELECT ? AS after_at, ? AS after_id, ? AS after_fence, ? AS after_nonce,
               ? AS after_provider_id) AS p
  JOIN fencekit_orphans
 WHERE unreconciled_at >= p.after_at
   AND (unreconciled_at > p.after_at
        OR (unreconciled_at = p.after_at
            AND (session_id > p.after_id
                 OR (session_id = p.after_id
                     AND (claim_fence > p.after_fence
                          OR (claim_fence = p.after_fence
                              AND (claim_nonce > p.after_nonce
                                   OR (claim_nonce = p.after_nonce
                                       AND provider_order_id > p.after_provider_id))))))))
 ORDER BY unreconciled_at, session_id, claim_fence, claim_nonce, provider_order_id
 LIMIT ?
