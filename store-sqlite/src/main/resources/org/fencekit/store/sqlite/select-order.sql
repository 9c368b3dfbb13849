SELECT session_id, product_id, quantity, customer_email, amount_total, currency, status,
       provider_order_id, item_payload, last_error, fence, claim_fence, claim_nonce, claimed_at,
       lease_expires_at, settled_fence, settled_nonce, updated_at
  FROM "${orders}"
 WHERE session_id = ?
